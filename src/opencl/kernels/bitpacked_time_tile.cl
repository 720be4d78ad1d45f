// opencl:bitpacked — a bit-packed tile advanced several generations in local memory.
//
// Board: one bit per cell in 32-bit words, row-major, `pitch` words per row; cell x of a row is bit
// x % 32 of word x / 32 (bit 0 = leftmost). Bits past the board's width are always 0.
//
// A work-group of LW x S work-items owns a local copy of LW words x LH = S*ROWS rows: its tile of
// TW = LW - 2 words by TH = LH - 2*halo rows, plus one word (32 cells) left and right and `halo`
// rows above and below. Work-item (c, s) owns local column c, rows s*ROWS .. s*ROWS+ROWS-1, and
// keeps those words in registers. Per generation it reads its neighbours' words from local memory,
// computes its new words, and (after a barrier) publishes them; the local copy's outer cells see
// nothing beyond it, so wrong values creep inwards one cell per generation — after `steps` <=
// halo <= 32 generations they have not reached the tile, which is written back. One global round
// trip per `steps` generations.
//
// Neighbour counts are bit-sliced: for each row the 3-cell horizontal sum of every cell is two bit
// planes (one full adder on whole words), three rows' sums give the 9-cell count (centre included)
// as bit planes s3..s0, and the rule is a sum of products over those planes.
//
// The local copy is the board unrolled around the tile: local cell (x, y) holds board cell
// (x mod W, y mod H) on a torus — gathered bit by bit where the seam does not fall on a word
// boundary — and 0 outside the board on a plane, where cells outside are also cleared after every
// generation (births there must not happen). Tiles whose copy lies wholly inside the board read whole
// words and skip all of this (the branch is the same for the whole group).
//
// Build-time defines: TORUS (1 torus, 0 plane), LW (words per local row, >= 3), ROWS (rows per
// work-item, 1..32), BIRTH and SURVIVAL (9-bit masks: bit n = born / survives with n neighbours),
// LIFE (1: B3/S23, the specialised matcher). Indices into global memory are 64-bit. Built after
// board.cl (wrap_index, clear_words); the population comes from population.cl.

#if !defined(TORUS) || !defined(LW) || !defined(ROWS) || !defined(BIRTH) || !defined(SURVIVAL)
#error "TORUS, LW, ROWS, BIRTH and SURVIVAL must be defined"
#endif
#ifndef LIFE
#define LIFE 0
#endif

#define TW (LW - 2)

#if TORUS
// 32 bits of row `row` starting at cell p (< width); bits past the row's last word are 0. Mirrors
// tilelife::bitpack::bits_from32 (src/core/bitpack.hpp; OpenCL C cannot include C++).
uint bits_from(__global const uint* row, ulong p, ulong nwords) {
    const ulong wi = p >> 5;
    const uint sh = (uint)(p & 31);
    uint v = row[wi] >> sh;
    if (sh != 0 && wi + 1 < nwords) v |= row[wi + 1] << (32 - sh);
    return v;
}
#endif

// Local word for unrolled word column j (cells 32j .. 32j+31) of unrolled row y.
uint board_word(__global const uint* src, ulong pitch, ulong width, ulong height, ulong nwords, long j,
                       long y) {
#if TORUS
    __global const uint* row = src + (ulong)wrap_index(y, (long)height) * pitch;
    if ((width & 31) == 0) return row[wrap_index(j, (long)nwords)];
    // The seam is inside a word: cell 32j + i is board cell (32j + i) mod W, taken in runs.
    ulong p = (ulong)wrap_index(j * 32, (long)width);
    uint out = 0, filled = 0;
    while (filled < 32) {
        const ulong n = min((ulong)(32 - filled), width - p);
        uint v = bits_from(row, p, nwords);
        if (n < 32) v &= (1u << n) - 1u;  // bitpack::low_mask32
        out |= v << filled;
        filled += (uint)n;
        p = 0;  // a run ends at the row's end (or fills the word): the next starts at cell 0
    }
    return out;
#else
    if (y < 0 || y >= (long)height || j < 0 || j >= (long)nwords) return 0;
    return src[(ulong)y * pitch + (ulong)j];
#endif
}

// West / east neighbour of every cell of word c, given the words left and right of it (one funnel
// shift each on NVIDIA GPUs).
#define WEST(l, c) (((c) << 1) | ((l) >> 31))
#define EAST(c, r) (((c) >> 1) | ((r) << 31))

// Horizontal 3-cell sums of a row as bit planes (lo, hi): one full adder over whole words.
#define ROW_SUM(l, c, r, lo, hi)                   \
    do {                                           \
        const uint w_ = WEST(l, c), e_ = EAST(c, r); \
        const uint x_ = w_ ^ (c);                  \
        lo = x_ ^ e_;                              \
        hi = (w_ & (c)) | (x_ & e_);               \
    } while (0)

// The next state from three rows' sums (a: above, b: own row, d: below) and the cell itself.
uint next_state(uint a0, uint a1, uint b0, uint b1, uint d0, uint d1, uint alive) {
    // Weight-1 planes: a full adder.
    const uint x0 = a0 ^ b0;
    const uint s0 = x0 ^ d0;
    const uint k0 = (a0 & b0) | (x0 & d0);
    // Weight-2 planes a1, b1, d1 and the carry k0: count 0..4 = s1 + 2 * (s2 + 2 * s3).
    const uint x1 = a1 ^ b1 ^ d1;
    const uint s1 = x1 ^ k0;
    const uint m1 = (a1 & b1) | (d1 & (a1 ^ b1));
    const uint s2 = m1 ^ (x1 & k0);
#if LIFE
    // 9-cell count 3 (born or survives with 2), or 4 while alive (survives with 3). Counts 8 and 9
    // read as 0 and 1 here (s3 left out) and are dead either way. Written as two three-input
    // operations (LOP3 on NVIDIA): u is s1 & ~s2 where s1 is set, s2 & alive where it is not; the
    // count is then 3 or 4 exactly where s0 equals s1 (s0 = s1 = 1: 3; s0 = s1 = 0: 4).
    const uint u = (s1 ^ s2) & (s1 | alive);
    return u & ~(s0 ^ s1);
#else
    const uint s3 = a1 & b1 & d1 & k0;  // count 4: all four set
    uint next = 0;
    // 9-cell count v: born when dead and v in BIRTH; survives when alive and v - 1 in SURVIVAL.
#define PLANE(s, bit) ((bit) ? (s) : ~(s))
#define COUNT_IS(v) (PLANE(s0, (v) & 1) & PLANE(s1, ((v) >> 1) & 1) & PLANE(s2, ((v) >> 2) & 1) & PLANE(s3, ((v) >> 3) & 1))
#define LIVES(v) ((((BIRTH >> (v)) & 1u) ? ~alive : 0u) | ((((SURVIVAL << 1) >> (v)) & 1u) ? alive : 0u))
#define TERM(v) if (((BIRTH | (SURVIVAL << 1)) >> (v)) & 1u) next |= COUNT_IS(v) & LIVES(v);
    TERM(0) TERM(1) TERM(2) TERM(3) TERM(4) TERM(5) TERM(6) TERM(7) TERM(8) TERM(9)
    return next;
#endif
}

// One generation of this work-item's strip, in place in cur[]. Reads only local memory (the state
// before this generation) and cur[]; the caller publishes cur[] after a barrier. `up`, `dn`: the first
// words of the local rows above and below the strip; `left`, `right`: its first row in the columns
// left and right. Every other word is a constant offset from
// these pointers, so the loads need no address arithmetic (with unsigned indices the compiler must
// assume they wrap and computes each address: 49 of 585 instructions a generation on an H100).
// masked (plane tiles touching the edge): cells outside the board are cleared, rows by bit r of
// `rows_in`, columns by `col_mask`. Called with constant `masked`, so each call is specialised.
void advance(__local const uint* restrict up, __local const uint* restrict dn, __local const uint* restrict left,
             __local const uint* restrict right, uint* restrict cur, const uint c, const uint cl, const uint cr,
             const bool masked, const uint rows_in, const uint col_mask) {
    uint p0, p1, q0, q1, n0, n1;
    ROW_SUM(up[cl], up[c], up[cr], p0, p1);
    ROW_SUM(left[0], cur[0], right[0], q0, q1);
#pragma unroll
    for (uint r = 0; r < ROWS; ++r) {
        if (r + 1 < ROWS) {
            ROW_SUM(left[(r + 1) * LW], cur[r + 1], right[(r + 1) * LW], n0, n1);
        } else {
            ROW_SUM(dn[cl], dn[c], dn[cr], n0, n1);
        }
        uint nx = next_state(p0, p1, q0, q1, n0, n1, cur[r]);
        if (masked) nx &= ((rows_in >> r) & 1u) ? col_mask : 0u;
        cur[r] = nx;
        p0 = q0, p1 = q1, q0 = n0, q1 = n1;
    }
}

// One tile (`group`, numbered row by row) advanced `steps` generations. With compare, a tile whose new
// words differ from what dst held (the board two launches back) sets stamps[group] = stamp
// (activity tracking, active_tile_list.cl); `changed` is the work-group's flag for that.
void time_tile(__global const uint* restrict src, __global uint* restrict dst, const ulong width,
               const ulong height, const ulong pitch, const ulong nwords, const ulong groups_x, const uint steps,
               const uint halo, __local uint* restrict tile, const ulong group, __global uint* restrict stamps,
               const uint compare, const uint stamp, __local uint* changed) {
    const uint c = get_local_id(0);  // local word column
    const uint r0 = get_local_id(1) * ROWS;
    const uint LH = get_local_size(1) * ROWS;
    const ulong gy = group / groups_x, gx = group - gy * groups_x;
    const long a = (long)gx * TW;                                    // first word of the tile
    const long ytop = (long)gy * (long)(LH - 2 * halo) - (long)halo;  // board row of local row 0
    const long j = a - 1 + (long)c;                                  // this column's unrolled word

    // The whole local copy inside the board, in whole words: plain loads, no masks.
    const bool inside = a >= 1 && a + TW < (long)(width >> 5) && ytop >= 0 && ytop + (long)LH <= (long)height;

    uint cur[ROWS];
    if (inside) {
        __global const uint* p = src + (ulong)(ytop + r0) * pitch + (ulong)j;
#pragma unroll
        for (uint r = 0; r < ROWS; ++r) cur[r] = p[(ulong)r * pitch];
    } else {
#pragma unroll
        for (uint r = 0; r < ROWS; ++r) cur[r] = board_word(src, pitch, width, height, nwords, j, ytop + r0 + r);
    }

    // Plane tiles at the edge: which of this strip's rows and which bits of this column are on the board.
    uint rows_in = 0, col_mask = 0;
#if !TORUS
    if (!inside) {
        for (uint r = 0; r < ROWS; ++r) {
            const long y = ytop + r0 + r;
            if (y >= 0 && y < (long)height) rows_in |= 1u << r;
        }
        if (j >= 0 && j < (long)nwords)
            // bitpack::last_word_mask32 on the last column
            col_mask = (j == (long)nwords - 1 && (width & 31) != 0) ? (1u << (width & 31)) - 1u : ~0u;
    }
#endif

    if (c == 0 && r0 == 0) *changed = 0;  // read after the barriers below
    // Outside the local copy there is nothing to read: the outermost words and rows read themselves
    // instead, which only disturbs cells that are allowed to go wrong.
    const uint cl = c == 0 ? 0 : c - 1, cr = c == LW - 1 ? c : c + 1;
    const uint row_up = r0 == 0 ? 0 : r0 - 1, row_dn = r0 + ROWS == LH ? LH - 1 : r0 + ROWS;
    __local uint* const mine = tile + r0 * LW + c;  // this work-item's words, LW apart
    __local const uint* const up = tile + row_up * LW;
    __local const uint* const dn = tile + row_dn * LW;
    __local const uint* const left = tile + r0 * LW + cl;
    __local const uint* const right = tile + r0 * LW + cr;
#pragma unroll
    for (uint r = 0; r < ROWS; ++r) mine[r * LW] = cur[r];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint g = 0; g < steps; ++g) {
#if TORUS
        advance(up, dn, left, right, cur, c, cl, cr, false, rows_in, col_mask);
#else
        if (inside) advance(up, dn, left, right, cur, c, cl, cr, false, rows_in, col_mask);
        else advance(up, dn, left, right, cur, c, cl, cr, true, rows_in, col_mask);
#endif
        if (g + 1 == steps) break;  // the last generation goes straight to global memory
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint r = 0; r < ROWS; ++r) mine[r * LW] = cur[r];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // Write the tile: local columns 1..TW, local rows halo .. LH-halo-1, clipped to the board. With
    // compare, the old words are read first, all loads before any store so that they are in flight
    // together (a store between them would order them: the compiler cannot tell the rows apart).
    // No early return: the caller may loop over tiles with a barrier between them.
    if (c != 0 && c != LW - 1 && j < (long)nwords) {
        // bitpack::last_word_mask32 on the last column (src/core/bitpack.hpp)
        const uint keep = (j == (long)nwords - 1 && (width & 31) != 0) ? (1u << (width & 31)) - 1u : ~0u;
        if (compare) {
            uint diff = 0;
#pragma unroll
            for (uint r = 0; r < ROWS; ++r) {
                const uint lr = r0 + r;
                const long y = ytop + lr;
                if (lr >= halo && lr < LH - halo && y < (long)height)
                    diff |= dst[(ulong)y * pitch + (ulong)j] ^ (cur[r] & keep);
            }
            if (diff) atomic_or(changed, 1u);
        }
#pragma unroll
        for (uint r = 0; r < ROWS; ++r) {
            const uint lr = r0 + r;
            const long y = ytop + lr;
            if (lr >= halo && lr < LH - halo && y < (long)height) dst[(ulong)y * pitch + (ulong)j] = cur[r] & keep;
        }
    }
    if (compare) {  // the same for the whole group
        barrier(CLK_LOCAL_MEM_FENCE);
        if (c == 0 && r0 == 0 && *changed) stamps[group] = stamp;
    }
}

// Tiles are numbered row by row along dimension 0 (dimension 1 allows too few groups on some devices
// for tall boards); neighbouring groups share halo rows in the cache. Without use_list work-group g
// runs tile g. With it (activity tracking) the grid is a few groups per compute unit, and each runs
// list[g], list[g + groups], ... up to the list's length counts[slot]: a short list then costs a few
// early exits rather than one per tile of the board.
__kernel void life_bitpacked_time_tile(__global const uint* restrict src, __global uint* restrict dst,
                                       const ulong width, const ulong height, const ulong pitch,
                                       const ulong nwords, const ulong groups_x, const uint steps,
                                       const uint halo, __local uint* restrict tile,
                                       __global uint* restrict stamps, __global const uint* restrict list,
                                       __global const uint* restrict counts, const uint slot, const uint use_list,
                                       const uint compare, const uint stamp) {
    __local uint changed;
    // One call site and one loop for both cases (without the list each group loops once over its own
    // tile): with two call sites, in branches that both reach barriers, PoCL gave wrong boards.
    const ulong groups = get_num_groups(0);
    const ulong n = use_list ? (ulong)counts[slot] : groups;
    for (ulong i = get_group_id(0); i < n; i += groups) {
        time_tile(src, dst, width, height, pitch, nwords, groups_x, steps, halo, tile, use_list ? (ulong)list[i] : i,
                  stamps, compare, stamp, &changed);
        barrier(CLK_LOCAL_MEM_FENCE);  // the next tile overwrites the local copy and the flag
    }
}
