// A quadtree built bottom-up from a list of cells: the cells grouped by leaf square, then each
// level's squares grouped by parent. Shared by Quadtree::from_cells (8x8 leaves) and HashLife's
// set_cells (16x16 leaves), which differ only in how a leaf and a node are made.
//
// Both orders are (row, column) of squares. Cells in row order, as every reader gives them, are
// sorted a band of rows at a time (n log of a band, not n log n), and a level's squares become
// their parents by merging each pair of rows in one pass. Sorting every cell, then every level,
// took a fifth of megacell-OFF.rle's whole run of 65536 generations (docs/hashlife.md).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tilelife/geometry.hpp"

namespace tilelife::cell_squares {

// A cell of square (kx, ky), at (x, y) inside it.
struct CellBit {
    std::uint64_t kx, ky;
    std::uint8_t x, y;
};

// A square of some level: its position in units of its side, and its index in a store.
struct Square {
    std::uint64_t kx, ky;
    std::uint32_t ref;
};

// Calls leaf(kx, ky, first, last) for every square of side 2^shift (shift <= 8) that holds cells,
// in order of (ky, kx), with its cells [first, last) (duplicates possible); squares are counted
// from `origin`, the top-left cell of a root that holds every cell.
template <class Leaf>
void for_each_leaf(const std::vector<Cell>& cells, Cell origin, int shift, Leaf&& leaf) {
    const std::uint64_t mask = (std::uint64_t{1} << shift) - 1;
    const auto bit_of = [&](const Cell& c) {
        const auto ux = static_cast<std::uint64_t>(c.x) - static_cast<std::uint64_t>(origin.x);
        const auto uy = static_cast<std::uint64_t>(c.y) - static_cast<std::uint64_t>(origin.y);
        return CellBit{ux >> shift, uy >> shift, static_cast<std::uint8_t>(ux & mask), static_cast<std::uint8_t>(uy & mask)};
    };
    const auto by_square = [](const CellBit& a, const CellBit& b) { return a.ky != b.ky ? a.ky < b.ky : a.kx < b.kx; };
    std::vector<CellBit> bits;
    const auto emit = [&] {
        for (std::size_t i = 0; i < bits.size();) {
            std::size_t j = i;
            while (j < bits.size() && bits[j].kx == bits[i].kx && bits[j].ky == bits[i].ky) ++j;
            leaf(bits[i].kx, bits[i].ky, bits.data() + i, bits.data() + j);
            i = j;
        }
    };
    const bool in_rows = std::is_sorted(cells.begin(), cells.end(), row_order);
    if (!in_rows) {
        bits.reserve(cells.size());
        for (const Cell& c : cells) bits.push_back(bit_of(c));
        std::sort(bits.begin(), bits.end(), by_square);
        return emit();
    }
    for (std::size_t i = 0; i < cells.size();) {
        bits.clear();
        const std::uint64_t ky = bit_of(cells[i]).ky;
        for (; i < cells.size(); ++i) {
            const CellBit b = bit_of(cells[i]);
            if (b.ky != ky) break;
            bits.push_back(b);
        }
        std::sort(bits.begin(), bits.end(), by_square);
        emit();
    }
}

// One level up: `squares` (n of them), in order of (ky, kx), become their parents in `up` (cleared
// first), in the same order; node(kids) makes a parent from its four children (nw, ne, sw, se;
// `absent` where a child holds no cells) and returns its index.
template <class Node>
void parents(const Square* squares, std::size_t n, std::uint32_t absent, std::vector<Square>& up, Node&& node) {
    up.clear();
    for (std::size_t i = 0; i < n;) {
        // A run of one row, with the next row when it is the other half of the same parents.
        const std::uint64_t ky = squares[i].ky;
        std::size_t a = i, a_end = i;
        while (a_end < n && squares[a_end].ky == ky) ++a_end;
        std::size_t b = a_end, b_end = a_end;
        if (!(ky & 1))
            while (b_end < n && squares[b_end].ky == ky + 1) ++b_end;
        while (a < a_end || b < b_end) {
            const std::uint64_t px = std::min(a < a_end ? squares[a].kx >> 1 : UINT64_MAX,
                                              b < b_end ? squares[b].kx >> 1 : UINT64_MAX);
            std::uint32_t kids[4] = {absent, absent, absent, absent};
            for (; a < a_end && (squares[a].kx >> 1) == px; ++a) kids[((ky & 1) << 1) | (squares[a].kx & 1)] = squares[a].ref;
            for (; b < b_end && (squares[b].kx >> 1) == px; ++b) kids[2 | (squares[b].kx & 1)] = squares[b].ref;
            up.push_back(Square{px, ky >> 1, node(kids)});
        }
        i = b_end;
    }
}
template <class Node>
void parents(const std::vector<Square>& squares, std::uint32_t absent, std::vector<Square>& up, Node&& node) {
    parents(squares.data(), squares.size(), absent, up, node);
}

}  // namespace tilelife::cell_squares
