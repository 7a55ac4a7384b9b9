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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from jitaic.errors import CompileError
from jitaic.ir import ops
from jitaic.ir.graph import Graph, Node, Region, Value
from jitaic.lower import blas, buffers, disk_cache, loop_ir, runtime, threads
from jitaic.lower import control_flow as _control_flow  # noqa: F401  (registers lowerings)
from jitaic.lower.codegen import Emitter, comment_text
from jitaic.lower.fusion import (
    FusionGroup,
    Plan,
    RowGroup,
    Scheduled,
    emit_group,
    emit_rows,
    kernels,
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


def _memory_root(value: Value) -> Value:
    while value.producer is not None and ops.VIEW in value.producer.op.traits:
        value = value.producer.inputs[0]
    return value


@dataclass
class _Lifetimes:
    position: dict[int, int]  # node -> schedule position
    last_use: dict[int, int]  # value -> the last position reading its buffer
    fresh: set[int]  # values whose buffer nothing else aliases (a node's own output)
    nodes: list[Node]  # in schedule order
    read_itself: dict[int, int]  # value -> the last position reading it, views aside
    views: dict[int, list[Node]]  # value -> the views taken of it (not 0-d element reads)


def _lifetimes(live_out: Sequence[Value], schedule: list[Scheduled]) -> _Lifetimes:
    """When each buffer is last read.

    Positions are schedule positions (a fused group reads all its inputs at its
    own position; a control-flow node reads everything its bodies read). A view
    keeps its base's buffer alive: the base's last use is the latest use of any
    view derived from it (not of an element read, x[i], a number in the
    generated code). Results and updates live to the end.
    """
    position: dict[int, int] = {}
    for p, item in enumerate(kernels(schedule)):  # a row loop's kernels in order
        for node in item.nodes if isinstance(item, FusionGroup) else [item]:
            position[id(node)] = p
    nodes = sorted(position_order(schedule), key=lambda n: position[id(n)])
    last_use: dict[int, int] = {}
    read_itself: dict[int, int] = {}
    views: dict[int, list[Node]] = {}
    for v in live_out:
        last_use[id(_memory_root(v))] = read_itself[id(_memory_root(v))] = len(position) + 1
    for node in reversed(nodes):
        reads = [*node.inputs, *(v for r in node.regions for inner in r.walk()
                                 for v in inner.inputs), *(v for r in node.regions
                                                           for v in r.results)]
        for v in reads:
            use = position[id(node)]
            read_itself[id(v)] = max(read_itself.get(id(v), -1), use)
            if ops.VIEW in node.op.traits and node.outputs[0].type.ndim:
                # (a 0-d "view", x[i], is loaded as a number: it holds no buffer)
                use = max(use, last_use.get(id(node.outputs[0]), use))
                if v is node.inputs[0]:
                    views.setdefault(id(v), []).append(node)
            last_use[id(v)] = max(last_use.get(id(v), -1), use)
    fresh = {id(n.outputs[0]) for n in nodes
             if ops.VIEW not in n.op.traits and n.op is not ops.constant and not n.regions
             and len(n.outputs) == 1}
    return _Lifetimes(position, last_use, fresh, nodes, read_itself, views)


STORES = (ops.setitem, ops.dyn_setitem, ops.scatter)


def _overwritable(life: _Lifetimes, owned: set[int] = frozenset()
                  ) -> tuple[set[tuple[int, int]], set[int]]:
    """(value, node) pairs where the node is the last reader of a value's buffer
    (a fresh one, or an ``owned`` loop-carried one) and may store into it; and
    the views to copy as they are taken so that more stores may.

    A store after which the buffer is read only through views taken before it
    (a gradient's ``dv = g[:, j]; dx = (g[:, j] = 0)``, dv read later) stores
    in place when copying those views moves less memory than copying the
    buffer would: the views are copied instead."""
    pairs, copied = set(), set()
    for n in life.nodes:
        x = n.inputs[0] if n.op in STORES else None
        if x is None or id(x) not in life.fresh | owned:
            continue
        at = life.position[id(n)]
        late = set() if life.last_use.get(id(x)) == at else _late_views(life, x, at)
        if late is not None:
            pairs.add((id(x), id(n)))
            copied |= late
    return pairs, copied


_COPYABLE_VIEWS = (ops.getitem, ops.dyn_getitem)


def _late_views(life: _Lifetimes, x: Value, at: int) -> set[int] | None:
    """The views of ``x`` read after position ``at``, when nothing else reads
    ``x`` after it and they are smaller than ``x``; None otherwise."""
    if life.read_itself.get(id(x)) != at:
        return None
    late = [v for v in life.views.get(id(x), []) if life.last_use.get(id(v.output), -1) > at]
    if not late or any(v.op not in _COPYABLE_VIEWS or not v.output.type.static
                       or life.position[id(v)] >= at for v in late):
        return None
    if x.type.static and sum(v.output.type.size for v in late) >= x.type.size:
        return None
    return {id(v.output) for v in late}


def _owned_params(body: Region, carried: Sequence[Value]) -> set[int]:
    """Loop-carried params whose buffer the loop may update in place, once the
    loop copies their initial value: each iteration hands the next one a
    buffer of its own (the param stored into, or a fresh array), used once."""
    produced = {id(o): n for n in body.nodes for o in n.outputs}
    counts = Counter(id(v) for v in body.results)
    owned = set()
    for p, result in zip(carried, body.results, strict=True):
        node = produced.get(id(result))
        if (p.type.ndim == 0 or counts[id(result)] != 1 or node is None or node.regions
                or ops.VIEW in node.op.traits or node.op is ops.constant):
            continue
        if node.op in STORES and node.inputs[0] is not p \
                and node.inputs[0].producer is None:
            continue  # it stores into another param's buffer
        owned.add(id(p))
    return owned


def _reusable(life: _Lifetimes, schedule: list[Scheduled], owned: set[int] = frozenset(),
              placed: dict[int, Node] | None = None) -> dict[int, Value]:
    """Stored outputs of fused kernels that can be written into the buffer of an
    input the kernel reads for the last time (same shape and dtype: element i
    is read before element i is written), instead of a new allocation; not
    those ``placed`` into a store's region (``_destinations``).

    Not an input the kernel also reads through a view (``y * 2 + y.T``,
    ``y[::-1] + y``: element i of the view is another element of the buffer,
    which a store may already have overwritten)."""
    reuse: dict[int, Value] = {}
    for p, item in enumerate(kernels(schedule)):
        if not isinstance(item, FusionGroup):
            continue
        inside = {id(n.output) for n in item.nodes}
        outside = [(n, v) for n in item.nodes for v in n.inputs if id(v) not in inside]
        viewed = {id(_memory_root(v)) for n, v in outside
                  if ops.VIEW in n.op.traits or _memory_root(v) is not v}
        candidates = [v for n, v in outside
                      if id(v) in life.fresh | owned and id(v) not in viewed
                      and life.last_use.get(id(v)) == p and v.shape == item.domain]
        for out in item.stored:
            if placed and id(out) in placed:
                continue
            match = next((v for v in candidates if v.dtype == out.dtype), None)
            if match is not None:
                reuse[id(out)] = match
                item.reuses += 1
                candidates = [v for v in candidates if v is not match]
    return reuse


_READ_OF = {ops.setitem: ops.getitem, ops.dyn_setitem: ops.dyn_getitem}


def _destinations(life: _Lifetimes, schedule: list[Scheduled], escaping: Sequence[Value],
                  pairs: set[tuple[int, int]]) -> dict[int, Node]:
    """Kernel outputs whose one reader, right after the kernel, stores them in
    place into a region of their shape (``g[2:] = g[2:] + h``, a row of a
    carried array): the kernel writes into the region itself, with no array
    of its own and no copy loop. Not where the kernel reads the target other
    than through that very region (element i of another view is another
    element, which the kernel may have overwritten already)."""
    readers = Counter(id(v) for n in life.nodes for v in n.inputs)
    for n in life.nodes:
        for region in n.regions:
            readers.update(id(v) for inner in region.walk() for v in inner.inputs)
            readers.update(id(v) for v in region.results)
    readers.update(id(v) for v in escaping)
    out: dict[int, Node] = {}
    for group, store in zip(schedule, schedule[1:], strict=False):
        if not isinstance(group, FusionGroup) or group.reduction is not None \
                or not isinstance(store, Node) or store.op not in _READ_OF:
            continue
        x, v = store.inputs[:2]
        if (v not in group.stored or readers[id(v)] != 1 or (id(x), id(store)) not in pairs
                or v.dtype != x.dtype or not v.type.static
                or ops.slice_shape(x.shape, store.attrs["index"]) != v.shape
                or not _reads_target_only_at(group, store)):
            continue
        out[id(v)] = store
        group.into_regions += 1
    return out


def _reads_target_only_at(group: FusionGroup, store: Node) -> bool:
    """The kernel reads the store's target (any view of its buffer) only
    through the region the store writes, and does not compute the target."""
    x = store.inputs[0]
    root = _memory_root(x)
    inside = {id(n.output) for n in group.nodes}
    if id(root) in inside:
        return False
    for node in group.nodes:
        for w in node.inputs:
            if id(w) in inside or _memory_root(w) is not root:
                continue
            read = w.producer
            if (read is None or read.op is not _READ_OF[store.op] or read.inputs[0] is not x
                    or read.attrs["index"] != store.attrs["index"]
                    or any(a is not b for a, b in zip(read.inputs[1:], store.inputs[2:],
                                                      strict=True))):
                return False
    return True


def position_order(schedule: list[Scheduled]) -> list[Node]:
    return [n for item in kernels(schedule)
            for n in (item.nodes if isinstance(item, FusionGroup) else [item])]


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
    if node.loc is not None:
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
    em = Emitter()
    parallel = parallel and not _has_threaded_product(graph) and threads.parallel_loops_pay()
    em.parallel_min_work = PARALLEL_MIN_WORK if parallel else None
    schedule = plan(graph.nodes, (*graph.results, *graph.updates.values()))
    life = _lifetimes((*graph.results, *graph.updates.values()), schedule)
    em.overwritable, em.copied = _overwritable(life)
    em.destinations = _destinations(life, schedule, (*graph.results, *graph.updates.values()),
                                    em.overwritable)
    em.reusable = _reusable(life, schedule, placed=em.destinations)
    arg_names = []
    layouts = param_layouts or ["C"] * len(graph.params)
    for p, is_array, layout in zip(graph.params, param_is_array, layouts, strict=True):
        name = em.define(p, p.name or "arg", layout)
        if p.type.ndim == 0 and is_array:  # 0-d array argument: work on its scalar
            arg_names.append(em.fresh(f"{name}_array"))
            em.line(f"{name} = {arg_names[-1]}[()]")
        else:
            arg_names.append(name)
    em.regions = Regions(em)
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

    def plan(self, region: Region, carried: Sequence[Value] = ()) -> set[int]:
        """Schedule a body (a loop lowering calls this first); returns the
        ids of the ``carried`` params it stores into in place."""
        schedule = self.bodies[id(region)] = plan(region.nodes, region.results)
        body_life = _lifetimes(region.results, schedule)
        owned = _owned_params(region, carried) if carried else set()
        pairs, copied = _overwritable(body_life, owned)
        self.em.copied |= copied
        placed = _destinations(body_life, schedule, region.results, pairs)
        reuse = _reusable(body_life, schedule, owned, placed)
        self.em.overwritable |= pairs
        self.em.destinations.update(placed)
        self.em.reusable.update(reuse)
        written = {value for value, _ in pairs} | {id(v) for v in reuse.values()}
        return written & {id(p) for p in carried}

    def emit(self, region: Region) -> None:
        if id(region) not in self.bodies:
            self.plan(region)
        _emit_schedule(self.em, self.bodies[id(region)])


def _result(em: Emitter, graph: Graph, v: Value) -> str:
    if _memory_root(v) in graph.params and v.type.ndim:
        # Never hand out the caller's buffer (or a view of it); copy before the
        # argument updates are written back.
        name = em.fresh("result")
        em.line(f"{name} = {em(v)}.copy()")
        return name
    return em(v)


def _write_updates(em: Emitter, graph: Graph, arg_names: list[str]) -> None:
    staged = []
    for index, v in graph.updates.items():
        source = em(v)
        if _memory_root(v) in graph.params and v.type.ndim:
            source = em.fresh("staged")
            em.line(f"{source} = {em(v)}.copy()")
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
            f"from jitaic.lower import runtime as rt\n"
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
