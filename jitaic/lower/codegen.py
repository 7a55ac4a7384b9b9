"""Python source generation: names, indentation, literals and casts.

The generated module is plain Python that numba compiles; it is kept
readable because users see it (``f.lower(...).source()``, tracebacks, pdb).
"""

from __future__ import annotations

import functools
import keyword
import math
import re
from collections.abc import Callable, Sequence
from contextlib import contextmanager

import numpy as np

from jitaic import config
from jitaic.ir.graph import Value
from jitaic.ir.int_ranges import IntRanges
from jitaic.lower import buffers, loop_ir, loop_passes


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
    if dtype.kind == "c":
        z = complex(value)
        return f"{np_type(dtype)}(complex({_float_text(z.real)}, {_float_text(z.imag)}))"
    text = _float_text(value) if dtype.kind == "f" else repr(int(value))
    return f"{np_type(dtype)}({text})"


def _float_text(value: object) -> str:
    v = float(value)
    if math.isnan(v):
        return "np.nan"
    return ("np.inf" if v > 0 else "-np.inf") if math.isinf(v) else repr(v)


def cast(expr: str, src: np.dtype, dst: np.dtype) -> str:
    """Convert a scalar expression between dtypes with NumPy's (unsafe) casting."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return expr
    if dst == np.bool_:
        return f"({expr} != 0)"
    if src.kind == "c" and dst.kind != "c":  # NumPy drops the imaginary part
        return cast(f"({expr}).real", np.real(np.ones((), src)).dtype, dst)
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
MODULE_NAMES = ("np", "numba", "blas", "lapack", "order", "rt", "sampling", "spectral", "vm",
                "buf", "cm")


# Extents in generated code are ints (static) or source text (a run-time
# length, such as ``view.shape[0]``, inside loop bodies).
Extent = loop_ir.Extent


def shape_text(dims: tuple[Extent, ...]) -> str:
    """A shape tuple as source: ``(3, 4)``, ``(n,)``, ``()``."""
    return f"({', '.join(map(str, dims))}{',' if len(dims) == 1 else ''})"


def known_size(dims: tuple[Extent, ...]) -> int | None:
    """The number of elements, or None when some extent is a run-time value
    (source text, or a fusion domain's key for one)."""
    if not all(isinstance(d, (int, np.integer)) for d in dims):
        return None
    return int(np.prod(dims, dtype=np.int64))


def int64_shape(dims: tuple[Extent, ...]) -> str:
    """A shape for a helper of jitaic's: int64 extents, never literals (numba
    compiles a helper anew for each literal value it is called with)."""
    return shape_text(tuple(f"np.int64({d})" for d in dims))


# Source calling numba's array library: through runtime.py's wrappers, which
# numba keeps on disk (it compiles its own np.full, copy() ... anew in every
# process that calls them).

def full(dims: tuple[Extent, ...], fill: str, dtype: np.dtype) -> str:
    """``np.full(dims, fill, dtype)``."""
    return f"rt.full({int64_shape(dims)}, {fill}, {np_type(dtype)})"


def zeros(dims: tuple[Extent, ...], dtype: np.dtype) -> str:
    """``np.zeros(dims, dtype)``."""
    return f"rt.zeros({int64_shape(dims)}, {np_type(dtype)})"


def contiguous(array: str) -> str:
    """``np.ascontiguousarray(array)``."""
    return f"rt.contiguous({array})"


def copy_of(array: str) -> str:
    """``array.copy()``."""
    return f"rt.copy({array})"


def astype(array: str, dtype: np.dtype) -> str:
    """``array.astype(dtype)``."""
    return f"rt.astype({array}, {np_type(dtype)})"


def int_max(*texts: Extent) -> str:
    """The largest of integer expressions: np.maximum lowers to one select,
    where numba compiles its builtin max in each process that calls it."""
    return functools.reduce(lambda a, b: f"np.maximum({a}, {b})", map(str, texts))


def int_min(*texts: Extent) -> str:
    """The smallest of integer expressions (see int_max)."""
    return functools.reduce(lambda a, b: f"np.minimum({a}, {b})", map(str, texts))


def empty(shape: tuple[Extent, ...], dtype: np.dtype) -> str:
    """Source allocating an uninitialised array. A big one takes a block freed
    by an earlier call when one waits (lower/buffers.py: no page faults), else
    gets huge pages: first-touch faults on a fresh 32 MB output cost ~18 ms
    with 4 KiB pages here, ~3 ms with 2 MiB pages."""
    text = f"rt.empty({int64_shape(shape)}, {np_type(dtype)})"
    size = known_size(shape)
    cache = config.get("buffer_cache_mb") > 0
    if size is None:  # run-time extents: big or not is decided when it runs
        return f"buf.empty_at_run_time({int64_shape(shape)}, {np_type(dtype)})" if cache \
            else text
    if size * np.dtype(dtype).itemsize < buffers.MIN_BYTES:
        return text
    if cache:
        return f"buf.empty({int64_shape(shape)}, {np_type(dtype)})"
    return f"rt.huge_pages({text})"


def _assignment(text: str) -> tuple[str, str]:
    """(target, expression) of ``"target = expression"``."""
    target, equals, expr = text.partition(" = ")
    if not equals:
        raise ValueError(f"not an assignment: {text!r}")
    return target, expr


class Emitter:
    """Builds one generated function as loop IR (``loop_ir``) and names its
    values. Lowering rules add statements at the current position; the
    context managers open loops and branches. Decisions that need the whole
    function (hoisting, scratch placement, thread limits, per-thread blocks,
    repeated checks) are the loop passes', run by ``function``."""

    def __init__(self, ranges: IntRanges | None = None, parallel_min_work: int | None = None,
                 regions: Callable[[Emitter], object] | None = None) -> None:
        """``ranges``: bounds of the graph's integers; ``parallel_min_work``:
        the work from which a loop runs on threads (None: serial loops only);
        ``regions``: what plans and emits control-flow bodies, made for this
        emitter (compile.Regions)."""
        self.body: list[loop_ir.Stmt] = []
        self._open: list[list[loop_ir.Stmt]] = [self.body]  # innermost block last
        self._names: dict[int, str] = {}
        self._taken: set[str] = set()
        self.layouts: dict[int, str] = {}  # array values: "C", "F" or "A"
        self.constants: list[object] = []  # array constants (and tape pools), as arguments
        self.tape_pools: dict[int, str] = {}  # tape slot -> its pool argument
        self.constant_names: list[str] = []
        self.scalar_constants: dict[str, str] = {}  # literal -> its variable
        self.prologue: list[loop_ir.Stmt] = []  # statements at the top of the function
        self.parallel_min_work = parallel_min_work
        self.uses_prange = False
        self.launches_threads = False  # a prange, or a helper that runs one (rt.split_dot)
        self.overwritable: set[tuple[int, int]] = set()  # (id(value), id(node))
        self.reusable: dict[int, Value] = {}  # kernel output -> dead input whose buffer it takes
        self.destinations: dict[int, object] = {}  # kernel output -> the store it writes for
        self.copied: set[int] = set()  # views copied as they are taken, so a store is in place
        self.view_starts: dict[int, tuple] = {}  # run-time views: index with first indices
        self.view_extents: dict[tuple[int, int], str] = {}  # (id(view), axis) -> its length
        # (id(value), axis) -> its run-time extent, where one of 1 stretches
        # (NumPy's broadcasting, checked when it runs): loads read element 0
        self.stretched: dict[tuple[int, int], str] = {}
        self.ranges = ranges
        self._bound: set[str] = set()  # loop variables an enclosing row loop already runs
        self._in_prange = False
        self.regions = regions(self) if regions is not None else None  # (last: it reads self)

    def constant_arg(self, value: np.ndarray) -> str:
        self.constants.append(value)
        self.constant_names.append(self.fresh(f"const{len(self.constants) - 1}"))
        return self.constant_names[-1]

    def scalar_constant(self, value: Value, text: str) -> None:
        """``value`` as a variable holding the literal ``text``, assigned once
        at the top of the function however often the graph holds it."""
        if text not in self.scalar_constants:
            self.scalar_constants[text] = self.fresh("k")
            self.prologue.append(loop_ir.Assign(self.scalar_constants[text], text, pure=True))
        self.alias(value, self.scalar_constants[text])

    def take(self, decisions) -> None:
        """Add one block's in-place decisions (``in_place.decide``)."""
        self.overwritable |= decisions.overwritable
        self.copied |= decisions.copied
        self.destinations.update(decisions.destinations)
        self.reusable.update(decisions.reusable)

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
        return name if self.layout(value) in "CF" else contiguous(name)

    # ------------------------------------------------------------ statements

    def emit(self, stmt: loop_ir.Stmt) -> loop_ir.Stmt:
        self._open[-1].append(stmt)
        return stmt

    def line(self, text: str) -> None:
        """A statement as source text (one the loop IR does not model)."""
        self.emit(loop_ir.Line(text))

    def assign(self, target: str, expr: str) -> None:
        self.emit(loop_ir.Assign(target, expr))

    def pure(self, target: str, expr: str) -> None:
        """``target = expr``, an expression with no effect (a view, an element
        of an array, index arithmetic): dropped if nothing reads ``target``."""
        self.emit(loop_ir.Assign(target, expr, pure=True))

    def view(self, value: Value, expr: str, layout: str = "C") -> None:
        """Define ``value`` as ``expr``, an expression with no effect."""
        self.pure(self.define(value, layout=layout), expr)

    def store(self, array: str, index: Sequence[str], expr: str) -> None:
        self.emit(loop_ir.Store(array, tuple(index), expr))

    def raise_(self, exception: str) -> None:
        self.emit(loop_ir.Raise(exception))

    def comment(self, text: str) -> None:
        self.emit(loop_ir.Comment(comment_text(text)))

    def allocate(self, text: str) -> None:
        """An assignment allocating a kernel's output (row loops hoist it)."""
        self.emit(loop_ir.Assign(*_assignment(text), allocates=True))

    def scratch(self, text: str) -> None:
        """An assignment allocating a fixed-size scratch buffer: once per call,
        or once per thread inside a parallel loop (``loop_passes.place_scratch``)."""
        self.emit(loop_ir.Scratch(*_assignment(text)))

    @contextmanager
    def _inside(self, block: list):
        self._open.append(block)
        try:
            yield
        finally:
            self._open.pop()

    def if_(self, test: str):
        return self._inside(self.emit(loop_ir.If(test)).body)

    def else_(self):
        """The else branch of the ``if_`` just closed."""
        branch = self._open[-1][-1]
        assert isinstance(branch, loop_ir.If) and branch.orelse is None
        branch.orelse = []
        return self._inside(branch.orelse)

    def while_(self, test: str):
        return self._inside(self.emit(loop_ir.While(test)).body)

    def for_(self, var: str, stop: Extent, start: Extent = 0, step: Extent = 1):
        """A serial ``for var in range(start, stop, step)``."""
        return self._inside(self.emit(loop_ir.Loop(var, stop, start=start, step=step)).body)

    # ------------------------------------------------------------ loop nests

    def runs_parallel(self, extents: list[tuple[str, Extent]], work: int | None) -> bool:
        """Whether ``loops(extents, work)`` makes its outermost loop a prange."""
        extents = [e for e in extents if e[0] not in self._bound]
        return bool(self.parallel_min_work is not None and work is not None
                    and not self._in_prange  # numba runs a nested prange serially
                    and work >= self.parallel_min_work and extents
                    and isinstance(extents[0][1], int) and extents[0][1] > 1)

    @contextmanager
    def _parallel(self):
        self.uses_prange = self.launches_threads = True
        saved, self._in_prange = self._in_prange, True
        try:
            yield
        finally:
            self._in_prange = saved

    @contextmanager
    def thread_blocks(self, var: str, extent: int, per_thread: Sequence[str] = ()):
        """``for var in range(extent)`` split into one contiguous block per
        thread (a ``numba.prange`` over the thread blocks); the ``per_thread``
        assignments (a buffer's allocation) run once per block, before it."""
        loop = loop_ir.Loop(var, extent, parallel=True, blocks=True,
                            per_thread=[loop_ir.Assign(*_assignment(t)) for t in per_thread])
        with self._parallel(), self._inside(self.emit(loop).body):
            yield

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
    def loops(self, extents: list[tuple[str, Extent]], work: int | None = 0,
              rows: bool = False):
        """Nested ``for var in range(extent)`` loops, outermost first.

        With ``work`` (elements processed by the whole nest) at or above the
        parallel threshold, the outermost loop is a ``numba.prange``: callers
        pass ``work`` only for nests whose outer iterations are independent.
        ``rows``: the outermost loop is a row loop (its kernels' outputs are
        allocated before it).
        """
        parallel = self.runs_parallel(extents, work)
        extents = [e for e in extents if e[0] not in self._bound]
        depth = len(self._open)
        saved = self._in_prange
        try:
            for k, (var, extent) in enumerate(extents):
                loop = loop_ir.Loop(var, extent, parallel=parallel and k == 0,
                                    rows=rows and k == 0)
                self._open.append(self.emit(loop).body)
                if loop.parallel:
                    self.uses_prange = self.launches_threads = self._in_prange = True
            yield
        finally:
            del self._open[depth:]
            self._in_prange = saved

    @contextmanager
    def capture(self):
        """Statements emitted inside go to the list yielded, not to the function."""
        block: list[loop_ir.Stmt] = []
        with self._inside(block):
            yield block

    def function(self, name: str, params: Sequence[str]) -> loop_ir.Function:
        """The function emitted so far, after the loop passes; its parameters
        are ``params`` then the array constants."""
        fn = loop_ir.Function(name, list(params), self.body, self.fresh, self.constant_arg,
                              self.constant_names, self.parallel_min_work, self.uses_prange,
                              prologue=list(self.prologue))
        loop_passes.run_passes(fn)
        self.launches_threads |= fn.uses_prange or bool(fn.helpers)
        self.uses_prange = fn.uses_prange  # (its parallel loops may be helpers now)
        return fn
