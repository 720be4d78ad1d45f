// cpu:streamlife: HashLife over two layers (docs/streamlife.md), after the idea of Adam P. Goucher's
// StreamLife. The plane is the union of two disjoint layers, each a hash-consed quadtree of one
// store. A pair of squares (a, b) is stepped as a pair: where it can be proved that what a and b
// become never meet within the step, its result is (result(a), result(b)), each from the one-layer
// HashLife memo; otherwise the pair is memoised itself and stepped by HashLife's recursion over
// pairs, down to 64x64 squares, whose two layers are merged and stepped by the leaf kernel. The
// merged result goes to the second layer when it is a moving stream, to the first otherwise; how
// cells are split never changes which cells result, only which memo entries recur.
//
// The proof (docs/streamlife.md has it in full): a square X is a stream of velocity v when, four
// generations on, X alone equals X moved by v everywhere at least 4 cells inside the square. Then
// for every t up to a quarter of its side, what X becomes inside the square shrunk by t lies within
// 3 cells of X moved by (t / 4) v. If a and b are streams whose velocities are both parallel to
// one axis (or 0), the coordinate across that axis of their cells never changes by more than 3
// (orthogonal) or 6 (diagonal); cells of a and b more than 8 (16) apart in that coordinate
// therefore never come within reach of one another inside the region that the result depends on.
#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstring>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/huge_pages.hpp"
#include "hashlife/hashlife.hpp"
#include "hashlife/streamlife.hpp"
#include "tilelife/error.hpp"
#include "tilelife/memory.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife::streamlife {
namespace {

using Ref = std::uint32_t;
constexpr int kLeafLevel = 4;  // 16x16 cells
constexpr int kBaseLevel = 6;  // 64x64: stepped by the leaf kernel
constexpr int kMinRoot = 6;
constexpr int kMaxLevel = 63;
constexpr int kMaxStepLog = 60;

// Velocities (dx, dy) per 4 generations that a stream may have; bit i of a mask stands for kVel[i].
constexpr int kVel[9][2] = {{0, 0}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}, {2, 0}, {-2, 0}, {0, 2}, {0, -2}};
constexpr std::uint16_t kAllVel = 0x1ff;
constexpr std::uint16_t kStill = 1;
constexpr std::uint16_t kKnown = 0x8000;
// Forward: the odd entries of kVel, (1, 1), (1, -1), (2, 0), (0, 2); backward: their opposites.
constexpr std::uint16_t kForward = 1u << 1 | 1u << 3 | 1u << 5 | 1u << 7;
constexpr std::uint16_t kBackward = 1u << 2 | 1u << 4 | 1u << 6 | 1u << 8;
// Four axes, each with the coordinate its parallel motions leave unchanged: p = y (motion along
// x), p = x, p = x + y (motion along (1, -1)), p = x - y (along (1, 1)). Lanes are p / 8 mod 64.
constexpr std::uint16_t kParallel[4] = {1u | 1u << 5 | 1u << 6, 1u | 1u << 7 | 1u << 8, 1u | 1u << 3 | 1u << 4,
                                        1u | 1u << 1 | 1u << 2};
// Lanes that must separate a and b: cells within 8 (orthogonal) or 16 (diagonal) in p meet.
constexpr int kReach[4] = {1, 1, 2, 2};

// The top-left cell of a root of this level (Golly's placement, as Quadtree::origin()).
inline Cell origin(int level) {
    const std::int64_t h = std::int64_t{1} << (level - 1);
    return Cell{-h, 1 - h};
}

// The velocities v (kVel bits) for which `after` (64 rows of 64 cells, four generations after
// `before`) equals `before` moved by v at every cell of rows and columns lo .. hi - 1 (2 <= lo,
// hi <= 62: what moves in comes from inside the rows).
inline std::uint16_t velocities(const std::uint64_t* before, const std::uint64_t* after, int lo, int hi) {
    const std::uint64_t window = (~std::uint64_t{0} >> (64 - (hi - lo))) << lo;
    std::uint16_t m = 0;
    for (int v = 0; v < 9; ++v) {
        const int dx = kVel[v][0], dy = kVel[v][1];
        bool same = true;
        for (int y = lo; y < hi && same; ++y) {
            const std::uint64_t src = before[y - dy];
            const std::uint64_t moved = dx >= 0 ? src << dx : src >> -dx;
            same = ((after[y] ^ moved) & window) == 0;
        }
        if (same) m |= static_cast<std::uint16_t>(1u << v);
    }
    return m;
}

struct Node {
    union {
        Ref kid[4];              // nw, ne, sw, se (level >= 5)
        std::uint16_t row[16];   // a leaf: bit x of row[y] = cell (x, y)
    } u;
    std::uint64_t lanes[4];      // occupied lanes per axis, relative to the square's corner
    Ref res;                     // the centre 2^(res_k - 1) generations on; 0: none
    std::uint16_t vmask;         // stream velocities (kVel bits) | kKnown once computed
    std::uint8_t level;
    std::uint8_t res_k;
};

struct Full {};         // the store reached its limit: collect and retry
struct Interrupted {};

inline std::uint64_t mix(std::uint64_t h) {
    h ^= h >> 31;
    h *= 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}

inline std::uint64_t rotl(std::uint64_t x, std::uint64_t s) {
    s &= 63;
    return s ? (x << s) | (x >> (64 - s)) : x;
}

struct PairEntry {
    Ref a = 0, b = 0, ra = 0, rb = 0;
    std::uint32_t k = 0;  // step log + 1; 0: a free slot
};

class StreamlifeEngine final : public Engine {
public:
    StreamlifeEngine(const BoardSpec& spec, const EngineOptions& options, const Tuning& tuning)
        : rule_(spec.rule), masks_(hashlife::rule_masks(spec.rule)), life_(spec.rule == Rule::life()),
          kernel_(hashlife::leaf_kernel(hashlife::best_leaf_simd())), interrupt_(options.interrupt) {
        if (spec.topology != Topology::unbounded)
            throw std::invalid_argument("cpu:streamlife runs only the unbounded plane");
        if (spec.rule.birth & 1u)
            throw InputError("rule " + spec.rule.to_string() + " has B0 (not on an unbounded plane)");
        budget_ = options.max_bytes > 0 ? options.max_bytes : memory_limits().budget();
        limit_ = std::min(budget_, std::max<std::int64_t>(tuning.initial_bytes, 1 << 16));
        try {
            reset_store();
        } catch (const Full&) {
            throw InputError("cpu:streamlife needs at least " + std::to_string(bytes() >> 10) +
                             " KiB (memory budget " + std::to_string(budget_ >> 10) + " KiB)");
        }
    }

    std::string name() const override { return "cpu:streamlife"; }
    Topology topology() const override { return Topology::unbounded; }
    Rule rule() const override { return rule_; }
    std::int64_t generation() const override { return generation_; }
    Box extent() const override { return quadtree()->bounding_box(); }
    Box bounding_box() const override { return quadtree()->bounding_box(); }
    bool wants_whole_runs() const override { return true; }

    std::int64_t population() const override {
        const CellCount n = quadtree()->population();
        return n > static_cast<CellCount>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(n);
    }

    void step(std::int64_t generations) override {
        if (generations < 0) throw InputError("cpu:streamlife: cannot step a negative number of generations");
        if (generations == 0) return;
        if (generation_ > INT64_MAX - generations)
            throw InputError("cpu:streamlife: generation " + std::to_string(generation_) + " + " +
                             std::to_string(generations) + " is beyond 2^63 - 1: refused before running");
        if (ra_ == empty_[level_] && rb_ == empty_[level_]) {
            generation_ += generations;
            return;
        }
        try {
            for (int j = 0; j < 63 && generations > 0; ++j) {
                const std::int64_t bit = std::int64_t{1} << j;
                if (!(generations & bit)) continue;
                const int piece = std::min(j, kMaxStepLog);
                for (std::int64_t i = 0; i < bit >> piece; ++i) run_piece(piece);
                generations -= bit;
            }
        } catch (const Interrupted&) {
        }
    }

    void set_cells(const std::vector<Cell>& cells) override {
        if (cells.empty()) return;
        with_room([&] { add_cells(cells); });
    }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        if (box.empty()) return;
        std::vector<Cell> live;
        for (std::int64_t y = 0; y < box.height; ++y)
            for (std::int64_t x = 0; x < box.width; ++x)
                if (cells[y * box.width + x]) live.push_back(Cell{box.x + x, box.y + y});
        with_room([&] {
            const Cell o = origin(level_);
            ra_ = clear_box(ra_, level_, o.x, o.y, box);
            rb_ = clear_box(rb_, level_, o.x, o.y, box);
            changed();
            if (!live.empty()) add_cells(live);
        });
    }

    void read_region(const Box& box, std::uint8_t* out) const override {
        if (box.empty()) return;
        std::memset(out, 0, static_cast<std::size_t>(box.width * box.height));
        quadtree()->for_each_row(
            [&](std::int64_t y, const std::vector<Quadtree::RowPiece>& pieces) {
                for (const auto& p : pieces)
                    for (int i = 0; i < 8; ++i)
                        if ((p.bits >> i) & 1) out[(y - box.y) * box.width + (p.x + i - box.x)] = 1;
            },
            &box);
    }

    std::vector<Cell> live_cells_in(const Box& box) const override { return quadtree()->cells(&box); }

    std::shared_ptr<const Quadtree> quadtree() const override {
        if (!exported_) exported_ = std::make_shared<const Quadtree>(export_tree());
        return exported_;
    }

    bool load_quadtree(const Quadtree& t) override {
        with_room([&] {
            ra_ = rb_ = empty_[kMinRoot];
            level_ = kMinRoot;
            changed();
            if (t.root() == 0) return;
            if (t.level() < kMinRoot) {  // small: through its cells
                add_cells(t.cells());
                return;
            }
            // At most one square of ours for each of its squares of level 4 and up (four 8x8
            // leaves make one of ours).
            std::size_t squares = 0;
            for (Quadtree::Index i = 1; i <= t.nodes().size(); ++i) squares += t.level_of(i) > Quadtree::leaf_level;
            reserve_store(squares);
            std::vector<Ref> memo(t.nodes().size() + 1, 0);
            ra_ = import(t, t.root(), t.level(), memo);
            level_ = t.level();
            rb_ = empty_[level_];
            changed();
            shrink();
        });
        return true;
    }

    EngineDescription describe() const override {
        EngineDescription d;
        d.name = name();
        d.backend = "cpu";
        d.threads = 1;
        d.host_bytes = bytes();
        d.properties = {
            {"nodes", static_cast<std::int64_t>(nodes_.size() - 1)},
            {"pair results", static_cast<std::int64_t>(pair_count_)},
            {"independent pairs", splits_},
            {"bytes", bytes()},
            {"memory budget bytes", budget_},
            {"collections", collections_},
            {"root level", static_cast<std::int64_t>(level_)},
        };
        return d;
    }

    // For tests: break the independence test (every pair of streams counts as independent).
    bool trust_streams = false;

private:
    // ---- the store ----
    std::int64_t bytes() const {
        return static_cast<std::int64_t>(nodes_.capacity() * sizeof(Node) + table_.size() * sizeof(table_[0]) +
                                         pairs_.size() * sizeof(PairEntry));
    }
    // The node array's capacity raised to `cap`, its new pages in transparent huge pages: a store
    // grown a page fault at a time (its copies included) cost cpu:auto's probe of hbk_gun.mc.gz
    // 4,900 faults, about 60 ms of a 0.4 s run (2026-12-07).
    // (Advised before the copy: reserve() would copy into pages faulted one by one.)
    void grow_nodes(std::size_t cap) {
        if (cap <= nodes_.capacity()) return;
        std::vector<Node> bigger;
        bigger.reserve(cap);
        advise_huge_pages(bigger, Populate::head);
        bigger.insert(bigger.end(), nodes_.begin(), nodes_.end());
        nodes_.swap(bigger);
    }
    // Room for `more` squares at once (a tree about to be imported): grown by doubling, the array
    // was copied on the way. Only a hint: skipped
    // when over the limit (the import then grows the store as it goes, and stops only when full).
    void reserve_store(std::size_t more) {
        const std::size_t want = nodes_.size() + more, slots = std::bit_ceil(2 * want);
        const std::size_t grow_nodes_by = want > nodes_.capacity() ? (want - nodes_.capacity()) * sizeof(Node) : 0;
        const std::size_t grow_table_by = slots > table_.size() ? (slots - table_.size()) * sizeof(table_[0]) : 0;
        if (bytes() + static_cast<std::int64_t>(grow_nodes_by + grow_table_by) > limit_) return;
        if (grow_nodes_by) grow_nodes(want);
        if (grow_table_by) rehash(slots);
    }
    // Throws Full unless `more` bytes fit the limit.
    void need(std::size_t more) const {
        if (bytes() + static_cast<std::int64_t>(more) > limit_) throw Full{};
    }

    static std::uint64_t key_hash(int level, const Node& n) {
        std::uint64_t w[4];
        std::memcpy(w, &n.u, sizeof w);
        return mix(w[0] * 0x9E3779B97F4A7C15ull ^ mix(w[1] + 0x632BE59BD9B4E019ull) ^
                   mix(w[2] * 0xC2B2AE3D27D4EB4Full + w[3]) ^ static_cast<std::uint64_t>(level));
    }

    // The table holds (hash's high half << 32 | index): a probe reads a node only when the hash
    // matches, so a lookup costs one cache miss in the nodes, not one a probe.
    Ref intern(const Node& key) {
        const std::uint64_t h = key_hash(key.level, key);
        const std::uint64_t tag = h & ~std::uint64_t{0xffffffff};
        std::size_t mask = table_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const std::uint64_t e = table_[i];
            if (e == 0) break;
            if ((e & ~std::uint64_t{0xffffffff}) != tag) continue;
            const Ref r = static_cast<Ref>(e);
            const Node& n = nodes_[r];
            if (n.level == key.level && std::memcmp(&n.u, &key.u, sizeof key.u) == 0) return r;
        }
        if (nodes_.size() == nodes_.capacity()) {
            const std::size_t cap = nodes_.capacity() * 2;
            need((cap - nodes_.capacity()) * sizeof(Node));
            grow_nodes(cap);
        }
        if ((nodes_.size() + 1) * 2 > table_.size()) {
            need(table_.size() * sizeof(table_[0]));
            rehash(table_.size() * 2);
            mask = table_.size() - 1;
        }
        const Ref r = static_cast<Ref>(nodes_.size());
        nodes_.push_back(key);
        place(h, r);
        return r;
    }
    void place(std::uint64_t h, Ref r) {
        const std::size_t mask = table_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask)
            if (table_[i] == 0) {
                table_[i] = (h & ~std::uint64_t{0xffffffff}) | r;
                return;
            }
    }

    void rehash(std::size_t size) {
        // In transparent huge pages: a fresh 4 KiB page costs a fault of ~13 us on this project's
        // VM, and the table is written whole.
        table_.clear();
        if (size > table_.capacity()) {
            table_.shrink_to_fit();
            table_.reserve(size);
            advise_huge_pages(table_);
        }
        table_.resize(size, 0);
        for (Ref r = 1; r < nodes_.size(); ++r) place(key_hash(nodes_[r].level, nodes_[r]), r);
    }

    static Node blank_node() {
        Node n;
        std::memset(&n, 0, sizeof n);  // every byte: keys are compared and hashed as bytes
        return n;
    }
    Ref leaf(const std::uint16_t* rows) {
        Node n = blank_node();
        std::memcpy(n.u.row, rows, sizeof n.u.row);
        n.level = kLeafLevel;
        return intern(n);
    }
    Ref node(int level, Ref a, Ref b, Ref c, Ref d) {
        Node n = blank_node();
        n.u.kid[0] = a, n.u.kid[1] = b, n.u.kid[2] = c, n.u.kid[3] = d;
        n.level = static_cast<std::uint8_t>(level);
        return intern(n);
    }
    Ref kid(Ref r, int q) const { return nodes_[r].u.kid[q]; }

    void reset_store() {
        nodes_.clear();
        nodes_.shrink_to_fit();
        nodes_.reserve(256);
        nodes_.push_back(blank_node());  // index 0: none
        table_.assign(1024, 0);
        pairs_.assign(256, PairEntry{});
        pair_count_ = 0;
        need(0);
        std::uint16_t blank[16] = {};
        empty_[kLeafLevel] = leaf(blank);
        for (int l = kLeafLevel + 1; l <= kMaxLevel; ++l) empty_[l] = node(l, empty_[l - 1], empty_[l - 1], empty_[l - 1], empty_[l - 1]);
        ra_ = rb_ = empty_[kMinRoot];
        level_ = kMinRoot;
    }

    // Keeps what the two roots and the empty squares reach; drops every memoised result. Children
    // always precede their parents, so the survivors slide down in place.
    void collect() {
        ++collections_;
        std::vector<std::uint8_t> mark(nodes_.size(), 0);
        const std::function<void(Ref)> visit = [&](Ref r) {
            if (mark[r]) return;
            mark[r] = 1;
            if (nodes_[r].level > kLeafLevel)
                for (int q = 0; q < 4; ++q) visit(nodes_[r].u.kid[q]);
        };
        visit(ra_);
        visit(rb_);
        for (int l = kLeafLevel; l <= kMaxLevel; ++l) visit(empty_[l]);
        std::vector<Ref> to(nodes_.size(), 0);
        Ref top = 1;
        for (Ref r = 1; r < nodes_.size(); ++r) {
            if (!mark[r]) continue;
            Node n = nodes_[r];
            if (n.level > kLeafLevel)
                for (int q = 0; q < 4; ++q) n.u.kid[q] = to[n.u.kid[q]];
            n.res = 0;
            n.res_k = 0;
            nodes_[top] = n;
            to[r] = top++;
        }
        nodes_.resize(top);
        nodes_.shrink_to_fit();
        ra_ = to[ra_];
        rb_ = to[rb_];
        for (int l = kLeafLevel; l <= kMaxLevel; ++l) empty_[l] = to[empty_[l]];
        std::size_t size = 1024;
        while (size < nodes_.size() * 4) size *= 2;
        rehash(size);
        pairs_.assign(256, PairEntry{});
        pair_count_ = 0;
    }
    // After a collection that did not make room enough: a larger store, if the budget has room.
    bool raise_limit() {
        if (limit_ >= budget_) return false;
        limit_ = std::min(budget_, limit_ * 2);
        return true;
    }

    // Runs `f` (which builds from the current roots); a full store is collected and `f` run again.
    template <class F>
    void with_room(F&& f) {
        const int level = level_;
        for (int attempt = 0;; ++attempt) {
            const Ref a = ra_, b = rb_;
            try {
                f();
                break;
            } catch (const Full&) {
                ra_ = a, rb_ = b, level_ = level;
                collect();
                if (attempt > 0 && !raise_limit()) {
                    changed();
                    throw RuntimeError(over_budget());
                }
            }
        }
        changed();
    }

    std::string over_budget() const {
        const std::string size = budget_ >= (std::int64_t{1} << 20) ? std::to_string(budget_ >> 20) + " MiB"
                                                                     : std::to_string(budget_ >> 10) + " KiB";
        return "cpu:streamlife: the pattern needs more than the memory budget of " + size + " (" +
               std::to_string(budget_) + " bytes)";
    }

    // ---- pair memo ----
    std::size_t pair_slot(Ref a, Ref b, int k) const {
        return mix((std::uint64_t{a} << 32 | b) * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(k)) &
               (pairs_.size() - 1);
    }
    const PairEntry* find_pair(Ref a, Ref b, int k) const {
        const std::size_t mask = pairs_.size() - 1;
        for (std::size_t i = pair_slot(a, b, k);; i = (i + 1) & mask) {
            const PairEntry& e = pairs_[i];
            if (e.k == 0) return nullptr;
            if (e.a == a && e.b == b && e.k == static_cast<std::uint32_t>(k + 1)) return &e;
        }
    }
    void put_pair(Ref a, Ref b, int k, Ref ra, Ref rb) {
        if ((pair_count_ + 1) * 2 > pairs_.size()) {
            need(pairs_.size() * sizeof(PairEntry));
            std::vector<PairEntry> old(pairs_.size() * 2);
            old.swap(pairs_);
            pair_count_ = 0;
            for (const PairEntry& e : old)
                if (e.k) insert_pair(e);
        }
        insert_pair(PairEntry{a, b, ra, rb, static_cast<std::uint32_t>(k + 1)});
    }
    void insert_pair(const PairEntry& e) {
        const std::size_t mask = pairs_.size() - 1;
        for (std::size_t i = pair_slot(e.a, e.b, static_cast<int>(e.k) - 1);; i = (i + 1) & mask)
            if (pairs_[i].k == 0) {
                pairs_[i] = e;
                ++pair_count_;
                return;
            }
    }

    // ---- squares ----
    // The nine overlapping squares of level L - 1 inside a square of level L >= 6.
    void nine(Ref x, Ref* out) {
        if (x == empty_[nodes_[x].level]) {  // most pairs have one empty layer: no lookups for it
            std::fill(out, out + 9, empty_[nodes_[x].level - 1]);
            return;
        }
        const Ref nw = kid(x, 0), ne = kid(x, 1), sw = kid(x, 2), se = kid(x, 3);
        const int l = nodes_[nw].level;
        const Ref nw1 = kid(nw, 1), nw2 = kid(nw, 2), nw3 = kid(nw, 3), ne0 = kid(ne, 0), ne2 = kid(ne, 2),
                  ne3 = kid(ne, 3), sw0 = kid(sw, 0), sw1 = kid(sw, 1), sw3 = kid(sw, 3), se0 = kid(se, 0),
                  se1 = kid(se, 1), se2 = kid(se, 2);
        out[0] = nw;
        out[1] = node(l, nw1, ne0, nw3, ne2);
        out[2] = ne;
        out[3] = node(l, nw2, nw3, sw0, sw1);
        out[4] = node(l, nw3, ne2, sw1, se0);
        out[5] = node(l, ne2, ne3, se0, se1);
        out[6] = sw;
        out[7] = node(l, sw1, se0, sw3, se2);
        out[8] = se;
    }
    Ref centre(Ref x, int level) {
        if (x == empty_[level]) return empty_[level - 1];
        return node(level - 1, kid(kid(x, 0), 3), kid(kid(x, 1), 2), kid(kid(x, 2), 1), kid(kid(x, 3), 0));
    }
    // Four squares of level L - 1 from nine of level L - 2 (3x3, row-major).
    void four(int level, const Ref* q, Ref* out) {
        const Ref e = empty_[level - 2];
        if (q[0] == e && q[1] == e && q[2] == e && q[3] == e && q[4] == e && q[5] == e && q[6] == e && q[7] == e &&
            q[8] == e) {
            std::fill(out, out + 4, empty_[level - 1]);
            return;
        }
        out[0] = node(level - 1, q[0], q[1], q[3], q[4]);
        out[1] = node(level - 1, q[1], q[2], q[4], q[5]);
        out[2] = node(level - 1, q[3], q[4], q[6], q[7]);
        out[3] = node(level - 1, q[4], q[5], q[7], q[8]);
    }

    Ref join(int level, const Ref* q) {
        const Ref e = empty_[level - 1];
        if (q[0] == e && q[1] == e && q[2] == e && q[3] == e) return empty_[level];
        return node(level, q[0], q[1], q[2], q[3]);
    }

    // The 64 rows of a level-6 square (16 leaves), or of a level-5 square placed at (16, 16).
    void rows_of(Ref x, int level, std::uint64_t* rows) const {
        std::memset(rows, 0, 64 * sizeof(std::uint64_t));
        const auto put = [&](Ref n5, int ox, int oy) {
            for (int q = 0; q < 4; ++q) {
                const Node& l = nodes_[nodes_[n5].u.kid[q]];
                const int x0 = ox + (q & 1) * 16, y0 = oy + (q >> 1) * 16;
                for (int r = 0; r < 16; ++r) rows[y0 + r] |= static_cast<std::uint64_t>(l.u.row[r]) << x0;
            }
        };
        if (level == 5) {
            put(x, 16, 16);
        } else {
            for (int q = 0; q < 4; ++q) put(nodes_[x].u.kid[q], (q & 1) * 32, (q >> 1) * 32);
        }
    }
    Ref leaf_at(const std::uint64_t* rows, int x0, int y0) {
        std::uint16_t r[16];
        for (int i = 0; i < 16; ++i) r[i] = static_cast<std::uint16_t>(rows[y0 + i] >> x0);
        return leaf(r);
    }

    void poll() {
        if (interrupt_ && (++polls_ & 1023) == 0 && interrupt_->load(std::memory_order_relaxed)) throw Interrupted{};
    }

    // One layer, HashLife: the centre of x (level L) 2^k generations on, k <= L - 2.
    Ref result(Ref x, int level, int k) {
        if (x == empty_[level]) return empty_[level - 1];
        if (nodes_[x].res_k == k + 1) return nodes_[x].res;
        poll();
        Ref r;
        if (level == kBaseLevel) {
            std::uint64_t rows[64];
            rows_of(x, level, rows);
            kernel_(rows, 1 << k, masks_, life_);
            r = node(5, leaf_at(rows, 16, 16), leaf_at(rows, 32, 16), leaf_at(rows, 16, 32), leaf_at(rows, 32, 32));
        } else {
            Ref q[9], c[4], o[4];
            nine(x, q);
            const bool full = k == level - 2;
            for (int i = 0; i < 9; ++i) q[i] = full ? result(q[i], level - 1, k - 1) : centre(q[i], level - 1);
            four(level, q, c);
            for (int i = 0; i < 4; ++i) o[i] = result(c[i], level - 1, full ? k - 1 : k);
            r = node(level - 1, o[0], o[1], o[2], o[3]);
        }
        nodes_[x].res = r;
        nodes_[x].res_k = static_cast<std::uint8_t>(k + 1);
        return r;
    }

    // ---- streams ----
    // Velocities v (kVel bits) with: 4 generations on, x alone equals x moved by v at every cell at
    // least 4 inside the square. Level 5 directly; above, every such cell has its 9x9 neighbourhood
    // inside one of the nine overlapping squares, so the property of all nine implies x's.
    std::uint16_t vmask(Ref x) {
        if (nodes_[x].vmask & kKnown) return nodes_[x].vmask & kAllVel;
        const int level = nodes_[x].level;
        std::uint16_t m = kAllVel;
        if (x == empty_[level]) {
        } else if (level == kLeafLevel) {
            m = 0;  // not asked for: pairs are tested from level 6
        } else if (level == 5) {
            std::uint64_t rows[64], orig[64];
            rows_of(x, 5, rows);
            std::memcpy(orig, rows, sizeof rows);
            kernel_(rows, 4, masks_, life_);
            m = velocities(orig, rows, 20, 44);  // the square at 16..47: 4 inside it
        } else {
            Ref q[9];
            nine(x, q);
            static constexpr int order[9] = {0, 2, 6, 8, 4, 1, 3, 5, 7};  // corners first: most fail there
            for (int i = 0; i < 9 && m; ++i) m &= vmask(q[order[i]]);
        }
        nodes_[x].vmask = static_cast<std::uint16_t>((nodes_[x].vmask & 0x4000) | m | kKnown);
        if (!(nodes_[x].vmask & 0x4000)) set_lanes(x);
        return m;
    }

    // Lanes of the cells of x per axis (lane = p / 8 mod 64, p from the square's corner).
    void set_lanes(Ref x) {
        const int level = nodes_[x].level;
        std::uint64_t l[4] = {0, 0, 0, 0};
        if (level == kLeafLevel) {
            for (int y = 0; y < 16; ++y)
                for (int xx = 0; xx < 16; ++xx)
                    if ((nodes_[x].u.row[y] >> xx) & 1) {
                        l[0] |= std::uint64_t{1} << (y >> 3);
                        l[1] |= std::uint64_t{1} << (xx >> 3);
                        l[2] |= std::uint64_t{1} << ((xx + y) >> 3);
                        l[3] |= std::uint64_t{1} << (((xx - y) >> 3) & 63);
                    }
        } else {
            const std::uint64_t s = (std::uint64_t{1} << (level - 1)) >> 3;  // a child's side in lanes
            for (int q = 0; q < 4; ++q) {
                const Ref c = kid(x, q);
                if (c == empty_[level - 1]) continue;
                if (!(nodes_[c].vmask & 0x4000)) set_lanes(c);
                const std::uint64_t ox = (q & 1) * s, oy = (q >> 1) * s;
                const Node& n = nodes_[c];
                l[0] |= rotl(n.lanes[0], oy);
                l[1] |= rotl(n.lanes[1], ox);
                l[2] |= rotl(n.lanes[2], ox + oy);
                l[3] |= rotl(n.lanes[3], ox - oy);
            }
        }
        Node& n = nodes_[x];
        std::memcpy(n.lanes, l, sizeof l);
        n.vmask |= 0x4000;
    }

    static std::uint64_t dilate(std::uint64_t l, int r) {
        std::uint64_t d = l;
        for (int i = 1; i <= r; ++i) d |= rotl(l, static_cast<std::uint64_t>(i)) | rotl(l, static_cast<std::uint64_t>(64 - i));
        return d;
    }

    // Both nonempty: can what a and b become never meet within a step of a square of this size?
    bool independent(Ref a, Ref b) {
        const std::uint16_t va = vmask(a), vb = vmask(b);
        if (!va || !vb) return false;
        if (trust_streams) return true;
        for (int axis = 0; axis < 4; ++axis) {
            if (!(va & kParallel[axis]) || !(vb & kParallel[axis])) continue;
            if ((nodes_[a].lanes[axis] & dilate(nodes_[b].lanes[axis], kReach[axis])) == 0) return true;
        }
        return false;
    }
    // The second layer takes streams moving "forward" (east, south, south-east, north-east: the
    // odd entries of kVel), the first everything else, so that two streams moving against each
    // other along one axis sit in different layers and can be split (as lifelib splits them).
    bool forward(Ref x) {
        const std::uint16_t m = vmask(x);
        return (m & kForward) && !(m & ~kForward & kAllVel);
    }

    // Two layers: the centre of (a, b), level L, 2^k generations on.
    std::pair<Ref, Ref> pair_result(Ref a, Ref b, int level, int k) {
        const Ref e = empty_[level], e1 = empty_[level - 1];
        if (a == e && b == e) return {e1, e1};
        if (a == e || b == e) {
            const Ref x = a == e ? b : a;
            if (vmask(x)) {  // a stream alone (or still): one layer, the second if it moves forward
                const Ref r = result(x, level, k);
                return forward(x) ? std::pair{e1, r} : std::pair{r, e1};
            }
        } else if (independent(a, b)) {
            ++splits_;
            return {result(a, level, k), result(b, level, k)};
        }
        if (const PairEntry* p = find_pair(a, b, k)) return {p->ra, p->rb};
        poll();
        std::pair<Ref, Ref> out;
        if (level == kBaseLevel) {
            std::uint64_t ra[64], rb[64];
            rows_of(a, level, ra);
            rows_of(b, level, rb);
            for (int i = 0; i < 64; ++i) ra[i] |= rb[i];
            Ref m[4];
            for (int q = 0; q < 4; ++q) {
                const int x0 = (q & 1) * 32, y0 = (q >> 1) * 32;
                m[q] = node(5, leaf_at(ra, x0, y0), leaf_at(ra, x0 + 16, y0), leaf_at(ra, x0, y0 + 16),
                            leaf_at(ra, x0 + 16, y0 + 16));
            }
            const Ref merged = node(kBaseLevel, m[0], m[1], m[2], m[3]);
            const Ref r = result(merged, level, k);
            out = r != e1 && forward(r) ? std::pair{e1, r} : std::pair{r, e1};
        } else {
            Ref qa[9], qb[9], ca[4], cb[4], oa[4], ob[4];
            nine(a, qa);
            nine(b, qb);
            const bool full = k == level - 2;
            for (int i = 0; i < 9; ++i) {
                if (full) {
                    std::tie(qa[i], qb[i]) = pair_result(qa[i], qb[i], level - 1, k - 1);
                } else {
                    qa[i] = centre(qa[i], level - 1);
                    qb[i] = centre(qb[i], level - 1);
                }
            }
            four(level, qa, ca);
            four(level, qb, cb);
            for (int i = 0; i < 4; ++i) std::tie(oa[i], ob[i]) = pair_result(ca[i], cb[i], level - 1, full ? k - 1 : k);
            out = {join(level - 1, oa), join(level - 1, ob)};
        }
        put_pair(a, b, k, out.first, out.second);
        return out;
    }

    // ---- the root ----
    // Everything of x (level >= 6) within its centre square of half the side.
    bool in_centre(Ref x) const {
        for (int q = 0; q < 4; ++q) {
            const Node& c = nodes_[nodes_[x].u.kid[q]];
            for (int g = 0; g < 4; ++g)
                if (g != 3 - q && c.u.kid[g] != empty_[c.level - 1]) return false;
        }
        return true;
    }
    // Everything of x (level >= 7) within its centre square of a quarter of the side.
    bool in_inner(Ref x) const {
        if (!in_centre(x)) return false;
        for (int q = 0; q < 4; ++q) {
            const Node& g = nodes_[nodes_[nodes_[x].u.kid[q]].u.kid[3 - q]];
            for (int i = 0; i < 4; ++i)
                if (i != 3 - q && g.u.kid[i] != empty_[g.level - 1]) return false;
        }
        return true;
    }
    Ref expand(Ref x, int level) {
        const Ref e = empty_[level - 1];
        return node(level + 1, node(level, e, e, e, kid(x, 0)), node(level, e, e, kid(x, 1), e),
                    node(level, e, kid(x, 2), e, e), node(level, kid(x, 3), e, e, e));
    }
    void grow_to(int level) {
        while (level_ < level) {
            ra_ = expand(ra_, level_);
            rb_ = expand(rb_, level_);
            ++level_;
        }
    }
    void shrink() {
        while (level_ > kMinRoot && in_centre(ra_) && in_centre(rb_)) {
            ra_ = centre(ra_, level_);
            rb_ = centre(rb_, level_);
            --level_;
        }
    }

    // One step of 2^k generations; the store collected and the step retried (in halves) when full.
    void run_piece(int k) {
        for (int attempt = 0;; ++attempt) {
            const Ref a = ra_, b = rb_;
            const int level = level_;
            try {
                if (interrupt_ && interrupt_->load(std::memory_order_relaxed)) throw Interrupted{};
                advance(k);
                return;
            } catch (const Full&) {
                ra_ = a, rb_ = b, level_ = level;
                collect();
                // Once more on a clean store; then in a larger one; then in halves.
                if (attempt == 0 || raise_limit()) continue;
                if (k == 0) throw RuntimeError(over_budget());
                run_piece(k - 1);
                run_piece(k - 1);
                return;
            } catch (const Interrupted&) {
                ra_ = a, rb_ = b, level_ = level;
                throw;
            }
        }
    }
    void advance(int k) {
        // Room for the light cone: the cells in the centre quarter of the root, an eighth of
        // whose side is at least 2^k.
        while (level_ < std::max(k + 3, kMinRoot + 1) || !in_inner(ra_) || !in_inner(rb_)) {
            if (level_ == kMaxLevel)
                throw RuntimeError("cpu:streamlife: the pattern leaves the plane this engine runs (|x|, |y| up to about "
                                   "2^60) after generation " + std::to_string(generation_));
            grow_to(level_ + 1);
        }
        const auto [a, b] = pair_result(ra_, rb_, level_, k);
        ra_ = a;
        rb_ = b;
        --level_;
        generation_ += std::int64_t{1} << k;
        shrink();
        changed();
    }

    void changed() { exported_.reset(); }

    // ---- cells in and out ----
    // Adds cells to the first layer.
    void add_cells(const std::vector<Cell>& cells) {
        Box box{cells[0].x, cells[0].y, 1, 1};
        for (const Cell& c : cells) {
            if (c.x < -(std::int64_t{1} << 60) || c.x >= (std::int64_t{1} << 60) || c.y < -(std::int64_t{1} << 60) ||
                c.y >= (std::int64_t{1} << 60))
                throw InputError("cpu:streamlife: cell (" + std::to_string(c.x) + ", " + std::to_string(c.y) +
                                 ") is off the plane (|x|, |y| < 2^60)");
            const std::int64_t x0 = std::min(box.x, c.x), y0 = std::min(box.y, c.y);
            const std::int64_t x1 = std::max(box.right(), c.x + 1), y1 = std::max(box.bottom(), c.y + 1);
            box = Box{x0, y0, x1 - x0, y1 - y0};
        }
        grow_to(std::max(level_, root_level_for(box, kMinRoot)));
        const Cell o = origin(level_);
        // Leaves by their position in the root, then squares level by level.
        std::map<std::pair<std::uint64_t, std::uint64_t>, std::array<std::uint16_t, 16>> leaves;
        for (const Cell& c : cells) {
            const auto ux = static_cast<std::uint64_t>(c.x - o.x), uy = static_cast<std::uint64_t>(c.y - o.y);
            leaves[{uy >> 4, ux >> 4}][uy & 15] |= static_cast<std::uint16_t>(1u << (ux & 15));
        }
        std::map<std::pair<std::uint64_t, std::uint64_t>, Ref> level;
        for (const auto& [key, rows] : leaves) level[key] = leaf(rows.data());
        for (int l = kLeafLevel + 1; l <= level_; ++l) {
            std::map<std::pair<std::uint64_t, std::uint64_t>, std::array<Ref, 4>> up;
            for (const auto& [key, r] : level) {
                auto [it, fresh] = up.try_emplace({key.first >> 1, key.second >> 1});
                if (fresh) it->second.fill(empty_[l - 1]);
                it->second[(key.first & 1) * 2 + (key.second & 1)] = r;
            }
            level.clear();
            for (const auto& [key, k] : up) level[key] = node(l, k[0], k[1], k[2], k[3]);
        }
        std::unordered_map<std::uint64_t, Ref> memo;
        ra_ = unite(ra_, level.begin()->second, level_, memo);
        changed();
    }

    Ref unite(Ref a, Ref b, int level, std::unordered_map<std::uint64_t, Ref>& memo) {
        if (a == empty_[level]) return b;
        if (b == empty_[level] || a == b) return a;
        const std::uint64_t key = std::uint64_t{a} << 32 | b;
        if (const auto it = memo.find(key); it != memo.end()) return it->second;
        Ref r;
        if (level == kLeafLevel) {
            std::uint16_t rows[16];
            for (int i = 0; i < 16; ++i) rows[i] = nodes_[a].u.row[i] | nodes_[b].u.row[i];
            r = leaf(rows);
        } else {
            Ref k[4];
            for (int q = 0; q < 4; ++q) k[q] = unite(kid(a, q), kid(b, q), level - 1, memo);
            r = node(level, k[0], k[1], k[2], k[3]);
        }
        memo.emplace(key, r);
        return r;
    }

    Ref clear_box(Ref x, int level, std::int64_t ox, std::int64_t oy, const Box& box) {
        if (x == empty_[level]) return x;
        // __int128: a level-63 square's side and far edge do not fit 64 bits.
        const __int128 side = static_cast<__int128>(1) << level;
        const __int128 x1 = static_cast<__int128>(ox) + side, y1 = static_cast<__int128>(oy) + side;
        if (box.right() <= ox || box.bottom() <= oy || x1 <= box.x || y1 <= box.y) return x;
        if (level == kLeafLevel) {
            std::uint16_t rows[16];
            for (int y = 0; y < 16; ++y) {
                rows[y] = nodes_[x].u.row[y];
                if (oy + y < box.y || oy + y >= box.bottom()) continue;
                for (int xx = 0; xx < 16; ++xx)
                    if (ox + xx >= box.x && ox + xx < box.right()) rows[y] &= static_cast<std::uint16_t>(~(1u << xx));
            }
            return leaf(rows);
        }
        const auto h = static_cast<std::int64_t>(side / 2);
        Ref k[4];
        for (int q = 0; q < 4; ++q) k[q] = clear_box(kid(x, q), level - 1, ox + (q & 1) * h, oy + (q >> 1) * h, box);
        return node(level, k[0], k[1], k[2], k[3]);
    }

    Ref import(const Quadtree& t, Quadtree::Index i, int level, std::vector<Ref>& memo) {
        if (i == 0) return empty_[level];
        if (memo[i]) return memo[i];
        const Quadtree::Node& n = t.node(i);
        Ref r;
        if (level == kLeafLevel) {
            std::uint16_t rows[16] = {};
            for (int q = 0; q < 4; ++q) {
                const std::uint64_t bits = n.kids[q] ? t.node(n.kids[q]).bits : 0;
                for (int y = 0; y < 8; ++y)
                    rows[(q >> 1) * 8 + y] |= static_cast<std::uint16_t>(((bits >> (8 * y)) & 0xff) << ((q & 1) * 8));
            }
            r = leaf(rows);
        } else {
            Ref k[4];
            for (int q = 0; q < 4; ++q) k[q] = import(t, n.kids[q], level - 1, memo);
            r = node(level, k[0], k[1], k[2], k[3]);
        }
        memo[i] = r;
        return r;
    }

    // The union of the layers as a Quadtree with Golly's minimal root (built without new squares
    // in the store: const, and never full).
    Quadtree export_tree() const {
        Quadtree t;
        std::map<std::pair<Ref, Ref>, Quadtree::Index> ids;
        std::unordered_map<std::uint64_t, Quadtree::Index> leaf_ids;
        const auto quarter = [&](std::uint64_t bits) -> Quadtree::Index {
            if (!bits) return 0;
            auto [it, fresh] = leaf_ids.try_emplace(bits, 0);
            if (fresh) it->second = t.add_leaf(bits);
            return it->second;
        };
        // 8x8 quarter (qx, qy) of a leaf pair as Quadtree bits.
        const auto q8 = [&](Ref a, Ref b, int qx, int qy) {
            std::uint64_t bits = 0;
            for (int y = 0; y < 8; ++y) {
                const unsigned row = nodes_[a].u.row[qy * 8 + y] | nodes_[b].u.row[qy * 8 + y];
                bits |= static_cast<std::uint64_t>((row >> (qx * 8)) & 0xff) << (8 * y);
            }
            return bits;
        };
        const std::function<Quadtree::Index(Ref, Ref, int)> out = [&](Ref a, Ref b, int level) -> Quadtree::Index {
            if (a == empty_[level] && b == empty_[level]) return 0;
            if (const auto it = ids.find({a, b}); it != ids.end()) return it->second;
            std::array<Quadtree::Index, 4> k{};
            if (level == kLeafLevel) {
                for (int q = 0; q < 4; ++q) k[q] = quarter(q8(a, b, q & 1, q >> 1));
            } else {
                for (int q = 0; q < 4; ++q) k[q] = out(kid(a, q), kid(b, q), level - 1);
            }
            const Quadtree::Index id = t.add_node(level, k);
            ids.emplace(std::pair{a, b}, id);
            return id;
        };
        if (ra_ == empty_[level_] && rb_ == empty_[level_]) {
            t.set_root(0, 4);
            return t;
        }
        // The whole tree first (its box says the minimal root), then the centres down to that.
        t.set_root(out(ra_, rb_, level_), level_);
        const int want = std::max(4, root_level_for(t.bounding_box(), 4));
        if (want >= level_) return t;
        // Quarters (per layer) of the centre square of level `level`, descended to `want`.
        std::array<Ref, 4> qa{}, qb{};
        for (int q = 0; q < 4; ++q) {
            qa[q] = kid(kid(ra_, q), 3 - q);
            qb[q] = kid(kid(rb_, q), 3 - q);
        }
        int level = level_ - 1;
        while (level > want && level - 1 > kLeafLevel) {
            for (int q = 0; q < 4; ++q) {
                qa[q] = kid(qa[q], 3 - q);
                qb[q] = kid(qb[q], 3 - q);
            }
            --level;
        }
        ids.clear();
        leaf_ids.clear();
        t = Quadtree{};
        std::array<Quadtree::Index, 4> k{};
        if (level > want) {  // want 4, level 5: the inner 8x8 quarter of each leaf pair
            for (int q = 0; q < 4; ++q) k[q] = quarter(q8(qa[q], qb[q], 1 - (q & 1), 1 - (q >> 1)));
            level = 4;
        } else {
            for (int q = 0; q < 4; ++q) k[q] = out(qa[q], qb[q], level - 1);
        }
        t.set_root(t.add_node(level, k), level);
        return t;
    }

    Rule rule_;
    bitpacked::RuleMasks masks_;
    bool life_;
    hashlife::LeafKernel kernel_;
    const std::atomic<bool>* interrupt_;
    std::int64_t budget_ = 0, limit_ = 0;
    std::vector<Node> nodes_;
    std::vector<std::uint64_t> table_;
    std::vector<PairEntry> pairs_;
    std::size_t pair_count_ = 0;
    Ref empty_[kMaxLevel + 1] = {};
    Ref ra_ = 0, rb_ = 0;
    int level_ = kMinRoot;
    std::int64_t generation_ = 0;
    std::int64_t splits_ = 0, collections_ = 0;
    std::uint64_t polls_ = 0;
    mutable std::shared_ptr<const Quadtree> exported_;
};

}  // namespace

std::unique_ptr<Engine> make_streamlife(const BoardSpec& spec, const EngineOptions& options, const Tuning& tuning) {
    auto e = std::make_unique<StreamlifeEngine>(spec, options, tuning);
    e->trust_streams = tuning.trust_streams;
    return e;
}

namespace {

// stream_share() read from the tree itself, as the engine would see it once loaded: the squares
// are the engine's 64x64 squares (the tree's own level-6 squares; a tree of a lower level is one
// square at the origin of a level-6 root). Looking at the tree instead of loading it into a store
// of its own spares cpu:auto the store's pages and the squares' overlapping quarters that the
// engine's recursive test makes: it cost 45-75 ms of the large engineered patterns' runs.
class ShareReader {
public:
    ShareReader(const Quadtree& t, const Rule& rule)
        : t_(t), masks_(hashlife::rule_masks(rule)), life_(rule == Rule::life()),
          kernel_(hashlife::leaf_kernel(hashlife::best_leaf_simd())) {}

    StreamShare read() {
        StreamShare total;
        if (t_.root() == 0) return total;
        const bool small = t_.level() < kBaseLevel;  // one square: the cells of a level-6 root
        if (small) {
            std::uint64_t rows[64] = {};
            const Cell o = origin(kBaseLevel);
            for (const Cell& c : t_.cells()) rows[c.y - o.y] |= std::uint64_t{1} << (c.x - o.x);
            squares_.push_back(classify(rows));
            total = share(squares_[0]);
        } else {
            // Room at once: growing the arrays cost more page faults than the work they hold.
            std::size_t squares = 0, above = 0;
            for (Quadtree::Index i = 1; i <= t_.nodes().size(); ++i) {
                squares += t_.level_of(i) == kBaseLevel;
                above += t_.level_of(i) > kBaseLevel;
            }
            squares_.reserve(squares);
            totals_.reserve(above);
            memo_.assign(t_.nodes().size() + 1, 0);
            total = sum_all();
        }
        // The lanes only where cpu:auto looks at them: they list every square where it occurs.
        if (total.forward * 4 < total.population || total.backward * 4 < total.population) return total;
        const Cell o = origin(small ? kBaseLevel : t_.level());
        if (small) add_lanes(squares_[0], o.x, o.y);
        else list(t_.root(), t_.level(), o.x, o.y);
        // A stream's lanes are clear when no lane within reach on its axis holds a stream moving the
        // other way or anything that is not a stream (each list sorted and merged, then searched).
        for (auto& axis : taken_)
            for (auto& spans : axis) {
                std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
                std::size_t n = 0;
                for (const Span& sp : spans) {
                    if (n && sp.lo <= spans[n - 1].hi + 1) spans[n - 1].hi = std::max(spans[n - 1].hi, sp.hi);
                    else spans[n++] = sp;
                }
                spans.resize(n);
            }
        const auto meets = [](const std::vector<Span>& spans, std::int64_t lo, std::int64_t hi) {
            const auto it = std::lower_bound(spans.begin(), spans.end(), lo,
                                             [](const Span& sp, std::int64_t v) { return sp.hi < v; });
            return it != spans.end() && it->lo <= hi;
        };
        for (const StreamSpan& st : streams_) {
            const std::int64_t lo = st.lo - kReach[st.axis], hi = st.hi + kReach[st.axis];
            if (!meets(taken_[st.axis][st.way ^ 1], lo, hi) && !meets(taken_[st.axis][2], lo, hi)) total.apart += st.cells;
        }
        return total;
    }

    // A sample of n live cells, each as likely as any other (a fixed seed): whether at least
    // share * n of them lie in squares moving forward and as many in squares moving backward.
    bool sample_both_ways(double share_each, int n) {
        if (t_.root() == 0) return false;
        if (t_.level() < kBaseLevel) {
            const StreamShare s = read();
            return s.forward >= share_each * s.population && s.backward >= share_each * s.population;
        }
        // Each square's cells (float: only to draw by), children before parents in a tree.
        const std::size_t size = t_.nodes().size();
        std::vector<float> pop(size + 1, 0.0f);
        for (Quadtree::Index i = 1; i <= size; ++i) {
            const Quadtree::Node& nd = t_.node(i);
            pop[i] = t_.level_of(i) == Quadtree::leaf_level
                         ? static_cast<float>(__builtin_popcountll(nd.bits))
                         : pop[nd.kids[0]] + pop[nd.kids[1]] + pop[nd.kids[2]] + pop[nd.kids[3]];
        }
        memo_.assign(size + 1, 0);
        std::uint64_t seed = 0x9e3779b97f4a7c15ull;
        int forward = 0, backward = 0;
        for (int s = 0; s < n; ++s) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            float u = static_cast<float>(static_cast<double>(seed >> 11) * 0x1.0p-53) * pop[t_.root()];
            Quadtree::Index i = t_.root();
            for (int level = t_.level(); level > kBaseLevel && i; --level) {
                const Quadtree::Node& nd = t_.node(i);
                Quadtree::Index next = 0;
                for (const Quadtree::Index k : nd.kids) {
                    if (!k || pop[k] == 0) continue;
                    next = k;  // past the end (rounding): the last square with cells
                    if (u < pop[k]) break;
                    u -= pop[k];
                }
                i = next;
            }
            if (!i) continue;  // a tree without cells
            const StreamShare c = share(squares_[square(i)]);
            forward += c.forward > 0;
            backward += c.backward > 0;
        }
        return forward >= share_each * n && backward >= share_each * n;
    }

private:
    // A 64x64 square: its cells, velocities, way (0 forward, 1 backward, 2 still or not a stream,
    // -1 both ways: cells only in its border, which the test does not see), the axis a stream
    // moves along, and the least and greatest p of its cells per axis from its corner.
    struct Square {
        std::int32_t cells = 0;
        std::uint16_t vel = 0;
        std::int8_t way = -1, axis = 0;
        std::int16_t lo[4] = {}, hi[4] = {};  // -63 .. 126
    };
    // Lanes (p / 8, not wrapped) from lo to hi on one axis.
    struct Span {
        std::int64_t lo, hi;
    };
    struct StreamSpan {
        std::int64_t lo, hi, cells;
        int axis, way;
    };

    // The test of the engine's vmask() at once for the whole square: four generations on, the
    // square alone equals itself moved by v at every cell at least 4 inside it (the engine checks
    // its nine overlapping 32x32 quarters, whose insides cover exactly these cells).
    Square classify(const std::uint64_t* orig) const {
        std::uint64_t rows[64];
        std::memcpy(rows, orig, sizeof rows);
        kernel_(rows, 4, masks_, life_);
        Square sq;
        sq.vel = velocities(orig, rows, 4, 60);
        const std::uint16_t m = sq.vel;
        for (int y = 0; y < 64; ++y) sq.cells += __builtin_popcountll(orig[y]);
        if ((m & kForward) && (m & kBackward)) return sq;
        sq.way = static_cast<std::int8_t>(m && !(m & ~kForward & kAllVel) ? 0 : m && !(m & ~kBackward & kAllVel) ? 1 : 2);
        while (sq.way < 2 && !(m & kParallel[sq.axis] & ~kStill)) ++sq.axis;
        int lo[4] = {INT_MAX, INT_MAX, INT_MAX, INT_MAX}, hi[4] = {INT_MIN, INT_MIN, INT_MIN, INT_MIN};
        for (int y = 0; y < 64; ++y) {
            if (!orig[y]) continue;
            const int a = __builtin_ctzll(orig[y]), b = 63 - __builtin_clzll(orig[y]);
            const int plo[4] = {y, a, a + y, a - y}, phi[4] = {y, b, b + y, b - y};
            for (int i = 0; i < 4; ++i) lo[i] = std::min(lo[i], plo[i]), hi[i] = std::max(hi[i], phi[i]);
        }
        for (int i = 0; i < 4; ++i) sq.lo[i] = static_cast<std::int16_t>(lo[i]), sq.hi[i] = static_cast<std::int16_t>(hi[i]);
        return sq;
    }
    static StreamShare share(const Square& sq) {
        StreamShare s;
        s.population = sq.cells;
        const std::uint16_t m = sq.vel;
        if (m && !(m & ~kForward & kAllVel)) s.forward = sq.cells;
        else if (m && !(m & ~kBackward & kAllVel)) s.backward = sq.cells;
        return s;
    }

    // The square of level-6 node i (by index in squares_), classified once.
    std::uint32_t square(Quadtree::Index i) {
        if (memo_[i]) return memo_[i] - 1;
        std::uint64_t rows[64] = {};
        const Quadtree::Node& n = t_.node(i);
        for (int q = 0; q < 4; ++q) {
            if (!n.kids[q]) continue;
            const Quadtree::Node& k = t_.node(n.kids[q]);
            for (int r = 0; r < 4; ++r) {
                if (!k.kids[r]) continue;
                const Quadtree::Node& k2 = t_.node(k.kids[r]);
                for (int l = 0; l < 4; ++l) {
                    if (!k2.kids[l]) continue;
                    const std::uint64_t bits = t_.node(k2.kids[l]).bits;
                    const int x0 = (q & 1) * 32 + (r & 1) * 16 + (l & 1) * 8;
                    const int y0 = (q >> 1) * 32 + (r >> 1) * 16 + (l >> 1) * 8;
                    for (int y = 0; y < 8; ++y) rows[y0 + y] |= ((bits >> (8 * y)) & 0xff) << x0;
                }
            }
        }
        squares_.push_back(classify(rows));
        memo_[i] = static_cast<std::uint32_t>(squares_.size());
        return static_cast<std::uint32_t>(squares_.size() - 1);
    }
    // The share of the squares under each square of level 6 and up, each counted as often as it
    // occurs: one pass in index order (a tree's children come before their parents). A walk from
    // the root took 10.7 ms of hbk_gun.mc.gz's 92,000 squares, in scattered reads of the memo.
    StreamShare sum_all() {
        const auto of = [&](Quadtree::Index k) -> StreamShare {
            if (!k) return {};
            return t_.level_of(k) == kBaseLevel ? share(squares_[memo_[k] - 1]) : totals_[memo_[k] - 1];
        };
        for (Quadtree::Index i = 1; i <= t_.nodes().size(); ++i) {
            const int level = t_.level_of(i);
            if (level == kBaseLevel) {
                square(i);
            } else if (level > kBaseLevel) {
                StreamShare s;
                for (const Quadtree::Index k : t_.node(i).kids) {
                    const StreamShare c = of(k);
                    s.forward += c.forward;
                    s.backward += c.backward;
                    s.population += c.population;
                }
                totals_.push_back(s);
                memo_[i] = static_cast<std::uint32_t>(totals_.size());
            }
        }
        return of(t_.root());
    }
    // The lanes of a square at (x0, y0): a stream's on the axis it moves along, anything else's on
    // all four axes.
    void add_lanes(const Square& sq, std::int64_t x0, std::int64_t y0) {
        if (sq.way < 0) return;
        const std::int64_t base[4] = {y0, x0, x0 + y0, x0 - y0};
        for (int axis = sq.way < 2 ? sq.axis : 0; axis < 4; ++axis) {
            const Span sp{(base[axis] + sq.lo[axis]) >> 3, (base[axis] + sq.hi[axis]) >> 3};
            taken_[axis][sq.way].push_back(sp);
            if (sq.way < 2) {
                streams_.push_back({sp.lo, sp.hi, sq.cells, axis, sq.way});
                break;
            }
        }
    }
    void list(Quadtree::Index i, int level, std::int64_t x0, std::int64_t y0) {
        if (i == 0) return;
        if (level == kBaseLevel) return add_lanes(squares_[square(i)], x0, y0);
        const std::int64_t h = std::int64_t{1} << (level - 1);
        const Quadtree::Node& n = t_.node(i);
        for (int q = 0; q < 4; ++q) list(n.kids[q], level - 1, x0 + (q & 1) * h, y0 + (q >> 1) * h);
    }

    const Quadtree& t_;
    bitpacked::RuleMasks masks_;
    bool life_;
    hashlife::LeafKernel kernel_;
    std::vector<Square> squares_;
    // By tree index: 1 + index in squares_ (level 6) or in totals_ (above); 0 not yet.
    std::vector<std::uint32_t> memo_;
    std::vector<StreamShare> totals_;
    std::vector<Span> taken_[4][3];  // by axis and way
    std::vector<StreamSpan> streams_;
};

}  // namespace

StreamShare stream_share(const Quadtree& tree, const Rule& rule) { return ShareReader(tree, rule).read(); }

bool sampled_both_ways(const Quadtree& tree, const Rule& rule, double share, int cells) {
    return ShareReader(tree, rule).sample_both_ways(share, cells);
}

}  // namespace tilelife::streamlife

namespace tilelife {

void register_streamlife_engine() {
    EngineInfo info;
    info.name = "cpu:streamlife";
    info.description =
        "StreamLife: HashLife over two layers, the moving streams apart from the rest, stepped apart where they "
        "provably never meet (unbounded plane)";
    info.native_unbounded = true;
    info.bounded = false;
    info.host_bytes = [](const BoardSpec&, const EngineOptions&) -> std::int64_t { return std::int64_t{1} << 20; };
    register_engine(info, [](const BoardSpec& spec, const EngineOptions& options) -> std::unique_ptr<Engine> {
        return streamlife::make_streamlife(spec, options);
    });
}

}  // namespace tilelife
