"""tilelife: exact, fast Life-like cellular automata from Python.

    import tilelife
    board = tilelife.load("patterns/gosper-glider-gun.rle")      # any format the CLI reads
    board.step(1000)                                              # releases the GIL; Ctrl+C stops it
    board.population, board.generation, board.bounding_box
    cells = board.cells()                                         # (N, 2) int64 array of x, y
    board.save("gun-1000.rle")                                    # what `tilelife run -o` writes

Boards run on any engine of the build (``tilelife.engines()``): ``engine="cpu:reference"``,
``engine="opencl"`` (that backend's default), engine parameters as keywords
(``activity="off"``). Errors are ``tilelife.InputError`` (bad input, a ValueError) and
``tilelife.RuntimeError`` (a failure running good input), both ``tilelife.Error``, with the
same one-line reasons the CLI prints. Golly's verbs (``load``, ``run``, ``getcells``,
``putcells``, ``getpop``, ``getgen``, ``getrect``, ``evolve``, ``transform``) are thin functions
over the same boards. ``Pattern`` is lifelib's model beside them: an immutable pattern with
``p[n]``, ``|``, ``&``, ``-``, ``^``, ``shift``, ``transform`` and ``oscar()``. docs/python.md has
the whole API.
"""

import numpy as _np

from ._tilelife import (  # noqa: F401  (re-exported)
    Board,
    Error,
    InputError,
    PatternFile,
    RuntimeError,
    __version__,
    backends,
    canonical_rule,
    default_engine,
    devices,
    engines,
    parse_pattern,
    read_pattern,
)

from .pattern import Pattern

for _cls in (Board, PatternFile, Pattern):
    _cls.__module__ = "tilelife"

__all__ = [
    "Board", "Pattern", "PatternFile", "Error", "InputError", "RuntimeError", "__version__",
    "engines", "default_engine", "devices", "backends", "canonical_rule", "read_pattern", "parse_pattern",
    "load", "parse", "run", "getcells", "putcells", "getpop", "getgen", "getrect", "evolve", "transform",
]


def load(source, **options):
    """A board holding a pattern file, a ``random:WxH[:density[:seed]]`` spec, a PatternFile or a Pattern.

    Keywords as for Board (rule, topology, size, engine, engine parameters, ...); rule, topology and
    size override the file's, as the CLI's --rule/--topology/--size do. Unlike Golly's ``load``, which
    returns a cell list, this returns the Board (``getcells(board)`` gives the cells).
    """
    if isinstance(source, Pattern):
        return Board.parse(source.text("mc"), **options)
    return Board.load(source, **options)


def parse(text, **options):
    """A board holding pattern text (RLE such as ``"bo$2bo$3o!"``, plaintext, Life 1.06, ...)."""
    return Board.parse(text, **options)


def run(board, generations):
    """Golly's ``run``: advances the board by ``generations``."""
    _check_board(board, "run")
    board.step(generations)


def _check_board(board, verb):
    if not isinstance(board, Board):
        raise TypeError(f"{verb}() takes a tilelife.Board first (tilelife.load(...) makes one), "
                        f"not {type(board).__name__}")


def getcells(board, rect=None):
    """Golly's ``getcells``: the live cells (inside ``rect=(x, y, w, h)``) as an (N, 2) array."""
    _check_board(board, "getcells")
    if rect is not None and (isinstance(rect, (str, bytes)) or len(rect) not in (0, 4)):
        raise TypeError(f"getcells(board, rect): rect is (x, y, width, height) or None, not {rect!r}")
    return board.cells(rect if rect is None or len(rect) else None)


def transform(cells, x0=0, y0=0, A=1, B=0, C=0, D=1):
    """Golly's ``transform``: each cell (x, y) becomes (x0 + A*x + B*y, y0 + C*x + D*y)."""
    c = _as_cells(cells)
    out = _np.empty_like(c)
    out[:, 0] = x0 + A * c[:, 0] + B * c[:, 1]
    out[:, 1] = y0 + C * c[:, 0] + D * c[:, 1]
    return out


PUTCELLS_MODES = ("or", "xor", "copy", "and", "not")


def putcells(board, cells, x0=0, y0=0, A=1, B=0, C=0, D=1, mode="or"):
    """Golly's ``putcells``: pastes the cells, transformed as ``transform`` does, in Golly's modes:
    "or" makes them alive, "xor" toggles them, "not" kills them; for a list of live cells Golly's
    "copy" is "or" and its "and" changes nothing, and so they are here."""
    _check_board(board, "putcells")
    if not isinstance(mode, str) or mode.lower() not in PUTCELLS_MODES:
        raise InputError(f"putcells mode {mode!r} is not one of {', '.join(PUTCELLS_MODES)}")
    mode = mode.lower()
    placed = transform(cells, x0, y0, A, B, C, D)
    if mode == "and" or len(placed) == 0:
        return
    if mode in ("or", "copy"):
        board.set_cells(placed)
    elif mode == "not":
        board.set_cells(placed, alive=False)
    else:  # xor: the live ones die, the rest are born
        lo, hi = placed.min(axis=0), placed.max(axis=0)
        alive = board.cells((int(lo[0]), int(lo[1]), int(hi[0] - lo[0] + 1), int(hi[1] - lo[1] + 1)))
        from .pattern import _cells, _keys
        keys, live = _np.unique(_keys(placed)), _keys(alive)
        board.set_cells(_cells(_np.intersect1d(keys, live, assume_unique=True)), alive=False)
        board.set_cells(_cells(_np.setdiff1d(keys, live, assume_unique=True)))


def getpop(board):
    """Golly's ``getpop``, as an int."""
    _check_board(board, "getpop")
    return board.population


def getgen(board):
    """Golly's ``getgen``, as an int."""
    _check_board(board, "getgen")
    return board.generation


def getrect(board):
    """Golly's ``getrect``: [x, y, width, height] of the live cells, [] when there are none."""
    _check_board(board, "getrect")
    box = board.bounding_box
    return [] if box is None else list(box)


def evolve(cells, generations, rule="B3/S23", **options):
    """Golly's ``evolve``: the cells after ``generations`` on the unbounded plane, as an (N, 2) array."""
    board = Board(rule, **options)
    board.set_cells(cells)
    board.step(generations)
    return board.cells()


def _as_cells(cells):
    c = _np.asarray(cells)
    if c.size == 0:
        return _np.zeros((0, 2), dtype=_np.int64)
    if c.dtype.kind not in "iu":
        raise TypeError("cells must be integers (an (N, 2) array or a flat x, y list)")
    if c.ndim == 1:
        if c.size % 2:
            raise InputError("a flat cell list has an even number of coordinates (x0, y0, x1, y1, ...)")
        c = c.reshape(-1, 2)
    if c.ndim != 2 or c.shape[1] != 2:
        raise InputError("cells must be an (N, 2) array of x, y coordinates")
    return c.astype(_np.int64, copy=False)
