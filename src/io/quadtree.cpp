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
    canonical_ = false;
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
    canonical_ = false;
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
    canonical_ = false;
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
    explicit SquareTable(Quadtree& t) : t_(t), slots_(1024, 0) {}
    Quadtree::Index leaf(std::uint64_t bits) {
        return find_or_add(hash(Quadtree::leaf_level, {}, bits), [&](const Quadtree::Node& n) {
            return n.level == Quadtree::leaf_level && n.bits == bits;
        }, [&] { return t_.add_leaf(bits); });
    }
    Quadtree::Index node(int level, const std::array<Quadtree::Index, 4>& kids) {
        return find_or_add(hash(level, kids, 0), [&](const Quadtree::Node& n) {
            return n.level == level && n.kids == kids;
        }, [&] { return t_.add_node(level, kids); });
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
            if (same(t_.node(slots_[s]))) return slots_[s];
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
            std::size_t s = hash_of(t_.node(i)) & mask;
            while (bigger[s]) s = (s + 1) & mask;
            bigger[s] = i;
        }
        slots_.swap(bigger);
    }

    Quadtree& t_;
    std::vector<Quadtree::Index> slots_;
    std::size_t used_ = 0;
};

}  // namespace

Quadtree Quadtree::from_cells(const std::vector<Cell>& cells) {
    Quadtree t;
    if (cells.empty()) {
        t.set_root(0, 4);
        return t;
    }
    const Box box = tilelife::bounding_box(cells);  // geometry.hpp's
    const int level = root_level_for(box, 4);
    if (level == 0)
        throw InputError("cells from (" + std::to_string(box.x) + ", " + std::to_string(box.y) + ") to (" +
                         std::to_string(box.x + (box.width - 1)) + ", " + std::to_string(box.y + (box.height - 1)) +
                         ") do not fit in a quadtree of 64-bit coordinates");
    t.level_ = level;
    // Bottom-up (core/cell_squares.hpp), each distinct leaf and node added once.
    std::vector<cell_squares::Square> squares, up;
    SquareTable table(t);
    cell_squares::for_each_leaf(cells, t.origin(), leaf_level,
                                [&](std::uint64_t kx, std::uint64_t ky, const cell_squares::CellBit* first,
                                    const cell_squares::CellBit* last) {
                                    std::uint64_t word = 0;
                                    for (; first != last; ++first) word |= std::uint64_t{1} << (first->y * 8 + first->x);
                                    squares.push_back({kx, ky, table.leaf(word)});
                                });
    for (int lv = leaf_level + 1; lv <= level; ++lv) {
        cell_squares::parents(squares, 0, up,
                              [&](const std::uint32_t* k) { return table.node(lv, {k[0], k[1], k[2], k[3]}); });
        squares.swap(up);
    }
    t.set_root(squares.front().ref, level);
    return t;
}

}  // namespace tilelife
