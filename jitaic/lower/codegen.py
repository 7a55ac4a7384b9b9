"""Python source generation: names, indentation, literals and casts.

The generated module is plain Python that numba compiles; it is kept
readable because users see it (``f.lower(...).source()``, tracebacks, pdb).
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Sequence
from contextlib import contextmanager

import numba
import numpy as np

from jitaic import config
from jitaic.ir.graph import Value
from jitaic.lower import buffers


def comment_text(text: str) -> str:
    """``text`` safe to put after ``#`` in generated source: user text (function
    and file names) ends up in comments, and a line break in it would start a
    line of code. Non-ASCII and control characters are escaped as ``ascii()``
    escapes them."""
    return ascii(str(text))[1:-1]


def np_type(dtype: np.dtype) -> str:
    """The NumPy scalar constructor that names ``dtype`` in generated code."""
    dtype = np.dtype(dtype)
    return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"


def literal(value: object, dtype: np.dtype) -> str:
    """A scalar constant of ``dtype`` as source text (nan and inf included)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return "True" if bool(value) else "False"
    if dtype.kind == "f":
        v = float(value)
        text = "np.nan" if math.isnan(v) else ("np.inf" if v > 0 else "-np.inf") \
            if math.isinf(v) else repr(v)
    else:
        text = repr(int(value))
    return f"{np_type(dtype)}({text})"


def cast(expr: str, src: np.dtype, dst: np.dtype) -> str:
    """Convert a scalar expression between dtypes with NumPy's (unsafe) casting."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return expr
    if dst == np.bool_:
        return f"({expr} != 0)"
    if src.kind == "f" and dst.kind in "iu":
        via = ("float_to_uint64" if dst == np.uint64 else "float_to_int64"
               if dst.itemsize == 8 or dst == np.uint32 else "float_to_int32")
        return f"{np_type(dst)}(rt.{via}({expr}))"  # NumPy's values outside the range
    return f"{np_type(dst)}({expr})"


def index_text(index: tuple) -> str:
    """A normalized basic index (ints and slice triples) as subscript source."""
    parts = []
    for entry in index:
        if isinstance(entry, tuple):
            start, stop, step = entry
            text = f"{start}:{'' if stop is None else stop}"
            parts.append(text if step == 1 else f"{text}:{step}")
        else:
            parts.append(str(entry))
    return ", ".join(parts) if parts else "()"


# What generated modules import (compile._module_source): no variable may take these names.
MODULE_NAMES = ("np", "numba", "blas", "rt", "vm", "buf")


# Extents in generated code are ints (static) or source text (a run-time
# length, such as ``view.shape[0]``, inside loop bodies).
Extent = int | str


def shape_text(dims: tuple[Extent, ...]) -> str:
    """A shape tuple as source: ``(3, 4)``, ``(n,)``, ``()``."""
    return f"({', '.join(map(str, dims))}{',' if len(dims) == 1 else ''})"


def known_size(dims: tuple[Extent, ...]) -> int | None:
    """The number of elements, or None when some extent is a run-time value."""
    if any(isinstance(d, str) for d in dims):
        return None
    return int(np.prod(dims, dtype=np.int64))


def empty(shape: tuple[Extent, ...], dtype: np.dtype) -> str:
    """Source allocating an uninitialised array. A big one takes a block freed
    by an earlier call when one waits (lower/buffers.py: no page faults), else
    gets huge pages: first-touch faults on a fresh 32 MB output cost ~18 ms
    with 4 KiB pages here, ~3 ms with 2 MiB pages."""
    text = f"np.empty({shape_text(shape)}, {np_type(dtype)})"
    nbytes = (known_size(shape) or 0) * np.dtype(dtype).itemsize
    if nbytes < buffers.MIN_BYTES:
        return text
    if config.get("buffer_cache_mb") > 0:
        return f"buf.empty({shape_text(shape)}, {np_type(dtype)})"
    return f"rt.huge_pages({text})"


# Blocks that thread-blocked loops split their iterations into: numba's
# thread count (its prange gives each running thread one contiguous share of
# them). A literal, not numba.get_num_threads() (a call through a ctypes
# pointer), so generated code can be cached on disk; after
# numba.set_num_threads(k) each of k threads runs several blocks.
THREAD_BLOCKS = numba.config.NUMBA_NUM_THREADS


def _block_bounds(block: str, extent: Extent, blocks: str) -> tuple[str, str]:
    """First and end iteration of ``block`` when ``extent`` iterations are
    split into ``blocks`` contiguous blocks."""
    return f"{block} * {extent} // {blocks}", f"({block} + 1) * {extent} // {blocks}"


class Emitter:
    """Accumulates the lines of one generated function and names its values."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._indent = 1
        self._names: dict[int, str] = {}
        self._taken: set[str] = set()
        self.layouts: dict[int, str] = {}  # array values: "C", "F" or "A"
        self.constants: list[object] = []  # array constants (and tape pools), as arguments
        self.tape_pools: dict[int, str] = {}  # tape slot -> its pool argument
        self.constant_names: list[str] = []
        self.parallel_min_work: int | None = None  # None: serial loops only
        self.uses_prange = False
        self.launches_threads = False  # a prange, or a helper that runs one (rt.split_dot)
        self.overwritable: set[tuple[int, int]] = set()  # (id(value), id(node))
        self.reusable: dict[int, Value] = {}  # kernel output -> dead input whose buffer it takes
        self.view_starts: dict[int, tuple] = {}  # run-time views: index with first indices
        self._bound: set[str] = set()  # loop variables an enclosing row loop already runs
        self._hoist: list | None = None  # [line position, indent] (row loops)
        self._in_prange = False
        self._thread_scratch: list[str] | None = None  # scratch lines of the prange emitting
        self.prologue: list[str] = []  # scratch buffers, allocated once per call

    def constant_arg(self, value: np.ndarray) -> str:
        self.constants.append(value)
        self.constant_names.append(self.fresh(f"const{len(self.constants) - 1}"))
        return self.constant_names[-1]

    def can_overwrite(self, value: Value, node) -> bool:
        """Whether ``node`` may update ``value``'s buffer in place (its last use)."""
        return (id(value), id(node)) in self.overwritable

    def fresh(self, hint: str = "t") -> str:
        """A new variable name from ``hint``: never one ending in ``_<digits>``.

        numba's parallel lowering renames a variable's SSA versions ``t.2`` to
        ``t_2``, and fails ("key already in dictionary") if that name exists.
        """
        base = re.sub(r"\W", "_", hint, flags=re.ASCII) or "t"
        if base[0].isdigit() or keyword.iskeyword(base) or base in MODULE_NAMES:
            base = f"v_{base}"
        if re.search(r"_\d+$", base):
            base += "v"
        separator = "v" if base[-1].isdigit() else ""
        name, n = base, 1
        while name in self._taken:
            n += 1
            name = f"{base}{separator}{n}"
        self._taken.add(name)
        return name

    def define(self, value: Value, hint: str | None = None, layout: str = "C") -> str:
        name = self.fresh(hint or value.name or "t")
        self._names[id(value)] = name
        if value.type.ndim:
            self.layouts[id(value)] = layout
        return name

    def alias(self, value: Value, name: str, layout: str = "C") -> None:
        self._names[id(value)] = name
        if value.type.ndim:
            self.layouts[id(value)] = layout

    def __call__(self, value: Value) -> str:
        return self._names[id(value)]

    def has(self, value: Value) -> bool:
        """Whether ``value`` has a name here (an array: it exists in memory)."""
        return id(value) in self._names

    def layout(self, value: Value) -> str:
        return self.layouts.get(id(value), "C")

    def contiguous(self, value: Value) -> str:
        """The value's array name, made contiguous if its layout is unknown."""
        name = self(value)
        return name if self.layout(value) in "CF" else f"np.ascontiguousarray({name})"

    def line(self, text: str) -> None:
        self.lines.append("    " * self._indent + text)

    def comment(self, text: str) -> None:
        self.line(f"# {comment_text(text)}")

    @contextmanager
    def block(self, header: str):
        self.line(header)
        self._indent += 1
        try:
            yield
        finally:
            self._indent -= 1

    def runs_parallel(self, extents: list[tuple[str, Extent]], work: int | None) -> bool:
        """Whether ``loops(extents, work)`` makes its outermost loop a prange."""
        extents = [e for e in extents if e[0] not in self._bound]
        return bool(self.parallel_min_work is not None and work is not None
                    and not self._in_prange  # numba runs a nested prange serially
                    and work >= self.parallel_min_work and extents
                    and isinstance(extents[0][1], int) and extents[0][1] > 1)

    @contextmanager
    def thread_blocks(self, var: str, extent: int, per_thread: Sequence[str] = ()):
        """``for var in range(extent)`` split into one contiguous block per
        thread (a ``numba.prange`` over THREAD_BLOCKS blocks); the
        ``per_thread`` lines (a buffer's allocation) run once per block,
        before it."""
        threads, thread, stop = self.fresh("threads"), self.fresh("thread"), self.fresh("stop")
        self.line(f"{threads} = {THREAD_BLOCKS}")
        start = len(self.lines) - 1
        with self.block(f"for {thread} in numba.prange({threads}):"):
            self.uses_prange = self.launches_threads = True
            saved, self._in_prange = self._in_prange, True
            for line in per_thread:
                self.line(line)
            first, end = _block_bounds(thread, extent, threads)
            self.line(f"{stop} = {end}")
            try:
                with self.block(f"for {var} in range({first}, {stop}):"):
                    yield
            finally:
                self._in_prange = saved
        self._limit_threads_or_serialise(start)

    @contextmanager
    def bound(self, variables: tuple[str, ...]):
        """Inside, ``loops`` skips these variables: an enclosing loop runs them."""
        saved = set(self._bound)
        self._bound.update(variables)
        try:
            yield
        finally:
            self._bound = saved

    @contextmanager
    def hoisting(self):
        """Inside, ``allocate`` lines go right here, before the loops that
        follow: a row loop allocates its kernels' outputs once, not per row."""
        saved = self._hoist
        self._hoist = [len(self.lines), self._indent]
        try:
            yield
        finally:
            self._hoist = saved

    def allocate(self, text: str) -> None:
        """A line allocating an output array (hoisted out of row loops)."""
        if self._hoist is None:
            self.line(text)
            return
        position, indent = self._hoist
        self.lines.insert(position, "    " * indent + text)
        self._hoist[0] += 1

    def scratch(self, text: str) -> None:
        """A line allocating a fixed-size scratch buffer: once, at the top of the
        function (not per loop iteration), except inside a parallel loop, where
        each thread needs its own: once per thread when ``loops`` made the
        prange (see ``_split_by_thread``), else at this point."""
        if self._thread_scratch is not None:
            if text not in self._thread_scratch:
                self._thread_scratch.append(text)
        elif self._in_prange:
            self.line(text)
        else:
            self.prologue.append("    " + text)

    @contextmanager
    def loops(self, extents: list[tuple[str, Extent]], work: int | None = 0):
        """Nested ``for var in range(extent)`` loops, outermost first.

        With ``work`` (elements processed by the whole nest) at or above the
        parallel threshold, the outermost loop is a ``numba.prange``: callers
        pass ``work`` only for nests whose outer iterations are independent.
        """
        depth, threads, scratch = self._indent, self._in_prange, self._thread_scratch
        parallel = self.runs_parallel(extents, work)
        extents = [e for e in extents if e[0] not in self._bound]
        prange = None
        for var, extent in extents:
            loop = "numba.prange" if parallel else "range"
            self.line(f"for {var} in {loop}({extent}):")
            if parallel:
                prange = (self.lines[-1], var, extent)
                self._thread_scratch = []
            self.uses_prange |= parallel
            self.launches_threads |= parallel
            self._in_prange |= parallel
            parallel = False
            self._indent += 1
        try:
            yield
            if prange:
                start = self.lines.index(prange[0])
                if self._thread_scratch:
                    self._split_by_thread(*prange, self._thread_scratch)
                self._limit_threads_or_serialise(start)
        finally:
            self._indent, self._in_prange, self._thread_scratch = depth, threads, scratch

    def _limit_threads_or_serialise(self, start: int) -> None:
        """Bracket the parallel loop that starts at line ``start`` (and runs
        to the last line) so that it runs on the CPUs other processes leave
        idle (lower/threads.py). A loop that may raise becomes a ``range``:
        numba runs such a prange serially anyway, and the exception would
        skip restoring the thread count."""
        construct = self.lines[start:]
        if any(line.lstrip().startswith("raise ") for line in construct):
            prange = next(k for k, line in enumerate(construct) if "numba.prange(" in line)
            self.lines[start + prange] = construct[prange].replace("numba.prange(", "range(", 1)
            return
        pad = construct[0][:len(construct[0]) - len(construct[0].lstrip())]
        saved = self.fresh("numba_threads")
        self.lines.insert(start, f"{pad}{saved} = rt.limit_threads()")
        self.lines.append(f"{pad}rt.restore_threads({saved})")

    def _split_by_thread(self, header: str, var: str, extent: Extent,
                         scratch: list[str]) -> None:
        """Rewrite the prange ``header`` (and its body, the lines after it) into
        one block of iterations per thread, each thread allocating ``scratch``
        once: an allocation per iteration (a row) cost ~3% of a row softmax.
        numba's prange also gives each thread one contiguous block."""
        at = self.lines.index(header)  # unique: var is a fresh name
        pad = header[:len(header) - len(header.lstrip())]
        threads, thread = self.fresh("threads"), self.fresh("thread")
        first, stop = _block_bounds(thread, extent, threads)
        self.lines[at:] = [
            f"{pad}{threads} = {THREAD_BLOCKS}",
            f"{pad}for {thread} in numba.prange({threads}):",
            *(f"{pad}    {text}" for text in scratch),
            f"{pad}    for {var} in range({first}, {stop}):",
            *(f"    {line}" for line in self.lines[at + 1:]),
        ]
