// Live cells as a quadtree (Golly's macrocell structure): how huge patterns travel between the
// macrocell reader and writer, Pattern, and engines that store trees (cpu:hashlife) without ever
// being listed cell by cell. A 40 KB macrocell file can describe 10^8 cells or 2^120 of them.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tilelife/geometry.hpp"

namespace tilelife {

class Engine;

// Counts of cells in a tree: a level-63 square holds up to 2^126 of them.
using CellCount = unsigned __int128;
std::string to_string_count(CellCount n);  // decimal

// Squares of side 2^level. Leaves are level 3: 8x8 cells in one 64-bit word, bit (row * 8 + col),
// row 0 at the top, column 0 at the left. A node of level >= 4 has four children of level - 1, in
// the order nw, ne, sw, se. Index 0 is the empty square of every level; index i >= 1 is
// nodes()[i - 1], and children always come before their parents, so a tree can never contain
// itself. Identical subtrees may share one index (files and engines share them heavily) but need
// not: nothing here depends on sharing.
//
// Placement is Golly's: the root square of level L has its top-left cell at
// (-2^(L-1), 1 - 2^(L-1)), i.e. the root's south-east child starts at (0, 1). A root of level L
// therefore nests in the centre of any root of level L + 1.
class Quadtree {
public:
    using Index = std::uint32_t;
    static constexpr int leaf_level = 3;
    static constexpr int max_level = 63;

    struct Node {
        std::uint64_t bits = 0;       // leaf: its 64 cells
        std::array<Index, 4> kids{};  // level >= 4: nw, ne, sw, se (0: empty)
        int level = leaf_level;
    };

    // Appends a leaf / a node and returns its index. Throws std::invalid_argument for a child that
    // is not an earlier index of level - 1 (readers check their input first, for their messages).
    Index add_leaf(std::uint64_t bits);
    Index add_node(int level, const std::array<Index, 4>& kids);
    // The root (0: no cells) and its level (leaf_level .. max_level).
    void set_root(Index root, int level);
    // A producer that built the tree canonical says so: every index is reachable from the root, each
    // distinct nonempty square appears once, no node has only empty children, and the indices are in
    // Golly's macrocell order (depth first from the root, nw ne sw se, each square when first met,
    // children first). The macrocell writer then writes the squares in index order instead of
    // finding the shared ones again. add_leaf, add_node and set_root clear it.
    void set_canonical() { canonical_ = shared_ = true; }
    bool canonical() const { return canonical_; }
    // Shared, in any order: each distinct nonempty square appears once and no node has only empty
    // children (QuadtreeBuilder's trees). The macrocell writer then numbers the squares it meets
    // without looking for identical ones. add_leaf, add_node and set_root clear it.
    void set_shared() { shared_ = true; }
    bool shared() const { return shared_; }

    const std::vector<Node>& nodes() const { return nodes_; }
    const Node& node(Index i) const { return nodes_[i - 1]; }
    // The level of square i >= 1, from an array of a byte a square: checking a new node's children
    // reads it instead of their 32-byte nodes, scattered over a large tree.
    int level_of(Index i) const { return levels_[i - 1]; }
    // Room for n squares in all, so that building a large tree does not copy it as it grows. The
    // pages are mapped at once, as a tree of n squares writes them all; a producer that knows only
    // a bound (it may build far fewer) passes bound_only, and the pages are then mapped as written.
    void reserve(std::size_t n, bool bound_only = false);
    Index root() const { return root_; }
    int level() const { return level_; }
    // Top-left cell of the root square.
    Cell origin() const;

    // Exact, from the tree (work linear in its nodes, never in its cells).
    CellCount population() const;
    // Smallest box holding every live cell; empty without cells. Throws RuntimeError when its width
    // or height does not fit in 64 bits (only a level-63 root with cells at both far edges).
    Box bounding_box() const;

    // Every live cell inside `window` (default: all), row by row: for each row holding some, calls
    // row(y, pieces) with the row's nonempty 8-cell pieces left to right: (x of the piece's first
    // cell, its 8 cells as bits, bit i = cell x + i; cells outside the window cleared). Work is
    // linear in the output plus the tree's nodes over it; empty bands of rows cost nothing.
    struct RowPiece {
        std::int64_t x;
        std::uint8_t bits;
    };
    // A row can hold astronomically many pieces (a level-60 square of live cells): past `max_pieces`
    // nonempty 8x8 squares across one band of 8 rows it stops and throws InputError.
    void for_each_row(const std::function<void(std::int64_t y, const std::vector<RowPiece>& pieces)>& row,
                      const Box* window = nullptr, std::size_t max_pieces = SIZE_MAX) const;
    // The live cells (inside `window`), sorted by (y, x). The caller checks population() first
    // when the count might be huge.
    std::vector<Cell> cells(const Box* window = nullptr) const;

    // A shared tree of `cells` (any order, duplicates ignored), its root the smallest of level >= 4
    // that holds them all. Throws InputError for a cell no level-63 root holds.
    static Quadtree from_cells(const std::vector<Cell>& cells);

private:
    std::vector<Node> nodes_;
    std::vector<std::uint8_t> levels_;  // nodes_[i].level
    Index root_ = 0;
    int level_ = leaf_level;
    bool canonical_ = false;
    bool shared_ = false;
};

// The tree from_cells makes, built from runs of live cells handed over in order of rows, a band of
// 8 rows at a time: a reader streams a file into a tree without a list of its cells (16 bytes a
// cell), keeping only the tree and a few bytes per 8x8 square holding cells.
class QuadtreeBuilder {
public:
    QuadtreeBuilder();
    ~QuadtreeBuilder();
    QuadtreeBuilder(QuadtreeBuilder&&) noexcept;
    QuadtreeBuilder& operator=(QuadtreeBuilder&&) noexcept;
    // Live cells (x, y) .. (x + length - 1, y). Rows come in order (y never decreases); runs of one
    // row in any order, overlaps allowed. Cells lie inside a level-63 root: -2^62 <= x,
    // x + length <= 2^62, 1 - 2^62 <= y <= 2^62 (every reader's cells do). Throws
    // std::invalid_argument otherwise.
    void add(std::int64_t x, std::int64_t y, std::int64_t length);
    // The tree of every cell added (root 0 when none), its root the smallest of level >= 4 holding
    // them all. The builder is empty afterwards.
    Quadtree finish();

private:
    struct State;
    std::unique_ptr<State> s_;
};

// The root level a tree of these cells needs: the smallest L >= min_level whose root square
// (placed as above) holds the box; 0 when no level up to Quadtree::max_level does.
int root_level_for(const Box& box, int min_level = 4);

// cpu:hashlife and cpu:auto run live cells with |x|, |y| < 2^60 (2^60 - 1 at most), so that
// every step has room in a tree of 64-bit coordinates. A run of `generations` from cells inside
// `live` certainly stays on that plane when `live` grown by one cell a generation does (nothing
// moves faster): this says so (true for no cells). Their step() of a run this cannot vouch for
// checks the cells as it goes and refuses (InputError) a run that takes them off the plane,
// leaving the engine as it was before that step().
bool hashlife_run_fits(const Box& live, std::int64_t generations);


}  // namespace tilelife
