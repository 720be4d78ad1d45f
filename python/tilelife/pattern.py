"""Patterns as values (lifelib's model) beside Golly's verbs.

A ``Pattern`` is an immutable set of live cells on the unbounded plane with a rule. It lives on a
board of the board layer (``cpu:auto`` by default: HashLife for long runs), which it never changes:
every operation makes a new pattern. ``p[n]`` is the pattern ``n`` generations later (any ``n`` up to
2^63 - 1), ``p.population`` and ``p.bounding_box`` are answered by the engine without listing a cell.
The set operations, ``shift`` and ``transform`` list the cells (an (N, 2) array), as lifelib's do for
patterns it cannot keep as trees.
"""

import os as _os

import numpy as _np

from ._tilelife import Board, InputError, PatternFile

# Golly's and lifelib's transformation names -> (A, B, C, D): (x, y) -> (A x + B y, C x + D y).
# y grows downwards, as in Golly: "rot90" turns clockwise on the screen.
TRANSFORMS = {
    "identity": (1, 0, 0, 1),
    "rot90": (0, -1, 1, 0), "rcw": (0, -1, 1, 0),
    "rot180": (-1, 0, 0, -1), "flip": (-1, 0, 0, -1),
    "rot270": (0, 1, -1, 0), "rccw": (0, 1, -1, 0),
    "flip_x": (-1, 0, 0, 1),
    "flip_y": (1, 0, 0, -1),
    "swap_xy": (0, 1, 1, 0), "transpose": (0, 1, 1, 0),
    "swap_xy_flip": (0, -1, -1, 0),
}

_CELL = _np.dtype([("y", _np.int64), ("x", _np.int64)])  # sorts as the engines list: by (y, x)


def _keys(cells):
    """(N, 2) x, y int64 -> a 1-D structured array ordered by (y, x), for numpy's set operations."""
    c = _np.ascontiguousarray(cells[:, ::-1], dtype=_np.int64)
    return c.view(_CELL).ravel()


def _cells(keys):
    return _np.ascontiguousarray(keys.view(_np.int64).reshape(-1, 2)[:, ::-1])


def _generations(n, what):
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"{what} takes a whole number of generations, not {type(n).__name__}")
    n = n.__index__()
    if n < 0:
        raise InputError(f"{what} takes 0 or more generations, not {n}")
    if n >= 2**63:
        raise InputError(f"{what} takes at most 2^63 - 1 generations, not {n}")
    return n


class Pattern:
    """An immutable pattern on the unbounded plane.

    Pattern(source=None, rule=None, *, engine=None): source is a pattern file's path (any format the
    CLI reads, or a ``random:WxH[:density[:seed]]`` spec), pattern text (RLE, plaintext, macrocell,
    Life 1.06), an (N, 2) array or flat x, y list of cells, a PatternFile, a Board (its cells, at its
    generation), or nothing (empty). rule overrides the file's (default: the file's, else B3/S23).
    """

    __slots__ = ("_board",)

    def __init__(self, source=None, rule=None, *, engine=None):
        options = {"topology": "unbounded"}
        if engine is not None:
            options["engine"] = engine
        if source is None:
            self._board = Board(rule or "B3/S23", **options)
        elif isinstance(source, Pattern):
            self._board = source._board if rule is None else Board.parse(source._board.text("mc"), rule=rule, **options)
        elif isinstance(source, Board):
            self._board = Board.parse(source.text("mc"), rule=rule or source.rule.split(":")[0], **options)
        elif isinstance(source, (PatternFile, _os.PathLike)):
            self._board = Board.load(source, rule=rule, **options)
        elif isinstance(source, str):
            is_text = "\n" in source or "!" in source or source.lstrip().startswith(("x", "#", "[M2]"))
            if not is_text or source.startswith("random:") or _os.path.exists(source):
                self._board = Board.load(source, rule=rule, **options)
            else:
                self._board = Board.parse(source, rule=rule, **options)
        else:
            board = Board(rule or "B3/S23", **options)
            board.set_cells(source)
            self._board = board

    @classmethod
    def _on(cls, board):
        p = cls.__new__(cls)
        p._board = board
        return p

    @classmethod
    def _from_cells(cls, cells, rule):
        board = Board(rule, topology="unbounded")
        if len(cells):
            board.set_cells(cells)
        return cls._on(board)

    # -- what it is --------------------------------------------------------------------------------

    @property
    def rule(self):
        """The rule in canonical B/S form."""
        return self._board.rule

    @property
    def population(self):
        return self._board.population

    @property
    def bounding_box(self):
        """(x, y, width, height) of the live cells, None when there are none (from the engine: instant)."""
        return self._board.bounding_box

    @property
    def generation(self):
        """Generations run since the pattern was read (plus the file's own #CXRLE Gen / #G)."""
        return self._board.generation

    @property
    def engine(self):
        return self._board.engine

    def coords(self):
        """The live cells, an (N, 2) int64 array of x, y sorted by (y, x)."""
        return self._board.cells()

    def __len__(self):
        return self.population

    def __bool__(self):
        return self.population > 0

    def __repr__(self):
        box = self.bounding_box
        where = "" if box is None else f" at {box[0]},{box[1]} {box[2]}x{box[3]}"
        return f"<tilelife.Pattern {self.rule} population {self.population}{where}>"

    # -- evolution ---------------------------------------------------------------------------------

    def __getitem__(self, key):
        """p[n]: the pattern n generations later. p[x0:x1, y0:y1]: the cells inside that rectangle."""
        if isinstance(key, tuple) and len(key) == 2 and all(isinstance(k, slice) for k in key):
            box = self.bounding_box
            if box is None:
                return self
            (xs, ys), (bx, by, bw, bh) = key, box
            x0 = bx if xs.start is None else xs.start
            x1 = bx + bw if xs.stop is None else xs.stop
            y0 = by if ys.start is None else ys.start
            y1 = by + bh if ys.stop is None else ys.stop
            rect = (x0, y0, max(0, x1 - x0), max(0, y1 - y0))
            return Pattern._from_cells(self._board.cells(rect), self.rule)
        n = _generations(key, "Pattern[n]")
        board = self._board.copy()
        board.step(n)
        return Pattern._on(board)

    def advance(self, n):
        """The pattern n generations later (p[n])."""
        return self[n]

    # -- set algebra -------------------------------------------------------------------------------

    def _other(self, other, op):
        if not isinstance(other, Pattern):
            return None
        if other.rule != self.rule:
            raise InputError(f"{op} of patterns with different rules ({self.rule} and {other.rule})")
        return other

    def _combine(self, other, fn, op):
        other = self._other(other, op)
        if other is None:
            return NotImplemented
        return Pattern._from_cells(_cells(fn(_keys(self.coords()), _keys(other.coords()))), self.rule)

    def __or__(self, other):
        return self._combine(other, _np.union1d, "union")

    __add__ = __or__

    def __and__(self, other):
        return self._combine(other, lambda a, b: _np.intersect1d(a, b, assume_unique=True), "intersection")

    def __sub__(self, other):
        return self._combine(other, lambda a, b: _np.setdiff1d(a, b, assume_unique=True), "difference")

    def __xor__(self, other):
        return self._combine(other, lambda a, b: _np.setxor1d(a, b, assume_unique=True), "symmetric difference")

    def __eq__(self, other):
        if not isinstance(other, Pattern):
            return NotImplemented
        if self.rule != other.rule or self.population != other.population:
            return False
        if self.bounding_box != other.bounding_box:
            return False
        return _np.array_equal(self.coords(), other.coords())

    def __hash__(self):
        # What equal patterns share and the engines answer at once.
        return hash((self.rule, self.population, self.bounding_box))

    # -- geometry ----------------------------------------------------------------------------------

    def shift(self, x, y):
        """The pattern moved by (x, y)."""
        return Pattern._from_cells(self.coords() + _np.array([x, y], dtype=_np.int64), self.rule)

    def transform(self, name, x=0, y=0):
        """The pattern turned or flipped about the origin, then moved by (x, y): name is one of
        identity, rot90 (rcw), rot180 (flip), rot270 (rccw), flip_x, flip_y, swap_xy (transpose),
        swap_xy_flip."""
        if name not in TRANSFORMS:
            raise InputError(f"transform '{name}' is not one of {', '.join(sorted(TRANSFORMS))}")
        a, b, c, d = TRANSFORMS[name]
        cells = self.coords()
        out = _np.empty_like(cells)
        out[:, 0] = x + a * cells[:, 0] + b * cells[:, 1]
        out[:, 1] = y + c * cells[:, 0] + d * cells[:, 1]
        return Pattern._from_cells(out, self.rule)

    def __call__(self, x, y, name="identity"):
        """lifelib's p(x, y[, transform])."""
        return self.transform(name, x, y)

    # -- periodicity -------------------------------------------------------------------------------

    def oscar(self, max_period=1024):
        """Oscillator and spaceship detection: {"period": p, "displacement": (dx, dy)} for the
        smallest p <= max_period after which the pattern recurs (moved by dx, dy); None when it does
        not recur by then. A still life has period 1, an empty pattern period 1 and no displacement."""
        max_period = _generations(max_period, "oscar")
        box0, pop0 = self.bounding_box, self.population
        if box0 is None:
            return {"period": 1, "displacement": (0, 0)}
        shape0 = self.coords() - _np.array(box0[:2], dtype=_np.int64)
        board = self._board.copy()
        for p in range(1, max_period + 1):
            board.step(1)
            box = board.bounding_box
            if box is None or board.population != pop0 or box[2:] != box0[2:]:
                continue
            if _np.array_equal(board.cells() - _np.array(box[:2], dtype=_np.int64), shape0):
                return {"period": p, "displacement": (box[0] - box0[0], box[1] - box0[1])}
        return None

    def period(self, max_period=1024):
        """The period (see oscar()), or None when the pattern does not recur within max_period."""
        found = self.oscar(max_period)
        return None if found is None else found["period"]

    # -- files and copies --------------------------------------------------------------------------

    def text(self, format="rle"):
        """The pattern as "rle", "cells" or "mc" text."""
        return self._board.text(format)

    def save(self, path):
        """Writes the pattern atomically in any pattern format by the name (.rle, .cells, .mc, .gz)."""
        self._board.save(path)

    def copy(self):
        """Patterns are immutable: the same value (for code written for mutable boards)."""
        return self

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_unpickle_pattern, (self._board.text("mc"), self.rule))


def _unpickle_pattern(text, rule):
    return Pattern._on(Board.parse(text, rule=rule, topology="unbounded"))
