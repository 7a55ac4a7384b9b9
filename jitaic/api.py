"""``jit`` and JitFunction: the call path, the per-shape cache and its inspection.

A call flattens the arguments, builds the cache key (shape, dtype, layout and
writeability of every array; the value of every static argument), and either
runs the compiled entry function or traces, lowers and compiles a new
specialisation for that key.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
import time
import types
import warnings
from collections import namedtuple
from collections.abc import Callable, Sequence
from concurrent.futures import wait
from typing import TYPE_CHECKING

import numpy as np

from jitaic import config, serialize
from jitaic.errors import (
    ConcretizationError,
    RecompileWarning,
    StaticArgumentNeeded,
    at,
    user_stacklevel,
)
from jitaic.generated_calls import check_call, direct_class, hot_class, identifier
from jitaic.ir.graph import Graph, GraphTooLarge
from jitaic.ir.verifier import verify
from jitaic.lowered import Lowered
from jitaic.passes.pipeline import PassLog, optimize
from jitaic.scale import has_dask_arrays
from jitaic.specialization import LIVE_FUNCTIONS, Specialization, output_converters
from jitaic.tracer.core import is_tracing
from jitaic.tracer.numpy_proxy import Converter, traceable
from jitaic.tracer.trace import (
    Traced,
    array_key,
    check_leaf,
    flatten,
    is_traced,
    leaf_key,
    trace,
)

if TYPE_CHECKING:  # jitaic.lower imports numba: loaded on the first compile
    pass

log = logging.getLogger("jitaic")
# misses = compiled + loaded (from the disk cache) + traced only (reference backend)
CacheInfo = namedtuple("CacheInfo", "hits misses entries compile_seconds compiled loaded")
MODES = ("auto", "trace", "ast")
COMPILE_MODES = ("sync", "background")

# In auto mode a trace that records more nodes than this is redone with the
# AST frontend (Python loops over ranges or rows unroll while tracing: 10 000
# rows would mean 30 000 nodes and minutes of numba compile).
AUTO_UNROLL_NODES = 64

# A function that compiled this many specialisations, the last for a new
# shape of the same argument, warns once (RecompileWarning).
RECOMPILES_WARNING = 16

# Specialisations of one function its compiled dispatcher serves (each new one
# recompiles the dispatcher, ~0.1 s a distinct argument-type signature).
MAX_HOT = 8


class JitFunction:
    """A function compiled per argument shapes, dtypes, layouts and static values."""

    def __init__(self, fn: Callable, mode: str = "auto", static_argnums=(),
                 static_argnames=(), parallel: bool = True, compile: str | None = None,
                 callbacks: bool | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if compile not in (None, *COMPILE_MODES):
            raise ValueError(f"compile must be one of {COMPILE_MODES}, got {compile!r}")
        self._compile_mode = compile  # None: the compile knob's value when compiling
        self._callbacks = callbacks  # None: the callbacks knob's value when tracing
        LIVE_FUNCTIONS.add(self)
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._mode = mode
        self._parallel = parallel
        self._signature = inspect.signature(fn)
        names = list(self._signature.parameters)
        argnums = (static_argnums,) if isinstance(static_argnums, int) else static_argnums
        argnames = (static_argnames,) if isinstance(static_argnames, str) else static_argnames
        self._static_names = frozenset(argnames) | {names[i] for i in argnums}
        self._simple = all(p.kind == p.POSITIONAL_OR_KEYWORD
                           for p in self._signature.parameters.values())
        self._n_params = len(names)
        self._static_mask = tuple(n in self._static_names for n in names)
        # arguments made static while tracing, and why (a Python float whose
        # value Python asked for: range(int(n)))
        self._static_why: dict[str, str] = {}
        self._cache: dict[tuple, Specialization] = {}
        self._order: list[Specialization] = []
        self._misses = 0
        self._compiled = self._loaded = 0  # of the misses (evicted ones included)
        self._warned_recompiles = False
        self._lock = threading.Lock()
        # Fast path: calls whose arguments are all NumPy arrays/scalars, keyed
        # by a cheap key and mapped straight to the compiled entry function.
        self._fast_ok = self._simple and not any(self._static_mask)
        self._fast: dict[tuple, tuple[Specialization, Callable]] = {}
        # Hot path: specialisations called often join a compiled dispatcher
        # (lower/dispatch.py) that a generated __call__ tries first.
        # with the argument shapes (a scalar argument: its type)
        self._hot: list[tuple[Specialization, tuple]] = []
        self._hot_counts = np.zeros(MAX_HOT, np.int64)

    # ------------------------------------------------------------ pickling
    def __reduce__(self) -> tuple:
        """By reference when its module names it, else its function (by value
        if need be) and options: jitaic/serialize.py."""
        options = {"mode": self._mode, "static_argnames": tuple(sorted(self._static_names)),
                   "parallel": self._parallel, "compile": self._compile_mode,
                   "callbacks": self._callbacks}
        return serialize.by_name(self) or serialize.rebuilt_once(_rebuilt, self._fn, options)

    # ------------------------------------------------------------ calling
    def __call__(self, *args, **kwargs):
        if not kwargs and self._fast_ok and not config.overridden_or_disabled():
            try:
                key = tuple([_fast_key(a) for a in args])
            except AttributeError:  # not all NumPy values: the general path
                pass
            else:
                hit = self._fast.get(key)
                if hit is not None and (len(args) < 2 or (
                        len(set(map(id, args))) == len(args)
                        and not (hit[0].graph.updates and _writes_shared_memory(hit[0], args)))):
                    spec = hit[0]
                    spec._hits += 1
                    if spec._hits == spec._promote_at:
                        self._promote(spec, args)
                    return hit[1](args)
        return self._call(args, kwargs)

    def _call(self, args: tuple, kwargs: dict):
        if is_tracing():  # called from another traced function: inline it
            return traceable(self._fn)(*args, **kwargs)
        if config.get("disable_jit"):
            return self._fn(*args, **kwargs)
        if has_dask_arrays(args, kwargs):
            from jitaic.scale import dask_arrays

            return dask_arrays.call(self, args, kwargs)
        args, kwargs, static = self._bind(args, kwargs)
        key, leaves = self._key(args, kwargs, static)
        spec = self._cache.get(key)
        if spec is None:
            spec = self._specialize(key, args, kwargs, static, leaves)
            if spec.key != key:  # an argument became static while tracing
                args, kwargs, static = self._bind(args, kwargs)
                key, leaves = self._key(args, kwargs, static)
        else:
            spec._hits += 1
        if spec.pending and not self._finish_background(spec):
            if not spec.worth_waiting():
                return self._run_meanwhile(spec, args, kwargs, leaves)
            wait([spec._pending])
            self._finish_background(spec)
        if _writes_shared_memory(spec, leaves):
            log.info("%s: arguments share memory with one it writes; running it with "
                     "NumPy for this call", self._shown_name)
            return self._fn(*args, **kwargs)
        if self._remember_fast(args, kwargs, leaves, spec) and spec._hits == spec._promote_at:
            self._promote(spec, args)
        return spec.run(leaves)

    def _finish_background(self, spec: Specialization) -> bool:
        """Whether the background compile of ``spec`` is done; a compile that
        failed raises its error here, on every call."""
        with self._lock:
            pending = spec._pending
            if pending is None:
                return True
            if not pending.done():
                return False
            pending.result()
            spec._pending = None
            self._count_compile(spec)
        return True

    def _run_meanwhile(self, spec: Specialization, args: tuple, kwargs: dict,
                       leaves: list) -> object:
        """A call while its specialisation compiles: the user's own function
        (NumPy's semantics, mutation included), or for transformed functions
        (gradients), which mean nothing as plain Python, the reference
        interpreter over the graph."""
        start = time.perf_counter()
        try:
            if getattr(self._fn, "traced_only", False):
                return spec.interpret(leaves)
            return self._fn(*args, **kwargs)
        finally:
            spec._meanwhile_seconds = time.perf_counter() - start

    def _count_compile(self, spec: Specialization) -> None:
        self._loaded += spec.from_disk
        self._compiled += not spec.from_disk
        _log_compile(self._shown_name, spec)

    def _remember_fast(self, args, kwargs, leaves, spec: Specialization) -> bool:
        eligible = (self._fast_ok and not kwargs and spec.compiled is not None
                    and len(leaves) == len(args)
                    and all(type(a) is np.ndarray or isinstance(a, (np.generic, float))
                            for a in args))
        if eligible:
            self._fast[tuple(_fast_key(a) for a in args)] = (spec, spec.runner())
            if spec._promote_at is None:  # -1: never
                hot_calls = config.get("hot_calls")
                spec._promote_at = max(spec._hits, 1) + hot_calls - 1 if hot_calls > 0 else -1
        return eligible

    # ------------------------------------------------------------ hot path
    def _promote(self, spec: Specialization, args: tuple) -> None:
        """Serve a specialisation called this often from the compiled dispatcher."""
        from jitaic.lower.dispatch import DIRECT_CALLS, HotEntry
        from jitaic.lower.dispatch import build as build_dispatcher

        spec._promote_at = -1  # decided once
        with self._lock:
            if not self._hot_eligible(spec, args):
                return
            slot = len(self._hot)
            hot = [*self._hot, (spec, tuple(a.shape if type(a) is np.ndarray else type(a)
                                            for a in args))]
            entries = [HotEntry(s.compiled.entry, shapes, self._hot_counts.ctypes.data + 8 * k)
                       for k, (s, shapes) in enumerate(hot)]
            params = self._signature.parameters.values()
            # numba's C dispatcher takes a Python float, np.float64 or an int
            # for a float64 parameter, which NumPy types differently: only a
            # Python frame can check a scalar argument's exact type
            scalars = {i: shape for _, shapes in hot for i, shape in enumerate(shapes)
                       if isinstance(shape, type)}
            direct = spec.entry_result_kind is np.ndarray and DIRECT_CALLS and not scalars
            built = build_dispatcher(
                identifier(self.__name__), [p.name for p in params],
                tuple(p.default for p in params if p.default is not p.empty), entries,
                fallback=functools.partial(JitFunction.__call__, self) if direct else None)
            if built is None or slot not in built[1]:  # not compiled, or a result type apart
                return
            self._hot = hot
            spec._hot_counter = self._hot_counts[slot:slot + 1]
            self.__class__ = (direct_class(JitFunction, built[0]) if direct else
                              hot_class(JitFunction, self, built[0],
                                        spec.entry_result_kind, scalars))

    def _hot_eligible(self, spec: Specialization, args: tuple) -> bool:
        """Arrays, Python floats and NumPy scalars in, each scalar parameter
        of one type in every hot specialisation; out one array, or one
        scalar, of the same kind as the other hot specialisations'; nothing
        written in place; names we can use."""
        kind = spec.entry_result_kind if spec.compiled is not None else None
        return (len(self._hot) < MAX_HOT and all(spec is not s for s, _ in self._hot)
                and kind is not None
                and all(s.entry_result_kind is kind for s, _ in self._hot)
                and not spec.graph.updates
                and all(type(a) is np.ndarray or type(a) is float or isinstance(a, np.generic)
                        for a in args)
                and not any(isinstance(shapes[i], type) and shapes[i] is not type(a)
                            for _, shapes in self._hot for i, a in enumerate(args)
                            if type(a) is not np.ndarray)
                and not config.get("disable_jit")
                and not any(name.startswith("_jitaic_") for name in self._signature.parameters))

    def _bind(self, args: tuple, kwargs: dict) -> tuple[tuple, dict, tuple]:
        if self._simple and not kwargs and len(args) == self._n_params:
            return args, kwargs, self._static_mask
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError:
            check_call(self._fn, self._signature, args, kwargs)
            raise
        if not isinstance(self._fn, np.ufunc):  # jit(np.sign): NumPy refuses dtype= and
            bound.apply_defaults()               # signature= together, even as None
        names = self._positional_names(len(bound.args))
        static = tuple(n in self._static_names for n in names)
        return bound.args, bound.kwargs, static

    def _positional_names(self, n: int) -> list[str]:
        """The parameter name of each of ``n`` bound positional values (*args too)."""
        names: list[str] = []
        for p in self._signature.parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                names.append(p.name)
            elif p.kind == p.VAR_POSITIONAL:
                names.extend(f"{p.name}{i}" for i in range(n - len(names)))
        return names[:n]

    def _key(self, args, kwargs, static) -> tuple[tuple, list]:
        """The cache key and the traced leaves (the entry function's arguments)."""
        parts, leaves = [], []
        items = [(a, s) for a, s in zip(args, static, strict=True)]
        items += [(kwargs[k], k in self._static_names) for k in sorted(kwargs)]
        for value, is_static in items:
            if type(value) is np.ndarray and not any(value is y for y in leaves):
                parts.append(array_key(value))  # fast path: a plain array argument
                leaves.append(value)
                continue
            if is_static:
                parts.append(("static", _hashable(value)))
                continue
            flat, treedef = flatten(value)
            keys = []
            for x in flat:
                k = leaf_key(x)
                if is_traced(k):
                    if k[0] == "array" and any(x is y for y in leaves):
                        k = ("alias", next(i for i, y in enumerate(leaves) if x is y))
                    else:
                        leaves.append(x)
                keys.append(k)
            parts.append((treedef, tuple(keys)))
        key = (tuple(parts), tuple(sorted(kwargs)))
        try:
            hash(key)
        except TypeError:
            self._check_arguments(args, kwargs, static)
            raise
        return key, leaves

    def _check_arguments(self, args, kwargs, static) -> None:
        names = self._positional_names(len(args))
        named = [(names[i], a, s)
                 for i, (a, s) in enumerate(zip(args, static, strict=True))]
        named += [(k, v, k in self._static_names) for k, v in kwargs.items()]
        for name, value, is_static in named:
            if not is_static:
                for leaf in flatten(value)[0]:
                    check_leaf(leaf, name)

    # ------------------------------------------------------------ compiling
    def _specialize(self, key, args, kwargs, static, leaves) -> Specialization:
        try:
            return self._specialize_traced(key, args, kwargs, static, leaves)
        except StaticArgumentNeeded as exc:
            if not self._make_static(exc.name, str(exc)):
                raise
        args, kwargs, static = self._bind(args, kwargs)
        key, leaves = self._key(args, kwargs, static)
        return self._cache.get(key) or self._specialize(key, args, kwargs, static, leaves)

    def _make_static(self, name: str, why: str) -> bool:
        """Specialise on the value of argument ``name`` from now on; False when
        it is no argument of its own (a leaf of a tuple argument)."""
        if name not in self._signature.parameters or name in self._static_names:
            return False
        with self._lock:
            self._static_names = self._static_names | {name}
            self._static_mask = tuple(n in self._static_names for n in self._signature.parameters)
            self._static_why[name] = why
            self._fast_ok = False
            self._fast.clear()
        return True

    def _specialize_traced(self, key, args, kwargs, static, leaves) -> Specialization:
        with self._lock:
            if key in self._cache:
                return self._cache[key]
            self._check_arguments(args, kwargs, static)
            start = time.perf_counter()
            traced, frontend, reason = self._trace(args, kwargs, static)
            self._misses += 1
            if config.get("checks"):
                verify(traced.graph)
            traced_at = time.perf_counter()
            pass_log = PassLog()
            traced.graph = optimize(traced.graph, log=pass_log)
            self._check_writeable(traced.graph, leaves)
            optimised_at = time.perf_counter()
            spec = Specialization(key, traced, frontend, optimised_at - start,
                                  self._parallel, pass_seconds=optimised_at - traced_at,
                                  pass_log=pass_log, frontend_reason=reason)
            spec._converters = output_converters(traced)
            spec.fn = self._fn
            background = ((self._compile_mode or config.get("compile")) == "background"
                          and not _has_scalar_loop(traced.graph))
            if config.get("backend") == "reference":
                _log_compile(self._shown_name, spec)
            elif background:
                spec.compile_in_background(leaves)
            else:
                spec.compile(leaves)
                self._count_compile(spec)
            self._make_room()
            self._warn_if_recompiling(spec, len(args))
            self._cache[key] = spec
            self._order.append(spec)
            return spec

    def _make_room(self) -> None:
        """Keep at most ``max_specializations`` in memory (each holds its
        machine code, ~3 MB): evict by the clock algorithm, an approximation
        of least recently used that costs calls nothing. The oldest
        specialisation goes unless it was called since the last pass (it then
        moves to the back); hot ones stay."""
        limit = int(config.get("max_specializations"))
        while 0 < limit <= len(self._order):
            for _ in range(2 * len(self._order)):
                spec = self._order.pop(0)
                if not spec.hot and spec.hits == spec._seen_hits:
                    break
                spec._seen_hits = spec.hits
                self._order.append(spec)
            else:
                return  # all hot
            del self._cache[spec.key]
            self._fast = {k: v for k, v in self._fast.items() if v[0] is not spec}

    def _warn_if_recompiling(self, spec: Specialization, n_positional: int) -> None:
        """Once per function: many specialisations, the newest for new shapes
        of arguments the previous one also had (a loop over growing inputs,
        say): each compiles for seconds."""
        if self._warned_recompiles or self._misses < RECOMPILES_WARNING or not self._order:
            return
        previous = self._order[-1].key
        if previous[1] != spec.key[1] or len(previous[0]) != len(spec.key[0]):
            return
        names = self._positional_names(n_positional) + list(spec.key[1])
        changed = [name for name, a, b in zip(names, previous[0], spec.key[0]) if a != b]
        if not changed:
            return
        self._warned_recompiles = True
        code = getattr(self._fn, "__code__", None)
        where = f" ({_printable(code.co_filename)}:{code.co_firstlineno})" if code else ""
        warnings.warn(
            f"jitaic compiled {self._shown_name}{where} {self._misses} times, the last "
            f"for new shapes or types of argument(s) {', '.join(map(repr, changed))}: each "
            f"new shape compiles again (seconds each). Pad inputs to a few sizes, or keep "
            f"the changing size out of the jitted function.", RecompileWarning,
            stacklevel=user_stacklevel())

    @property
    def mode(self) -> str:
        """How it traces: "auto", "trace" or "ast"."""
        return self._mode

    def trace_only(self, *args, **kwargs) -> Traced:
        """The function traced for these arguments (its graph before any pass,
        and how results are rebuilt); nothing is compiled (``jitaic.scale``
        reads it to run on dask arrays)."""
        args, kwargs, static = self._bind(args, kwargs)
        return self._trace(args, kwargs, static)[0]

    def _trace(self, args, kwargs, static) -> tuple[Traced, str, str]:
        """Trace with the tracer; in auto mode, redo it with the AST frontend when
        Python control flow needs a traced value. Returns the traced function,
        the frontend that made it and why that one (``explain`` shows it).
        Only the warnings of the last attempt are shown: the user's line
        traced twice would warn twice."""
        attempts = _TraceAttempts()
        try:
            if self._callbacks is None:
                return self._trace_with_frontends(attempts, args, kwargs, static)
            with config.override(callbacks=self._callbacks):
                return self._trace_with_frontends(attempts, args, kwargs, static)
        except StaticArgumentNeeded:
            attempts.last_warnings.clear()  # traced again, with the argument static
            raise
        finally:
            attempts.show_last_warnings()

    def _trace_with_frontends(self, attempts: _TraceAttempts, args, kwargs,
                              static) -> tuple[Traced, str, str]:
        names = self._positional_names(len(args))
        with_ast = Converter(transform=_ast_converted)

        def traced(converter=None, max_nodes=None) -> Traced:
            return attempts.run(trace, self._fn, args, kwargs, names, static,
                                self._static_names, converter, max_nodes=max_nodes)

        if self._mode == "ast":
            return traced(with_ast), "ast", 'mode="ast"'
        budget = AUTO_UNROLL_NODES if self._mode == "auto" else None
        try:
            return traced(max_nodes=budget), "trace", (
                'mode="trace"' if self._mode == "trace" else
                "auto: no Python control flow depends on a traced value")
        except StaticArgumentNeeded:
            raise  # _specialize traces again with the argument static
        except ConcretizationError as exc:
            if self._mode == "trace":
                raise
            return traced(with_ast), "ast", f"auto: {str(exc).splitlines()[0]}"
        except GraphTooLarge:
            pass
        # A big trace is usually a Python loop being unrolled: the AST frontend
        # keeps it one loop (a smaller graph, a faster compile).
        unrolled = (f"auto: the trace passed {AUTO_UNROLL_NODES} nodes (a Python loop "
                    f"unrolling)")
        try:
            return traced(with_ast), "ast", f"{unrolled}; the AST frontend keeps loops"
        except Exception as exc:  # the plain trace is still correct: use it
            log.debug("%s: AST frontend failed (%s); tracing in full", self._shown_name, exc)
            failed = f"{unrolled}; the AST frontend failed ({exc}): traced in full"
        return traced(), "trace", failed

    @staticmethod
    def _check_writeable(graph: Graph, leaves: Sequence[object]) -> None:
        for index, value in graph.updates.items():
            leaf = leaves[index]
            if isinstance(leaf, np.ndarray) and not leaf.flags.writeable:
                loc = value.producer.loc if value.producer else None
                raise ValueError(f"assignment destination is read-only: argument "
                                 f"{graph.params[index].name!r} is a read-only array"
                                 f"{at(loc)}")

    # ------------------------------------------------------------ inspection
    def cache_info(self) -> CacheInfo:
        hits = sum(s.hits for s in self._order)
        seconds = sum(s.compile_seconds + s.trace_seconds for s in self._order)
        return CacheInfo(hits, self._misses, len(self._cache), seconds, self._compiled,
                         self._loaded)

    def specializations(self) -> list[Specialization]:
        return list(self._order)

    def lower(self, *args, **kwargs) -> Lowered:
        """The specialisation these arguments select, compiled unless the
        reference backend is on (``source()`` is empty then)."""
        args, kwargs, static = self._bind(args, kwargs)
        key, leaves = self._key(args, kwargs, static)
        spec = self._cache.get(key) or self._specialize(key, args, kwargs, static, leaves)
        if spec.key != key:  # an argument became static while tracing
            key, leaves = self._key(*self._bind(args, kwargs))
        if spec.pending:
            wait([spec._pending])
            self._finish_background(spec)
        if spec.compiled is None and config.get("backend") != "reference":
            spec.compile(leaves)  # traced earlier under the reference backend
        return Lowered(spec)

    def clear_cache(self) -> None:
        self.__class__ = JitFunction  # drops the compiled dispatcher
        self._hot.clear()
        self._hot_counts[:] = 0
        self._fast.clear()
        self._cache.clear()
        self._order.clear()
        self._misses = self._compiled = self._loaded = 0

    @property
    def _shown_name(self) -> str:
        return _printable(self.__qualname__)

    def __repr__(self) -> str:
        return f"<jitaic.jit {self.__qualname__} ({len(self._cache)} specializations)>"


class _TraceAttempts:
    """The trace attempts of one specialisation, each with the warnings it
    gave held back."""

    def __init__(self) -> None:
        self.last_warnings: list[warnings.WarningMessage] = []

    def run(self, fn: Callable, *args, **kwargs):
        # (entering catch_warnings resets the registries of warnings shown
        # once per line, so each attempt records its own; filters still apply)
        with warnings.catch_warnings(record=True) as caught:
            try:
                return fn(*args, **kwargs)
            finally:
                self.last_warnings = list(caught)

    def show_last_warnings(self) -> None:
        for w in self.last_warnings:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno,
                                   source=w.source)


def _ast_converted(fn: types.FunctionType) -> types.FunctionType:
    """``fn`` as the AST frontend rewrites it (loaded on first use, as it
    imports astor)."""
    from jitaic.ast_frontend.transform import convert

    return convert(fn).fn


def _fast_key(a: object) -> tuple:
    """Type, shape, dtype and layout of an array; the type of a NumPy scalar
    (it decides the dtype) or a Python float (AttributeError otherwise)."""
    if type(a) is not np.ndarray:
        if type(a) is float or isinstance(a, np.generic):
            return (type(a),)
        raise AttributeError("not a NumPy value or a float")
    flags = a.flags
    return (type(a), a.shape, a.dtype, flags.c_contiguous, flags.f_contiguous,
            flags.writeable)


def _rebuilt(fn: Callable, options: dict) -> JitFunction:
    return JitFunction(fn, **options)


def _has_scalar_loop(graph: Graph) -> bool:
    """Whether the function loops over scalars (``for i in range(n): s += x[i]``):
    its Python version then runs at interpreter speed, and running it while the
    compile goes on would make the first calls slower than waiting (they also
    share the GIL with the compiler). Loops over arrays run at NumPy's speed."""
    for node in graph.walk():
        if node.op.name in ("while_loop", "for_loop"):
            body = [n for region in node.regions for n in region.walk()
                    if n.op.name != "constant"]
            if body and all(v.type.ndim == 0 for n in body for v in n.outputs):
                return True
    return False


def _writes_shared_memory(spec: Specialization, leaves: Sequence[object]) -> bool:
    """Whether the function writes an array argument whose memory another
    argument (not the same object: those are one buffer in the graph) may also
    reach. Compiled code treats distinct arguments as distinct memory, so such
    calls run the function itself, with NumPy's reads and writes."""
    for i in spec.graph.updates:
        if any(j != i and isinstance(y, np.ndarray) and np.may_share_memory(leaves[i], y)
               for j, y in enumerate(leaves)):
            return True
    return False


def _printable(text: str) -> str:
    """A name for logs and warnings: escaped where it holds newlines or other
    unprintable characters (no forged log lines)."""
    return text if text.isprintable() else ascii(text)


def _log_compile(name: str, spec: Specialization) -> None:
    """JITAIC_DEBUG=1 logs each compile (INFO), 2 adds the IR, the graph and
    loop passes' times and the rewrite rules that fired, 3 the generated
    source (DEBUG)."""
    level = config.get("debug")
    if not level:
        return
    log = config.debug_log()
    signature = ", ".join(str(p.type) for p in spec.graph.params)
    compiled = spec.compiled
    if compiled is None:
        log.info("traced %s for (%s) in %.3f s (reference backend)", name, signature,
                 spec.trace_seconds)
    elif compiled.from_disk:
        log.info("loaded %s for (%s) from the disk cache in %.0f ms (traced in %.3f s)",
                 name, signature, 1e3 * compiled.compile_seconds, spec.trace_seconds)
    else:
        log.info("compiled %s for (%s) in %.3f s (trace %.3f, numba typing %.3f, "
                 "LLVM %.3f)", name, signature, spec.trace_seconds + compiled.compile_seconds,
                 spec.trace_seconds, compiled.typing_seconds, compiled.llvm_seconds)
    if level >= 2:
        log.debug("IR of %s:\n%s", name, spec.ir)
        log.debug("graph passes of %s: %s", name, spec.pass_log.summary())
        if compiled is not None:
            times = compiled.loops.pass_seconds.items()
            log.debug("loop passes of %s: %s", name,
                      ", ".join(f"{p} {1e3 * s:.1f} ms" for p, s in times))
    if level >= 3:
        log.debug("generated source of %s:\n%s", name, spec.source)


def _hashable(value: object) -> object:
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"static argument {value!r} must be hashable") from None
    return value


def jit(fn: Callable | None = None, *, mode: str = "auto", static_argnums=(),
        static_argnames=(), parallel: bool = True, compile: str | None = None,
        callbacks: bool | None = None) -> JitFunction | Callable:
    """Compile ``fn`` per argument shapes and dtypes; usable bare or with options.

    With ``parallel`` (the default) the outer loop of a loop nest touching at
    least ``jitaic.lower.compile.PARALLEL_MIN_WORK`` elements runs on the
    cores other processes leave idle (``numba.prange``; ``NUMBA_NUM_THREADS``
    caps the threads; ``JITAIC_FOLLOW_LOAD=0``: always that many; numba's
    ``workqueue`` layer: serial, see lower/threads.py). It changes no
    result: a parallel loop never splits a reduction's accumulation (rows are
    independent), so results equal the serial ones bit for bit.
    ``parallel=False`` keeps every loop serial.

    ``compile="background"``: a new specialisation is traced at once (errors
    such as UnsupportedError surface on the first call) and compiled on a
    worker thread; until its code is ready, calls run ``fn`` itself on their
    arguments (a gradient runs the reference interpreter over its graph),
    unless a call takes long enough that waiting for the compile is cheaper.
    A compile that fails raises on the next call. Functions that loop over
    scalars compile before their first call returns, as with ``"sync"``:
    their Python version is slow. The default is the ``JITAIC_COMPILE`` knob's.

    ``callbacks`` (default: the ``JITAIC_CALLBACKS`` knob's, on): a NumPy
    function jitaic has no lowering for (``np.packbits``, ``np.pad``'s statistic modes)
    is computed by NumPy, called back from the compiled code, and logged
    once per call site; ``callbacks=False`` refuses it (UnsupportedError).
    """
    if fn is None:
        return functools.partial(jit, mode=mode, static_argnums=static_argnums,
                                 static_argnames=static_argnames, parallel=parallel,
                                 compile=compile, callbacks=callbacks)
    return JitFunction(fn, mode, static_argnums, static_argnames, parallel, compile, callbacks)
