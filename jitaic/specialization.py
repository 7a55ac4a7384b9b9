"""One compiled specialisation of a jitted function: its traced graph, its
compiled code (or a background compile of it), and how its results are
rebuilt for the caller; what ``JitFunction.specializations()`` reports."""

from __future__ import annotations

import functools
import logging
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from jitaic import compiler_thread, config
from jitaic.ir.graph import Graph
from jitaic.ir.interpreter import evaluate
from jitaic.ir.printer import format_graph
from jitaic.passes.pipeline import PassLog
from jitaic.tracer.trace import LEAF, Traced, unflatten

if TYPE_CHECKING:  # jitaic.lower imports numba: loaded on the first compile
    from jitaic.lower.compile import Compiled

log = logging.getLogger("jitaic")
# What a background compile is guessed to take at least (numba: 0.3-2 s).
BACKGROUND_GUESS_S = 0.5

@dataclass
class Specialization:
    """One compiled specialisation: what ``specializations()`` reports."""

    key: tuple
    traced: Traced
    frontend: str
    trace_seconds: float  # tracing and the graph passes
    parallel: bool = True
    pass_seconds: float = 0.0  # of trace_seconds: the graph passes
    pass_log: PassLog | None = None  # each pass's time, the rewrite rules that fired
    frontend_reason: str = ""  # why this frontend (auto mode: why it fell back)
    fn: Callable | None = None
    compiled: Compiled | None = None
    _hits: int = field(default=0, repr=False)           # calls the Python path served
    _hot_counter: np.ndarray | None = field(default=None, repr=False)  # and the compiled one
    _promote_at: int | None = field(default=None, repr=False)  # hits that make it hot
    _converters: list[Callable] = field(default_factory=list, repr=False)
    _seen_hits: int = field(default=0, repr=False)  # hits at the last eviction pass
    _pending: Future | None = field(default=None, repr=False)  # a background compile
    _pending_since: float = field(default=0.0, repr=False)
    _meanwhile_seconds: float = field(default=0.0, repr=False)  # the last call meanwhile

    @property
    def hot(self) -> bool:
        """Served by the function's compiled dispatcher (see ``hot_calls``)."""
        return self._hot_counter is not None

    @property
    def hits(self) -> int:
        """Cached calls this specialisation served."""
        hot = 0 if self._hot_counter is None else int(self._hot_counter[0])
        return self._hits + hot

    @property
    def graph(self) -> Graph:
        return self.traced.graph

    @property
    def ir(self) -> str:
        return format_graph(self.graph)

    @property
    def source(self) -> str:
        return self.compiled.source if self.compiled else ""

    @property
    def compile_seconds(self) -> float:
        return self.compiled.compile_seconds if self.compiled else 0.0

    @property
    def from_disk(self) -> bool:
        """Its machine code was loaded from ``JITAIC_CACHE_DIR``, not compiled."""
        return bool(self.compiled and self.compiled.from_disk)

    def compile(self, leaves: Sequence[object]) -> None:
        """Lower and compile for these argument leaves (arrays vs scalars)."""
        from jitaic.lower.compile import compile_graph  # numba loads on the first compile

        _watch_unsafe_forks()
        is_array = [isinstance(x, np.ndarray) for x in leaves]
        self.compiled = compile_graph(self.graph, is_array, leaves, self.parallel)

    def compile_in_background(self, leaves: Sequence[object]) -> None:
        """Start compiling on the compiler thread. The leaves' types and
        layouts are all it reads, so the caller may go on using them."""
        self._pending_since = time.perf_counter()
        self._pending = compiler_thread.submit(self.compile, list(leaves))

    def worth_waiting(self) -> bool:
        """Whether to wait for the compile rather than run the function itself
        again: when one such call takes a quarter of what the compile may still
        take (guessed as long as it has run, and at least BACKGROUND_GUESS_S).
        A Python-heavy call also slows the compile down (they share the GIL)."""
        remaining = max(time.perf_counter() - self._pending_since, BACKGROUND_GUESS_S)
        return self._meanwhile_seconds >= 0.25 * remaining

    @property
    def pending(self) -> bool:
        """Compiling in the background, or failed there (the next call raises)."""
        return self._pending is not None

    @property
    def entry_result_kind(self) -> type | None:
        """What the result is made of when it is the entry's first output alone:
        ``np.ndarray`` (passed on as it is), a NumPy scalar type (numba returns
        a Python number, converted to it), or None (anything else)."""
        if self.traced.out_tree != LEAF or self.compiled.constants:
            return None
        described = self.traced.out_leaves[0]
        if described[0] != "result" or described[1] != 0 or described[3] is not None \
                or described[4] is not None:
            return None
        value = self.graph.results[0]
        if value.type.ndim > 0:
            return np.ndarray
        return value.dtype.type if described[2] else None

    def runner(self) -> Callable[[Sequence[object]], object]:
        """The cheapest call of the compiled entry for argument leaves."""
        if self.entry_result_kind is np.ndarray:
            entry = self.compiled.entry
            return lambda leaves: entry(*leaves)[0]
        return self.run

    def run(self, leaves: Sequence[object]) -> object:
        if config.get("backend") == "reference":
            return self.interpret(leaves)
        if self.compiled is None:  # traced under the reference backend
            self.compile(leaves)
        return self._converted(self.compiled(*leaves), leaves)

    def interpret(self, leaves: Sequence[object]) -> object:
        """Run the graph with the NumPy reference interpreter."""
        raw, updates = evaluate(self.graph, *leaves)
        for index, value in updates.items():
            leaves[index][...] = value
        return self._converted(raw, leaves)

    def _converted(self, raw: object, leaves: Sequence[object]) -> object:
        if self.traced.out_tree == LEAF:
            return self._converters[0](raw, leaves)
        return unflatten(self.traced.out_tree, [c(raw, leaves) for c in self._converters])


def output_converters(traced: Traced) -> list[Callable]:
    """How each output leaf is rebuilt from the entry function's raw results
    (and the argument leaves: an argument returned as itself is the caller's
    object, updated in place, as NumPy code returns it)."""
    converters = []
    for described in traced.out_leaves:
        if described[0] == "static":
            converters.append(lambda raw, leaves, v=described[1]: v)
            continue
        _, i, as_scalar, argument, kind = described
        value = traced.graph.results[i]
        dtype = value.dtype
        if argument is not None:
            converters.append(lambda raw, leaves, k=argument: leaves[k])
        elif kind is not None:  # a scalar on some paths, a 0-d array on others
            converters.append(lambda raw, leaves, i=i, k=kind, d=dtype:
                              d.type(raw[i]) if raw[k] else np.array(raw[i], dtype=d))
        elif as_scalar:
            converters.append(lambda raw, leaves, i=i, t=dtype.type: t(raw[i]))
        elif value.type.ndim == 0:
            converters.append(lambda raw, leaves, i=i, d=dtype: np.array(raw[i], dtype=d))
        else:  # arrays come back from numba with the right dtype
            converters.append(lambda raw, leaves, i=i: raw[i])
    return converters


# The jitted functions alive: a fork after parallel loops ran makes them drop
# their compiled code.
LIVE_FUNCTIONS: weakref.WeakSet = weakref.WeakSet()


@functools.cache
def _watch_unsafe_forks() -> None:
    """In a child forked after parallel loops ran on GNU OpenMP, every
    function forgets its compiled code, which would start parallel regions
    there, and compiles (or loads) serial code (lower/threads.py)."""
    from jitaic.lower import threads

    threads.on_unsafe_fork(lambda: [f.clear_cache() for f in list(LIVE_FUNCTIONS)])
