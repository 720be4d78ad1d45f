// tilelife::Quadtree: counting, bounding and listing the cells of a tree without expanding it, and
// building a shared tree from a cell list.
#include "tilelife/quadtree.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <unordered_map>

#include "core/cell_squares.hpp"
#include "core/huge_pages.hpp"
#include "tilelife/error.hpp"

namespace tilelife {

std::string to_string_count(CellCount n) {
    if (n == 0) return "0";
    std::string s;
    while (n > 0) {
        s += static_cast<char>('0' + static_cast<int>(n % 10));
        n /= 10;
    }
    std::reverse(s.begin(), s.end());
    return s;
}

Quadtree::Index Quadtree::add_leaf(std::uint64_t bits) {
    if (nodes_.size() >= UINT32_MAX - 1) throw std::length_error("quadtree: too many nodes");
    Node n;
    n.bits = bits;
    n.level = leaf_level;
    nodes_.push_back(n);
    levels_.push_back(leaf_level);
    canonical_ = shared_ = false;
    return static_cast<Index>(nodes_.size());
}

Quadtree::Index Quadtree::add_node(int level, const std::array<Index, 4>& kids) {
    if (level <= leaf_level || level > max_level) throw std::invalid_argument("quadtree: bad node level");
    if (nodes_.size() >= UINT32_MAX - 1) throw std::length_error("quadtree: too many nodes");
    for (Index k : kids)
        if (k != 0 && (k > nodes_.size() || levels_[k - 1] != level - 1))
            throw std::invalid_argument("quadtree: a child must be an earlier node of the level below");
    Node n;
    n.kids = kids;
    n.level = level;
    nodes_.push_back(n);
    levels_.push_back(static_cast<std::uint8_t>(level));
    canonical_ = shared_ = false;
    return static_cast<Index>(nodes_.size());
}

void Quadtree::reserve(std::size_t n, bool bound_only) {
    nodes_.reserve(n);
    levels_.reserve(n);
    // A 4 KiB page fault costs ~13 us on this project's VM. Mapping a loose bound's pages at once
    // would make them resident unwritten: the export of a run whose store is full reserved its
    // 2.5 million squares for 90,000 and mapped 5 MiB it never wrote (centipede, 2026-12-07).
    advise_huge_pages(nodes_, bound_only ? Populate::none : Populate::ends);
    advise_huge_pages(levels_, bound_only ? Populate::none : Populate::ends);
}

void Quadtree::set_root(Index root, int level) {
    if (level < leaf_level || level > max_level || root > nodes_.size() || (root != 0 && node(root).level != level))
        throw std::invalid_argument("quadtree: bad root");
    root_ = root;
    level_ = level;
    canonical_ = shared_ = false;
}

Cell Quadtree::origin() const {
    const std::int64_t half = std::int64_t{1} << (level_ - 1);
    return Cell{-half, 1 - half};
}

CellCount Quadtree::population() const {
    if (root_ == 0) return 0;
    // Children come first: one pass in index order fills every node's count. The counts are in huge
    // pages (ZeroedBytes): 12 MB for Golly's caterpillar.mc.gz, whose 4 KiB pages' faults cost more
    // than the pass.
    const ZeroedBytes counts((std::size_t{root_} + 1) * sizeof(CellCount));
    if (!counts) throw std::bad_alloc();
    CellCount* const pop = static_cast<CellCount*>(counts.data());
    for (Index i = 1; i <= root_; ++i) {
        const Node& n = nodes_[i - 1];
        if (n.level == leaf_level) {
            pop[i] = static_cast<CellCount>(__builtin_popcountll(n.bits));
        } else {
            CellCount s = 0;
            for (Index k : n.kids) s += pop[k];
            pop[i] = s;
        }
    }
    return pop[root_];
}

namespace {

// Which nodes hold at least one live cell (a file may spell out empty subtrees).
std::vector<bool> nonempty_nodes(const std::vector<Quadtree::Node>& nodes, Quadtree::Index last) {
    std::vector<bool> live(last + 1, false);
    for (Quadtree::Index i = 1; i <= last; ++i) {
        const Quadtree::Node& n = nodes[i - 1];
        if (n.level == Quadtree::leaf_level) {
            live[i] = n.bits != 0;
        } else {
            bool any = false;
            for (Quadtree::Index k : n.kids) any = any || live[k];
            live[i] = any;
        }
    }
    return live;
}

constexpr std::uint64_t kNoCells = UINT64_MAX;

// The live cells' extreme offset along one side of square i, from its corner (side 0: the smallest
// x, 1: the largest x, 2: the smallest y, 3: the largest y); kNoCells when it has none. The two
// quarters nearer that side hold the extreme whenever either has cells, so only the squares along
// the side are visited (before 2026-11-28 every square of the tree, with 32 bytes of fresh memory
// each: 0.05 s of reading Golly's caterpillar.mc.gz, much of it page faults).
std::uint64_t edge_of(const Quadtree& t, Quadtree::Index i, int side,
                      std::unordered_map<Quadtree::Index, std::uint64_t>& memo) {
    if (i == 0) return kNoCells;
    const Quadtree::Node& n = t.node(i);
    const bool y_axis = side >= 2, far = (side & 1) != 0;
    auto better = [far](std::uint64_t v, std::uint64_t e) { return e == kNoCells || (far ? v > e : v < e); };
    std::uint64_t e = kNoCells;
    if (n.level == Quadtree::leaf_level) {
        for (int r = 0; r < 8; ++r) {
            const auto row = static_cast<std::uint64_t>((n.bits >> (8 * r)) & 0xffu);
            if (!row) continue;
            const auto v = static_cast<std::uint64_t>(y_axis ? r : far ? 63 - __builtin_clzll(row) : __builtin_ctzll(row));
            if (better(v, e)) e = v;
        }
        return e;
    }
    if (const auto it = memo.find(i); it != memo.end()) return it->second;
    const std::uint64_t half = std::uint64_t{1} << (n.level - 1);
    for (int pass = 0; pass < 2 && e == kNoCells; ++pass) {
        const int bit = pass == 0 ? far : !far;
        for (int q = 0; q < 4; ++q) {
            if ((y_axis ? q >> 1 : q & 1) != bit) continue;
            const std::uint64_t k = edge_of(t, n.kids[static_cast<std::size_t>(q)], side, memo);
            if (k == kNoCells) continue;
            const std::uint64_t v = k + (bit ? half : 0);
            if (better(v, e)) e = v;
        }
    }
    memo.emplace(i, e);
    return e;
}

}  // namespace

Box Quadtree::bounding_box() const {
    if (root_ == 0) return Box{};
    std::uint64_t e[4];
    for (int side = 0; side < 4; ++side) {
        std::unordered_map<Index, std::uint64_t> memo;
        e[side] = edge_of(*this, root_, side, memo);
        if (e[side] == kNoCells) return Box{};
    }
    if (e[1] - e[0] >= static_cast<std::uint64_t>(INT64_MAX) || e[3] - e[2] >= static_cast<std::uint64_t>(INT64_MAX))
        throw RuntimeError("the pattern's bounding box is wider than 2^63 - 1 cells");
    const Cell o = origin();
    // Offsets < 2^63 from an origin >= -2^62: the sums stay within int64.
    return Box{static_cast<std::int64_t>(static_cast<std::uint64_t>(o.x) + e[0]),
               static_cast<std::int64_t>(static_cast<std::uint64_t>(o.y) + e[2]),
               static_cast<std::int64_t>(e[1] - e[0] + 1), static_cast<std::int64_t>(e[3] - e[2] + 1)};
}

void Quadtree::for_each_row(const std::function<void(std::int64_t, const std::vector<RowPiece>&)>& row,
                            const Box* window, std::size_t max_pieces) const {
    if (root_ == 0 || (window && window->empty())) return;
    const std::vector<bool> live = nonempty_nodes(nodes_, root_);
    if (!live[root_]) return;
    // The nodes of one level crossing the current band of rows, left to right; one list per level,
    // reused: the band of a level is rebuilt from the level above for its top and bottom halves.
    struct Item {
        Index node;
        std::int64_t x;
    };
    std::vector<std::vector<Item>> strip(static_cast<std::size_t>(level_) + 1);
    std::vector<RowPiece> pieces;
    using Wide = __int128;
    const Wide wx0 = window ? window->x : 0, wx1 = window ? Wide(window->x) + window->width : 0;
    const Wide wy0 = window ? window->y : 0, wy1 = window ? Wide(window->y) + window->height : 0;
    auto overlaps = [&](std::int64_t x, std::int64_t y, int level) {
        if (!window) return true;
        const Wide side = Wide(1) << level;
        return Wide(x) < wx1 && Wide(x) + side > wx0 && Wide(y) < wy1 && Wide(y) + side > wy0;
    };
    const Cell o = origin();
    if (!overlaps(o.x, o.y, level_)) return;
    strip[static_cast<std::size_t>(level_)].push_back(Item{root_, o.x});

    const std::function<void(int, std::int64_t)> band = [&](int level, std::int64_t y) {
        const std::vector<Item>& items = strip[static_cast<std::size_t>(level)];
        if (level == leaf_level) {
            for (int r = 0; r < 8; ++r) {
                const std::int64_t yy = y + r;
                if (window && (yy < wy0 || yy >= wy1)) continue;
                pieces.clear();
                for (const Item& it : items) {
                    unsigned bits = static_cast<unsigned>((node(it.node).bits >> (8 * r)) & 0xffu);
                    if (window) {
                        for (int i = 0; i < 8; ++i)
                            if (Wide(it.x) + i < wx0 || Wide(it.x) + i >= wx1) bits &= ~(1u << i);
                    }
                    if (bits) pieces.push_back(RowPiece{it.x, static_cast<std::uint8_t>(bits)});
                }
                if (!pieces.empty()) row(yy, pieces);
            }
            return;
        }
        const std::int64_t half = std::int64_t{1} << (level - 1);
        std::vector<Item>& next = strip[static_cast<std::size_t>(level) - 1];
        for (int h = 0; h < 2; ++h) {
            next.clear();
            const std::int64_t yh = y + h * half;
            for (const Item& it : items) {
                const Node& n = node(it.node);
                for (int q = 2 * h; q < 2 * h + 2; ++q) {
                    const Index k = n.kids[static_cast<std::size_t>(q)];
                    const std::int64_t xk = it.x + ((q & 1) ? half : 0);
                    if (k != 0 && live[k] && overlaps(xk, yh, level - 1)) next.push_back(Item{k, xk});
                }
            }
            if (next.size() > max_pieces)
                throw InputError("a band of rows crosses more than " + std::to_string(max_pieces) + " nonempty squares");
            if (!next.empty()) band(level - 1, yh);
        }
    };
    band(level_, o.y);
}

std::vector<Cell> Quadtree::cells(const Box* window) const {
    std::vector<Cell> out;
    for_each_row(
        [&](std::int64_t y, const std::vector<RowPiece>& pieces) {
            for (const RowPiece& p : pieces)
                for (unsigned b = p.bits; b != 0; b &= b - 1) out.push_back(Cell{p.x + __builtin_ctz(b), y});
        },
        window);
    return out;
}

int root_level_for(const Box& box, int min_level) {
    if (box.empty()) return std::max(min_level, Quadtree::leaf_level);
    using Wide = __int128;
    for (int level = std::max(min_level, Quadtree::leaf_level); level <= Quadtree::max_level; ++level) {
        const Wide half = Wide(1) << (level - 1);
        if (Wide(box.x) >= -half && Wide(box.x) + box.width <= half && Wide(box.y) >= 1 - half &&
            Wide(box.y) + box.height <= 1 + half)
            return level;
    }
    return 0;
}

namespace {

// The squares of a tree being built, each distinct one once: an open-addressed table of indices
// into the tree (0: empty), rebuilt at twice the size when half full. Two hash maps (a node on the
// heap per square) made converting Caterloopillar_5c21.rle 1.14x slower and 1.2 MB larger.
class SquareTable {
public:
    explicit SquareTable(Quadtree& t) : t_(&t), slots_(1024, 0) {}
    Quadtree::Index leaf(std::uint64_t bits) {
        return find_or_add(hash(Quadtree::leaf_level, {}, bits), [&](const Quadtree::Node& n) {
            return n.level == Quadtree::leaf_level && n.bits == bits;
        }, [&] { return t_->add_leaf(bits); });
    }
    Quadtree::Index node(int level, const std::array<Quadtree::Index, 4>& kids) {
        return find_or_add(hash(level, kids, 0), [&](const Quadtree::Node& n) {
            return n.level == level && n.kids == kids;
        }, [&] { return t_->add_node(level, kids); });
    }

private:
    static std::uint64_t hash(int level, const std::array<Quadtree::Index, 4>& kids, std::uint64_t bits) {
        std::uint64_t h = (static_cast<std::uint64_t>(level) * 0x9E3779B97F4A7C15ull) ^ bits;
        for (const Quadtree::Index i : kids) h = (h ^ i) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
        h *= 0xbf58476d1ce4e5b9ull;
        return h ^ (h >> 32);
    }
    static std::uint64_t hash_of(const Quadtree::Node& n) {
        return n.level == Quadtree::leaf_level ? hash(n.level, {}, n.bits) : hash(n.level, n.kids, 0);
    }
    template <class Same, class Add>
    Quadtree::Index find_or_add(std::uint64_t h, Same&& same, Add&& add) {
        const std::size_t mask = slots_.size() - 1;
        std::size_t s = h & mask;
        for (; slots_[s]; s = (s + 1) & mask)
            if (same(t_->node(slots_[s]))) return slots_[s];
        const Quadtree::Index i = add();
        slots_[s] = i;
        if (++used_ * 2 > slots_.size()) grow();
        return i;
    }
    void grow() {
        std::vector<Quadtree::Index> bigger(slots_.size() * 2, 0);
        const std::size_t mask = bigger.size() - 1;
        for (const Quadtree::Index i : slots_) {
            if (!i) continue;
            std::size_t s = hash_of(t_->node(i)) & mask;
            while (bigger[s]) s = (s + 1) & mask;
            bigger[s] = i;
        }
        slots_.swap(bigger);
    }

    Quadtree* t_;
    std::vector<Quadtree::Index> slots_;
    std::size_t used_ = 0;
};

}  // namespace

// Squares are counted on the grid of a level-63 root, which holds every cell a builder takes, so
// a square is placed before the pattern's extent (and so its root) is known. Below the root's level
// L, that grid's squares are the root's own (its corner lies on the grid of side 2^(L-1)); its four
// quadrants are the level-63 grid's squares either side of the centre lines. Each level keeps only
// the rows of the parent row not yet complete: memory for a few rows of squares, not the cells.
struct QuadtreeBuilder::State {
    static constexpr std::uint64_t kHalf = std::uint64_t{1} << 62;  // the level-63 root's half side
    using Square = cell_squares::Square;
    struct Piece {
        std::uint64_t kx, bits;
    };
    // Room for 2^16 squares, its pages mapped only as written: growing by doubling copied the tree
    // through fresh pages (converting utm.rle, 35,000 squares: 893 page faults, 647 with this, at
    // ~13 us each on dev-epyc; 1 MB less resident).
    State() { tree.reserve(std::size_t{1} << 16, /*bound_only=*/true); }
    Quadtree tree;
    SquareTable table{tree};
    std::vector<Piece> band;  // the current band of 8 rows, by runs
    // A band of at most this many squares across is gathered in a row of words (zero between bands).
    static constexpr std::uint64_t kDenseSpan = std::uint64_t{1} << 16;
    std::vector<std::uint64_t> dense;
    std::uint64_t band_ky = 0;
    // Squares of each level waiting for their parent row to be complete, in order of (ky, kx).
    std::array<std::vector<Square>, Quadtree::max_level + 1> waiting;
    // Each level's parents, reused; made[0] holds a band's leaves (no square has level 0).
    std::array<std::vector<Square>, Quadtree::max_level + 1> made;
    bool any = false;
    std::int64_t x0 = INT64_MAX, x1 = INT64_MIN, y0 = 0, y1 = 0;  // the cells' box
    // The smallest root level holding the cells so far: levels up to root_level - 2 make parents
    // as their rows complete; level root_level - 1 holds the root's quadrants (and nothing above it).
    int root_level = 4;

    bool holds(int l) const {
        const __int128 half = __int128{1} << (l - 1);
        return x0 >= -half && x1 < half && y0 >= 1 - half && y1 <= half;
    }

    // Parents of the squares of `level` whose parent rows end before row `before` of level + 1.
    void make_parents(int level, std::uint64_t before) {
        std::vector<Square>& w = waiting[static_cast<std::size_t>(level)];
        std::size_t n = 0;
        while (n < w.size() && (w[n].ky >> 1) < before) ++n;
        if (n == 0) return;
        std::vector<Square>& up = made[static_cast<std::size_t>(level)];
        cell_squares::parents(w.data(), n, 0, up, [&](const std::uint32_t* k) {
            return table.node(level + 1, {k[0], k[1], k[2], k[3]});
        });
        w.erase(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(n));
        arrive(level + 1, up);
    }
    // Squares of `level` (in order, after every square already waiting there).
    void arrive(int level, const std::vector<Square>& squares) {
        if (squares.empty()) return;
        std::vector<Square>& w = waiting[static_cast<std::size_t>(level)];
        w.insert(w.end(), squares.begin(), squares.end());
        if (level <= root_level - 2) make_parents(level, w.back().ky >> 1);
    }

    void flush() {
        if (band.empty()) return;
        std::vector<Square>& leaves = made[0];
        leaves.clear();
        std::uint64_t lo = UINT64_MAX, hi = 0;
        bool sorted = true;
        for (std::size_t i = 0; i < band.size(); ++i) {
            lo = std::min(lo, band[i].kx);
            hi = std::max(hi, band[i].kx);
            sorted &= i == 0 || band[i - 1].kx <= band[i].kx;
        }
        const std::uint64_t span = hi - lo + 1;
        if (!sorted && span <= kDenseSpan && span <= 16 * band.size() + 1024) {
            // Eight rows' runs, each row left to right: OR them into a row of words and read it
            // across, instead of sorting them (a sort was a sixth of converting utm.rle).
            if (dense.size() < span) dense.resize(span, 0);
            for (const Piece& p : band) dense[p.kx - lo] |= p.bits;
            for (std::uint64_t i = 0; i < span; ++i)
                if (dense[i]) {
                    leaves.push_back({lo + i, band_ky, table.leaf(dense[i])});
                    dense[i] = 0;
                }
        } else {
            const auto by_x = [](const Piece& a, const Piece& b) { return a.kx < b.kx; };
            // Far-apart pieces (a sparse band) are sorted; one row's runs already are.
            if (!sorted) std::sort(band.begin(), band.end(), by_x);
            for (std::size_t i = 0; i < band.size();) {
                std::uint64_t bits = 0;
                std::size_t j = i;
                for (; j < band.size() && band[j].kx == band[i].kx; ++j) bits |= band[j].bits;
                leaves.push_back({band[i].kx, band_ky, table.leaf(bits)});
                i = j;
            }
        }
        band.clear();
        arrive(Quadtree::leaf_level, leaves);
    }
};

QuadtreeBuilder::QuadtreeBuilder() : s_(std::make_unique<State>()) {}
QuadtreeBuilder::~QuadtreeBuilder() = default;
QuadtreeBuilder::QuadtreeBuilder(QuadtreeBuilder&&) noexcept = default;
QuadtreeBuilder& QuadtreeBuilder::operator=(QuadtreeBuilder&&) noexcept = default;

void QuadtreeBuilder::add(std::int64_t x, std::int64_t y, std::int64_t length) {
    State& s = *s_;
    if (length < 0) throw std::invalid_argument("quadtree builder: negative run length");
    if (length == 0) return;
    // Unsigned offsets from the level-63 root's top-left (-2^62, 1 - 2^62): both in [0, 2^63).
    const std::uint64_t ux = static_cast<std::uint64_t>(x) + State::kHalf;
    const std::uint64_t uy = static_cast<std::uint64_t>(y) + State::kHalf - 1;
    if (ux >= 2 * State::kHalf || static_cast<std::uint64_t>(length) > 2 * State::kHalf - ux || uy >= 2 * State::kHalf)
        throw std::invalid_argument("quadtree builder: a run beyond the level-63 root");
    const std::uint64_t ky = uy >> 3;
    if (s.any && y < s.y1) throw std::invalid_argument("quadtree builder: rows out of order");
    if (s.any && ky != s.band_ky) s.flush();
    if (!s.any) s.y0 = y;
    s.any = true;
    s.band_ky = ky;
    s.y1 = y;
    s.x0 = std::min(s.x0, x);
    s.x1 = std::max(s.x1, x + (length - 1));
    // A larger root: the level that held its quadrants makes parents from its next squares on.
    while (!s.holds(s.root_level)) ++s.root_level;
    const unsigned row = static_cast<unsigned>(uy & 7) * 8;
    std::uint64_t at = ux;
    for (std::uint64_t left = static_cast<std::uint64_t>(length); left > 0;) {
        const std::uint64_t kx = at >> 3;
        const unsigned off = static_cast<unsigned>(at & 7);
        const std::uint64_t n = std::min<std::uint64_t>(8 - off, left);
        const std::uint64_t bits = ((std::uint64_t{1} << n) - 1) << (row + off);
        if (!s.band.empty() && s.band.back().kx == kx) s.band.back().bits |= bits;
        else s.band.push_back({kx, bits});
        at += n;
        left -= n;
    }
}

Quadtree QuadtreeBuilder::finish() {
    State& s = *s_;
    s.flush();
    const int level = s.root_level;
    Quadtree::Index root = 0;
    if (s.any) {
        for (int l = Quadtree::leaf_level; l <= level - 2; ++l) s.make_parents(l, UINT64_MAX);
        // The root's quadrants: the level-(L-1) squares at c - 1 and c, c = 2^(63 - L), each way.
        const std::uint64_t c = std::uint64_t{1} << (63 - level);
        std::array<Quadtree::Index, 4> kids{};
        for (const State::Square& q : s.waiting[static_cast<std::size_t>(level - 1)])
            kids[static_cast<std::size_t>(((q.ky - (c - 1)) << 1) | (q.kx - (c - 1)))] = q.ref;
        root = s.table.node(level, kids);
    }
    Quadtree t = std::move(s.tree);
    s_ = std::make_unique<State>();
    t.set_root(root, level);
    t.set_shared();  // SquareTable adds each distinct square once, and only squares with cells
    return t;
}

Quadtree Quadtree::from_cells(const std::vector<Cell>& cells) {
    const Box box = tilelife::bounding_box(cells);  // geometry.hpp's
    if (!cells.empty() && root_level_for(box, 4) == 0)
        throw InputError("cells from (" + std::to_string(box.x) + ", " + std::to_string(box.y) + ") to (" +
                         std::to_string(box.x + (box.width - 1)) + ", " + std::to_string(box.y + (box.height - 1)) +
                         ") do not fit in a quadtree of 64-bit coordinates");
    // Cells in row order (every reader's) go in as they are; others are sorted first.
    std::vector<Cell> sorted;
    const std::vector<Cell>* in = &cells;
    if (!std::is_sorted(cells.begin(), cells.end(), row_order)) {
        sorted = cells;
        std::sort(sorted.begin(), sorted.end(), row_order);
        in = &sorted;
    }
    QuadtreeBuilder b;
    for (std::size_t i = 0; i < in->size();) {
        // A run of neighbours in one row (duplicates included) goes in as one.
        const Cell first = (*in)[i];
        std::int64_t end = first.x + 1;
        for (++i; i < in->size() && (*in)[i].y == first.y && (*in)[i].x <= end; ++i) end = std::max(end, (*in)[i].x + 1);
        b.add(first.x, first.y, end - first.x);
    }
    return b.finish();
}

}  // namespace tilelife
