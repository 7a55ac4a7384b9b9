"""``jitaic.explain(f, *args)``: a report, in words, of what jitaic made of one call.

One report per specialisation: the arguments as the cache key sees them,
which frontend ran and why, the kernels and their boundaries, parallel loops
and threads, BLAS/LAPACK calls, the NumPy functions the generated code calls
(numba's implementations), compile time by stage and where the machine code
came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from jitaic import config
from jitaic.api import JitFunction, jit
from jitaic.ir import ops
from jitaic.picture import library_call
from jitaic.specialization import Specialization
from jitaic.tracer.trace import flatten, leaf_key

# generated code calls NumPy as ``np.name(`` or ``np.module.name(``; numba
# compiles these from its own implementations
_NUMPY_CALL = re.compile(r"\bnp\.((?:[a-z_]+\.)?[a-z_][a-z0-9_]*)\(")
# numba's array functions generated code calls through runtime.py's cached
# wrappers: the wrapper's name, and the NumPy function numba implements
_WRAPPED = {"dot": "dot", "broadcast_to": "broadcast_to",
            "as_strided": "lib.stride_tricks.as_strided"}
_WRAPPED_CALL = re.compile(rf"\brt\.({'|'.join(_WRAPPED)})\(")
# allocations and dtype constructors: not worth a line
_PLUMBING = {"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
             "ascontiguousarray", "asarray", "array", "intp", "uint8", "int8", "int16",
             "int32", "int64", "uint16", "uint32", "uint64", "float32", "float64", "bool_",
             "complex64", "complex128"}


@dataclass
class Explanation:
    """The report (``str()`` it, or read its sections)."""

    sections: list[tuple[str, list[str]]]

    def __str__(self) -> str:
        lines = []
        for title, body in self.sections:
            lines.append(title)
            lines += [f"  {line}" for line in body]
        return "\n".join(lines)

    __repr__ = __str__

    def section(self, title: str) -> list[str]:
        """The lines under the section whose title starts with ``title``."""
        return next(body for t, body in self.sections if t.startswith(title))


def explain(fn: Callable, *args, **kwargs) -> Explanation:
    """Compile ``fn`` for these arguments (or fetch the specialisation they
    select) and report what jitaic did. ``fn`` is a jitted function or a plain
    one (jitted with the default options for the report)."""
    jitted = fn if isinstance(fn, JitFunction) else jit(fn)
    spec = jitted.lower(*args, **kwargs)._spec
    title = f"jitaic.explain: {jitted.__qualname__}"
    sections = [(title, _arguments(jitted, args, kwargs)),
                ("frontend", [f"{spec.frontend}: {spec.frontend_reason}"]),
                ("graph", _graph(spec)),
                ("kernels", _kernels(spec)),
                ("parallel loops", _parallel(spec)),
                ("library calls", _library_calls(spec)),
                ("NumPy calls in compiled code", _numpy_calls(spec)),
                ("compile time", _timings(spec)),
                ("cache", _cache_state(jitted, spec))]
    return Explanation(sections)


def _arguments(jitted: JitFunction, args: tuple, kwargs: dict) -> list[str]:
    args, kwargs, static = jitted._bind(args, kwargs)
    names = jitted._positional_names(len(args))
    named = [*zip(names, args, static), *((k, v, k in jitted._static_names)
                                          for k, v in kwargs.items())]
    lines = []
    for name, value, is_static in named:
        if is_static:
            why = jitted._static_why.get(name, "static_argnames")
            lines.append(f"{name} = {value!r}: static ({why}); a new value compiles again")
            continue
        leaves = flatten(value)[0]
        described = [_describe_leaf(leaf_key(x), x) for x in leaves]
        lines.append(f"{name}: {', '.join(described) if described else 'no arrays'}")
    return lines


def _describe_leaf(key: tuple, value: object) -> str:
    kind = key[0]
    if kind == "array":
        shape, dtype, layout, writeable = key[1:]
        order = {"C": "C-contiguous", "F": "Fortran-contiguous", "A": "strided"}[layout]
        return (f"{dtype}{list(shape)} array, {order}"
                f"{'' if writeable else ', read-only'}")
    if kind == "scalar":
        return f"{key[1]} scalar: traced (a new value reuses the code)"
    if kind == "float":
        return "float: traced (a new value reuses the code)"
    if kind == "generator":
        return "Generator: its draws are made when the code runs (any Generator reuses it)"
    return f"{value!r}: static (part of the cache key; a new value compiles again)"


def _graph(spec: Specialization) -> list[str]:
    nodes = list(spec.graph.walk())
    control = [n for n in nodes if ops.CONTROL_FLOW in n.op.traits]
    lines = [f"{len(nodes)} nodes after the graph passes, {len(control)} loops or branches"]
    if spec.pass_log is not None:
        lines.append(f"passes: {spec.pass_log.summary()}")
    return lines


def _kernels(spec: Specialization) -> list[str]:
    if spec.compiled is None:
        return ["not compiled (the reference backend is on)"]
    return [line for line in spec.compiled.report.splitlines()
            if "(not fused: constant)" not in line]


def _parallel(spec: Specialization) -> list[str]:
    if spec.compiled is None:
        return ["not compiled"]
    loops = spec.source.count("numba.prange(")
    threaded = "rt.split_dot(" in spec.source or "blas.split_matmul(" in spec.source
    if not loops and not threaded:
        return [f"none: {_why_serial(spec)}"]
    import numba

    from jitaic.lower import threads

    lines = []
    if loops:
        lines.append(f"{loops} parallel loop nest(s) (numba.prange)")
    if threaded:
        lines.append("matrix products split in row blocks over threads")
    lines.append(f"up to {numba.get_num_threads()} threads ({numba.threading_layer()} "
                 f"layer), fewer while other processes keep cores busy "
                 f"(JITAIC_FOLLOW_LOAD={'on' if config.get('follow_load') else 'off'}; "
                 f"{threads.available()} free now)")
    return lines


def _why_serial(spec: Specialization) -> str:
    import numba

    from jitaic.lower import compile, threads

    if not spec.parallel:
        return "parallel=False"
    if not threads.parallel_loops_pay():
        return (f"parallel loops are off in this process (numba's "
                f"{numba.threading_layer()} threading layer, or a fork)")
    if compile._has_threaded_product(spec.graph):
        return ("a matrix product runs on several BLAS threads, so loops stay serial "
                "rather than compete with them for the cores")
    return (f"no loop nest does enough work to pay for starting threads "
            f"({compile.PARALLEL_MIN_WORK} elements of simple arithmetic)")


def _library_calls(spec: Specialization) -> list[str]:
    lines = []
    for node in spec.graph.walk():
        library = library_call(node)
        if library:
            shapes = " @ ".join(str(v.type) for v in node.inputs)
            where = f"  ({node.loc})" if node.loc else ""
            lines.append(f"{library}: {node.op.name} {shapes}{where}")
    return lines or ["none"]


def _numpy_calls(spec: Specialization) -> list[str]:
    """Array functions numba implements (np.argsort, np.dot...), not the
    allocations or the ufuncs it compiles inline on scalars."""
    called = {name for name in set(_NUMPY_CALL.findall(spec.source)) - _PLUMBING
              if not isinstance(getattr(np, name, None), np.ufunc)}
    called = sorted(called | {_WRAPPED[name] for name in _WRAPPED_CALL.findall(spec.source)})
    if not called:
        return ["none: every operation is a loop jitaic generated"]
    return [f"numba's np.{name}" for name in called]


def _timings(spec: Specialization) -> list[str]:
    c = spec.compiled
    lines = [f"trace {spec.trace_seconds - spec.pass_seconds:.3f} s, graph passes "
             f"{spec.pass_seconds:.3f} s"]
    if c is not None:
        numba_seconds = c.compile_seconds - c.render_seconds
        lines.append(f"code generation {c.render_seconds:.3f} s, numba {numba_seconds:.3f} s "
                     f"(type inference {c.typing_seconds:.3f} s, LLVM {c.llvm_seconds:.3f} s)")
    return lines


def _cache_state(jitted: JitFunction, spec: Specialization) -> list[str]:
    from jitaic.lower import disk_cache

    directory = disk_cache.directory()
    if spec.compiled is None:
        origin = "not compiled (reference backend)"
    elif spec.from_disk:
        origin = f"machine code loaded from the disk cache ({directory})"
    elif directory:
        origin = f"compiled in this process (disk cache: {directory})"
    else:
        origin = "compiled in this process (disk cache off: JITAIC_CACHE_DIR=off)"
    info = jitted.cache_info()
    return [origin,
            f"this specialisation served {spec.hits} cached call(s)"
            f"{'; hot: the compiled dispatcher calls it' if spec.hot else ''}",
            f"the function has {info.entries} specialisation(s), {info.misses} miss(es)",
            f"generated source: {len(spec.source.splitlines())} lines "
            f"(f.lower(...).source())"]
