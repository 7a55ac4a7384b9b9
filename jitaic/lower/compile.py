"""One specialisation -> one generated module -> one ``numba.njit`` entry function.

The generated source is registered with ``linecache`` under a unique file
name, so tracebacks, pdb and ``inspect`` show it like any other module.
"""

from __future__ import annotations

import itertools
import linecache
import re
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from jitaic.errors import CompileError
from jitaic.ir import ops
from jitaic.ir.graph import Graph, Node, Region, Value
from jitaic.ir.int_ranges import IntRanges
from jitaic.lower import blas, buffers, disk_cache, in_place, loop_ir, runtime, threads
from jitaic.lower import control_flow as _control_flow  # noqa: F401  (registers lowerings)
from jitaic.lower.codegen import Emitter, comment_text, copy_of
from jitaic.lower.fusion import (
    FusionGroup,
    Plan,
    RowGroup,
    Scheduled,
    emit_group,
    emit_rows,
    plan,
)
from jitaic.lower.kernels import LOWERINGS

_counter = itertools.count()


@dataclass
class Compiled:
    entry: object  # the numba dispatcher
    source: str
    filename: str
    constants: tuple[np.ndarray, ...]
    compile_seconds: float
    plan: Plan  # which nodes went into which kernel, and why boundaries stayed
    loops: loop_ir.Function  # the entry function as loop IR, before it was text
    from_disk: bool = False  # machine code loaded from JITAIC_CACHE_DIR, not compiled
    render_seconds: float = 0.0  # of compile_seconds: generating the source
    typing_seconds: float = 0.0  # numba's type inference
    llvm_seconds: float = 0.0  # and LLVM's optimisation and code generation

    def __call__(self, *leaves: object) -> tuple:
        return self.entry(*leaves, *self.constants)

    @property
    def report(self) -> str:
        return self.plan.describe()


def _emit_schedule(em: Emitter, schedule: list[Scheduled]) -> None:
    for item in schedule:
        if isinstance(item, RowGroup):
            emit_rows(em, item)
        elif isinstance(item, FusionGroup):
            emit_group(em, item)
        else:
            _lower_node(em, item)


def _lower_node(em: Emitter, node: Node) -> None:
    rule = LOWERINGS.get(node.op)
    if rule is None:
        raise CompileError(f"no lowering for op {node.op.name} (a jitaic bug)")
    if node.loc is not None and node.op is not ops.constant:  # constants go on top
        em.comment(f"{node.op.name}  {node.loc}")
    rule(em, node)


# Loop nests with less work than this stay serial: starting and joining the
# threads of a parallel loop costs ~10-30 us here, paid again on every
# iteration of an enclosing while/for loop (a Newton step over 1e5 elements
# took 50 us parallel vs 27 us serial); 2^18 float64 elements of simple
# arithmetic take ~100 us on one core. Work is elements times their cost
# (kernels.element_cost: exp, tanh, pow... count for several).
PARALLEL_MIN_WORK = 1 << 18


def _has_threaded_product(graph: Graph) -> bool:
    """Whether a float matrix product of the graph may run on several BLAS
    threads. Its loop nests then stay serial: numba's OpenMP workers spin for
    milliseconds after a parallel loop, and on the same cores as the BLAS
    threads each side waits out the other's time slices (a 20000x16 @ 16x32
    product next to a parallel loop took 8 ms instead of 0.3; with serial
    loops the whole k-means step ran 1.9 ms vs NumPy's 2.3). With a
    single-threaded BLAS the products are split over numba's threads instead."""
    for node in graph.walk():
        if node.op is ops.matmul and node.output.dtype.kind == "f":
            a, b = (v.shape for v in node.inputs)
            m = a[-2] if len(a) > 1 else 1
            n = b[-1] if len(b) > 1 else 1
            if blas.runs_threaded(m, n, a[-1]):
                return True
    return False


def generate(graph: Graph, param_is_array: Sequence[bool], parallel: bool = True,
             param_layouts: Sequence[str] | None = None,
             ) -> tuple[loop_ir.Function, Plan, Emitter]:
    """The entry function as loop IR (after the loop passes), the fusion plan
    it follows, and the emitter (names, constants, what the code launches).
    ``param_layouts``: numba's layout of each array argument ("C" if not given)."""
    parallel = parallel and not _has_threaded_product(graph) and threads.parallel_loops_pay()
    em = Emitter(IntRanges(graph), PARALLEL_MIN_WORK if parallel else None, Regions)
    live_out = (*graph.results, *graph.updates.values())
    schedule = plan(graph.nodes, live_out)
    em.take(in_place.decide(schedule, live_out, loop_writes=em.regions.loop_writes,
                            parallel_min_work=em.parallel_min_work))
    arg_names = []
    layouts = param_layouts or ["C"] * len(graph.params)
    for p, is_array, layout in zip(graph.params, param_is_array, layouts, strict=True):
        name = em.define(p, p.name or "arg", layout)
        if p.type.ndim == 0 and is_array:  # 0-d array argument: work on its scalar
            arg_names.append(em.fresh(f"{name}_array"))
            em.line(f"{name} = {arg_names[-1]}[()]")
        else:
            arg_names.append(name)
    _emit_schedule(em, schedule)
    results = [_result(em, graph, v) for v in graph.results]
    _write_updates(em, graph, arg_names)
    em.line(f"return ({''.join(r + ', ' for r in results)})")
    fn = em.function(em.fresh(graph.name or "f"), arg_names)
    return fn, Plan(schedule, em.regions.bodies), em


class Regions:
    """Plans and emits control-flow bodies for the lowerings of cond and
    loops (``em.regions``): each body gets its own schedule, lifetimes and
    in-place decisions."""

    def __init__(self, em: Emitter) -> None:
        self.em = em
        self.bodies: dict[int, list[Scheduled]] = {}  # region -> its schedule
        self._written: dict[int, set[int]] = {}  # region -> carried params stored in place

    def plan(self, region: Region, carried: Sequence[Value] = ()) -> set[int]:
        """Schedule a body (once: a loop lowering, or the block around the
        loop, asks first); returns the ids of the ``carried`` params it stores
        into in place."""
        if id(region) not in self._written:
            schedule = self.bodies[id(region)] = plan(region.nodes, region.results)
            decisions = in_place.decide(schedule, region.results, carried, self.loop_writes,
                                        self.em.parallel_min_work)
            self.em.take(decisions)
            self._written[id(region)] = decisions.written
        return self._written[id(region)]

    def owns(self, output: Value) -> bool:
        """Whether a loop's output is a buffer of the loop's own: the body
        stores into that carried array in place (the loop copies its initial
        value, or takes it over where nothing reads it after)."""
        node = output.producer
        if node.op not in (ops.for_loop, ops.while_loop):
            return False
        params = node.regions[-1].params[1 if node.op is ops.for_loop else 0:]
        return id(params[output.index]) in self.loop_writes(node)

    def loop_writes(self, node: Node) -> set[int]:
        """The carried params a loop's body stores into in place."""
        body = node.regions[-1]
        return self.plan(body, body.params[1:] if node.op is ops.for_loop else body.params)

    def emit(self, region: Region) -> None:
        if id(region) not in self.bodies:
            self.plan(region)
        _emit_schedule(self.em, self.bodies[id(region)])


def _result(em: Emitter, graph: Graph, v: Value) -> str:
    if v.type.ndim and _may_be_an_argument(em, graph, v):
        # Never hand out the caller's buffer (or a view of it); copy before the
        # argument updates are written back.
        name = em.fresh("result")
        em.line(f"{name} = {copy_of(em(v))}")
        return name
    return em(v)


def _may_be_an_argument(em: Emitter, graph: Graph, v: Value) -> bool:
    """Whether ``v`` may be (a view of) an argument's buffer when it runs."""
    return any(root in graph.params for root in ops.memory_roots(v, em.regions.owns))


def _write_updates(em: Emitter, graph: Graph, arg_names: list[str]) -> None:
    staged = []
    for index, v in graph.updates.items():
        source = em(v)
        if v.type.ndim and _may_be_an_argument(em, graph, v):
            source = em.fresh("staged")
            em.line(f"{source} = {copy_of(em(v))}")
        staged.append((index, source))
    for index, source in staged:
        target, shape = arg_names[index], graph.params[index].type.shape
        if not shape:
            em.line(f"{target}[()] = {source}")
            continue
        # explicit loops: numba compiles `target[...] = source` ~10 s slower
        loop_vars = [em.fresh(f"i{d}") for d in range(len(shape))]
        with em.loops(list(zip(loop_vars, shape, strict=True))):
            subscript = ", ".join(loop_vars)
            em.line(f"{target}[{subscript}] = {source}[{subscript}]")


def _module_source(graph: Graph, fn_source: str) -> str:
    # the function's name is user text: a comment, escaped (codegen.comment_text)
    return (f"# Generated by jitaic for {comment_text(graph.name)}. Do not edit.\n"
            f"import numba\nimport numpy as np\n"
            f"from jitaic.lower import blas\n"
            f"from jitaic.lower import buffers as buf\n"
            f"from jitaic.lower import complexmath as cm\n"
            f"from jitaic.lower import lapack\n"
            f"from jitaic.lower import order\n"
            f"from jitaic.lower import runtime as rt\n"
            f"from jitaic.lower import sampling\n"
            f"from jitaic.lower import spectral\n"
            f"from jitaic.lower import vecmath as vm\n\n\n{fn_source}\n")


def _layout(arg: object) -> str:
    """numba's layout letter for an argument (specialisations are per layout)."""
    if not isinstance(arg, np.ndarray) or arg.flags.c_contiguous:
        return "C"
    return "F" if arg.flags.f_contiguous else "A"


@dataclass
class Rendered:
    """A specialisation's generated module, not compiled yet."""
    source: str
    loops: loop_ir.Function  # the entry function as loop IR
    plan: Plan  # the fused kernels it runs
    emitter: Emitter


def render(graph: Graph, param_is_array: Sequence[bool], example_args: Sequence[object],
           parallel: bool = True) -> Rendered:
    """The module generated for these arguments: a pure function of the graph,
    the arguments' types and layouts, and jitaic's code."""
    layouts = [_layout(a) for a in example_args]
    fn, fusion_plan, em = generate(graph, param_is_array, parallel, layouts)
    return Rendered(_module_source(graph, loop_ir.render(fn)), fn, fusion_plan, em)


def compile_graph(graph: Graph, param_is_array: Sequence[bool],
                  example_args: Sequence[object], parallel: bool = True) -> Compiled:
    """Generate, register and compile the entry function for these arguments."""
    start = time.perf_counter()
    rendered = render(graph, param_is_array, example_args, parallel)
    render_seconds = time.perf_counter() - start
    fn_name, source, em = rendered.loops.name, rendered.source, rendered.emitter
    constants = em.constants
    buffers.set_limit()
    directory, from_disk = disk_cache.directory(), False
    if em.launches_threads:
        threads.follow_load()
    try:
        signature = tuple(numba.typeof(a) for a in (*example_args, *constants))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", numba.NumbaPerformanceWarning)
            found = disk_cache.load_or_compile(directory, source, fn_name, signature,
                                               em.uses_prange) if directory else None
            if found:  # None also when the directory may not be used
                entry, from_disk, filename = found
            else:
                filename = f"<jitaic-generated {comment_text(graph.name)}#{next(_counter)}>"
                linecache.cache[filename] = (len(source), None, source.splitlines(True),
                                             filename)
                namespace = {"np": np, "rt": runtime, "numba": numba}
                exec(compile(source, filename, "exec"), namespace)
                entry = numba.njit(error_model="numpy", parallel=em.uses_prange)(
                    namespace[fn_name])
                entry.compile(signature)
    except Exception as exc:
        first = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().splitlines()
        raise CompileError(
            f"internal error: the code generated for {graph.name!r} did not compile "
            f"(a jitaic bug; please report it with the source from "
            f"f.lower(...).source()). Backend message: {first[0] if first else exc}"
        ) from None
    seconds = time.perf_counter() - start
    return Compiled(entry, source, filename, tuple(constants), seconds, rendered.plan,
                    rendered.loops, from_disk, render_seconds, *_numba_seconds(entry))


def _numba_seconds(entry) -> tuple[float, float]:
    """(type inference, LLVM) seconds numba recorded compiling ``entry``'s
    overload (zeros when it was loaded from the disk cache)."""
    metadata = next(iter(entry.overloads.values())).metadata or {}
    passes = metadata.get("pipeline_times", {}).get("nopython", {})
    typing = sum(t.run for name, t in passes.items() if name.endswith("type_inference"))
    return typing, metadata.get("timers", {}).get("llvm_lock", 0.0)
