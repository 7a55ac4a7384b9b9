"""Vertical and horizontal fusion of elementwise ops into loop nests.

``plan`` turns the graph's node list into a schedule of single nodes and
``FusionGroup``s. A group is a set of elementwise nodes over one iteration
space (their common output shape); it becomes one LoopNest whose statements
compute each member's element in a scalar temporary. Only values used outside
the group (by another node, as a result or as an argument update) are stored
to memory; the others never exist as arrays.

A group stays open while nodes are added; it is sealed (scheduled) right
before the first node outside it that reads one of its values, so every
value is computed before it is read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Node, Value
from jitaic.ir.lengths import proven_axes
from jitaic.ir.ops import ALLOCATES, EFFECTFUL
from jitaic.lower.codegen import Emitter, contiguous, empty, known_size
from jitaic.lower.kernels import (
    MONOIDS,
    LoopNest,
    broadcast_failure,
    check_extents,
    dims,
    element_cost,
    emit_reduction,
    load,
    magnitude_comparison,
    magnitude_expression,
    region_view,
    render,
    scalar_expression,
)
from jitaic.lower.kernels.extents import domain_key, fusible


@dataclass(eq=False)
class FusionGroup:
    domain: tuple[int, ...]
    nodes: list[Node] = field(default_factory=list)
    stored: list[Value] = field(default_factory=list)  # values that leave the group
    why_sealed: str = "end of block"

    @property
    def reduction(self) -> Node | None:
        """The reduction that ends the group, reading the elements it computes."""
        last = self.nodes[-1]
        return last if last.op in MONOIDS else None

    reuses: int = 0  # stored outputs written into a dead input's buffer
    into_regions: int = 0  # stored outputs written into the region a store then claims

    def describe(self) -> str:
        names = ", ".join(n.op.name for n in self.nodes)
        reuse = f", {self.reuses} into a dead input's buffer" if self.reuses else ""
        reuse += f", {self.into_regions} into a store's region" if self.into_regions else ""
        return (f"kernel over [{extents_text(self.domain)}]: {names} "
                f"(stores {len(self.stored)}{reuse}; boundary: {self.why_sealed})")


@dataclass(eq=False)
class RowGroup:
    """Consecutive kernels over the same rows (every dim but the last) that read
    each other's results only within a row: they run in ONE loop over the rows,
    so a row's max, its exp-and-sum and its division all happen while the row
    is in cache (softmax and layer norm make one pass over memory, not three).

    Reductions in it reduce the last axis only; scalar nodes between its
    kernels that do not read them are scheduled before it.
    """

    rows: tuple[int, ...]
    members: list[FusionGroup]

    def describe(self) -> str:
        return (f"row loop over {list(self.rows)}: {len(self.members)} kernels per row "
                f"(each reads earlier kernels' results of the same row only)")


Scheduled = Node | FusionGroup | RowGroup


def kernels(schedule: Sequence[Scheduled]) -> list[Node | FusionGroup]:
    """The schedule with row loops opened up into their kernels, in order."""
    return [k for item in schedule
            for k in (item.members if isinstance(item, RowGroup) else [item])]


@dataclass
class Plan:
    """A function's schedule and its control-flow bodies' schedules (by
    region id): what runs as fused kernels and row loops, and what alone."""

    schedule: list[Scheduled]
    bodies: dict[int, list[Scheduled]]

    def walk(self, schedule: Sequence[Scheduled] | None = None):
        """Every scheduled item in the order the code runs them: a row loop
        before its kernels, a control-flow node before its bodies' items."""
        for item in self.schedule if schedule is None else schedule:
            yield item
            if isinstance(item, RowGroup):
                yield from item.members
            elif isinstance(item, Node):
                for region in item.regions:
                    yield from self.walk(self.bodies.get(id(region), []))

    def kernels(self) -> list[FusionGroup]:
        """The fused kernels (row loops' included), control-flow bodies' too."""
        return [item for item in self.walk() if isinstance(item, FusionGroup)]

    def row_loops(self) -> list[RowGroup]:
        return [item for item in self.walk() if isinstance(item, RowGroup)]

    def alone(self) -> list[Node]:
        """Nodes lowered one by one, not inside a fused kernel."""
        return [item for item in self.walk() if isinstance(item, Node)]

    def describe(self, schedule: Sequence[Scheduled] | None = None, indent: str = "") -> str:
        """One line per kernel or unfused node; control-flow bodies indented below."""
        lines = []
        for item in self.schedule if schedule is None else schedule:
            if isinstance(item, RowGroup):
                lines.append(indent + item.describe())
                lines += [f"{indent}  {group.describe()}" for group in item.members]
                continue
            if isinstance(item, FusionGroup):
                lines.append(indent + item.describe())
                continue
            where = f"  # {item.loc}" if item.loc else ""
            lines.append(f"{indent}{item.op.name} (not fused: {_why_alone(item)}){where}")
            for k, region in enumerate(item.regions):
                if id(region) in self.bodies:
                    lines.append(f"{indent}  body {k}:")
                    lines.append(self.describe(self.bodies[id(region)], indent + "    "))
        return "\n".join(line for line in lines if line)


def _why_alone(node: Node) -> str:
    if node.op is ops.constant:
        return "constant"
    if node.op in (ops.numpy_call, ops.random_call):
        return f"NumPy called back: {node.attrs['function']}"
    if node.regions:
        return "control flow; its bodies are fused on their own"
    if ops.VIEW in node.op.traits:
        return "a view, no computation"
    if all(v.type.ndim == 0 for v in node.outputs):
        return "scalar"
    return "library call or own loop nest"


def extents_text(domain: tuple) -> str:
    """A domain key for people: static extents, '?' for run-time ones (their
    keys hold ids of this process, which generated source must not)."""
    return ", ".join(str(d) if isinstance(d, int) else "?" for d in domain)


def plan(nodes: Sequence[Node], escaping: Sequence[Value]) -> list[Scheduled]:
    """Schedule one block (the function's, or a control-flow body's) whose
    ``escaping`` values (results, argument updates) are read after it."""
    schedule: list[Scheduled] = []
    open_groups: dict[tuple[int, ...], FusionGroup] = {}
    owner: dict[int, FusionGroup] = {}
    nodes = _sunk_to_their_readers(nodes, escaping)

    def seal(group: FusionGroup, why: str) -> None:
        if open_groups.get(group.domain) is group:
            del open_groups[group.domain]
            group.why_sealed = why
            schedule.append(group)

    for node in nodes:
        if fusible(node):
            domain = domain_key(node.output)
            for v in node.inputs:
                g = owner.get(id(v))
                if g is not None and g.domain != domain:
                    seal(g, f"{node.op.name} iterates over [{extents_text(domain)}]")
            group = open_groups.get(domain)
            if group is None:
                group = open_groups[domain] = FusionGroup(domain)
            group.nodes.append(node)
            owner[id(node.output)] = group
            continue
        if node.op is ops.dim_size:  # reads a length, which the domain gives: no seal
            schedule.append(node)
            continue
        if node.op in MONOIDS and id(node.inputs[0]) in owner:
            group = owner[id(node.inputs[0])]
            if open_groups.get(group.domain) is group:  # fuse: reduce while computing
                group.nodes.append(node)
                seal(group, f"ends in {node.op.name}")
                continue
        readers = [owner[id(v)] for v in node.inputs if id(v) in owner]
        if node.regions:  # bodies may read any earlier value
            readers = list(open_groups.values())
        elif EFFECTFUL in node.op.traits:  # a check: kernels before it check their
            readers += [g for g in open_groups.values()  # lengths first, as NumPy's order
                        if any(ops.checked_when_run(*{id(v): v.shape for v in n.inputs}.values())
                               for n in g.nodes)]
        for g in readers:
            seal(g, f"read by {node.op.name}")
        schedule.append(node)
    for g in list(open_groups.values()):
        seal(g, "end of block")
    _mark_stored(escaping, schedule, owner)
    return _fuse_rows(schedule)


def _sunk_to_their_readers(nodes: Sequence[Node], escaping: Sequence[Value]) -> list[Node]:
    """The block with each elementwise node that one elementwise node of its
    domain reads, and nothing else, moved to just before that reader: the two
    then fuse, where a kernel sealed between them (by a store, a dot
    product) would leave the first one's output an array of its own."""
    readers: dict[int, list[Node]] = defaultdict(list)
    for node in nodes:
        for v in () if node.op is ops.dim_size else node.inputs:
            readers[id(v)].append(node)
        for region in node.regions:  # bodies read outer values
            for v in (*(v for inner in region.walk() for v in inner.inputs), *region.results):
                readers[id(v)].append(node)
    for v in escaping:
        readers[id(v)].append(None)
    position = {id(node): k for k, node in enumerate(nodes)}
    sunk: dict[int, list[Node]] = defaultdict(list)  # reader -> nodes placed before it
    moved = set()
    for k, node in enumerate(nodes):
        if not fusible(node) or len(node.outputs) != 1:
            continue
        (reader, *others) = readers[id(node.output)] or [None]
        if others or reader is None or not fusible(reader) \
                or domain_key(reader.output) != domain_key(node.output) \
                or _overwrites_its_inputs(nodes[k + 1:position[id(reader)]], node):
            continue
        sunk[id(reader)].append(node)
        moved.add(id(node))
    if not moved:
        return list(nodes)
    order: list[Node] = []

    def place(node: Node) -> None:
        for earlier in sunk.get(id(node), ()):
            place(earlier)
        order.append(node)

    for node in nodes:
        if id(node) not in moved:
            place(node)
    return order


def _overwrites_its_inputs(between: Sequence[Node], node: Node) -> bool:
    """Whether moving ``node`` past ``between`` would make it read a buffer
    after a store or a loop there may have written it in place (the store
    would then copy the array instead)."""
    roots = {id(ops.memory_root(v)) for v in node.inputs if v.type.ndim}
    return any(other.regions or (other.op in ops.STORES
                                 and id(ops.memory_root(other.inputs[0])) in roots)
               for other in between)


def _as_kernel(item: Node | FusionGroup) -> FusionGroup | None:
    """A fusion group, or a lone reduction as a one-node kernel."""
    if isinstance(item, FusionGroup):
        return item
    if item.op in MONOIDS and item.inputs[0].type.ndim >= 2:
        return FusionGroup(domain_key(item.inputs[0]), [item], why_sealed="reduction")
    return None


def _row_prefix(group: FusionGroup | None) -> tuple[int, ...] | None:
    """The rows a kernel can run row by row: every dim but the last, when it
    reduces nothing or the last axis only."""
    if group is None or len(group.domain) < 2 or not all(isinstance(d, int)
                                                        for d in group.domain):
        return None
    reduction = group.reduction
    if reduction is not None and tuple(reduction.attrs["axes"]) != (len(group.domain) - 1,):
        return None
    return group.domain[:-1]


def _reads_within_rows(group: FusionGroup, produced: set[int], rows: tuple[int, ...]) -> bool:
    """Values of the row loop that ``group`` reads are read at the same row."""
    return all(v.type.ndim == len(rows) + 1 and v.shape[:-1] == rows
               for node in group.nodes for v in node.inputs if id(v) in produced)


def _can_go_first(node: Node, produced: set[int]) -> bool:
    """A scalar node (or constant) that reads nothing of the row loop."""
    return (not node.regions and not node.op.traits & {EFFECTFUL, ALLOCATES}
            and (node.op is ops.constant or all(v.type.ndim == 0 for v in node.outputs))
            and not any(id(v) in produced for v in node.inputs))


def _fuse_rows(schedule: list[Scheduled]) -> list[Scheduled]:
    """Merge runs of row-compatible kernels into RowGroups."""
    out: list[Scheduled] = []
    run: list[tuple[Scheduled, FusionGroup]] = []
    moved: list[Node] = []  # scalar nodes from between the run's kernels
    produced: set[int] = set()
    rows: tuple[int, ...] | None = None

    def flush() -> None:
        if len(run) >= 2:
            out.extend(moved)
            out.append(RowGroup(rows, [group for _, group in run]))
        else:
            out.extend([item for item, _ in run] + moved)
        run.clear()
        moved.clear()
        produced.clear()

    for item in schedule:
        group = _as_kernel(item) if not isinstance(item, RowGroup) else None
        prefix = _row_prefix(group)
        if run and prefix == rows and _reads_within_rows(group, produced, rows):
            run.append((item, group))
        elif run and isinstance(item, Node) and _can_go_first(item, produced):
            moved.append(item)
            continue
        else:
            flush()
            if prefix is None:
                out.append(item)
                continue
            rows = prefix
            run.append((item, group))
        produced.update(id(o) for node in group.nodes for o in node.outputs)
    flush()
    return out


def _all_regions(region):
    """The region and every region nested in it."""
    yield region
    for inner in region.nodes:
        for nested in inner.regions:
            yield from _all_regions(nested)


def _mark_stored(results: Sequence[Value], schedule: list[Scheduled], owner: dict) -> None:
    escaping = {id(v) for v in results}
    for item in schedule:
        nodes = item.nodes if isinstance(item, FusionGroup) else [item]
        for node in nodes:
            for region in node.regions:  # read inside, or yielded as it is (v = u)
                escaping.update(id(v) for inner in region.walk() for v in inner.inputs)
                escaping.update(id(v) for r in _all_regions(region) for v in r.results)
            for v in () if node.op is ops.dim_size else node.inputs:  # (a length)
                if owner.get(id(v)) is not item:
                    escaping.add(id(v))
    for item in schedule:
        if isinstance(item, FusionGroup):
            item.stored = [n.output for n in item.nodes
                           if id(n.output) in escaping and n is not item.reduction]


def emit_rows(em: Emitter, row: RowGroup) -> None:
    """One loop over the rows; each kernel's loops over the last axis inside it."""
    em.comment(row.describe())
    index = tuple(em.fresh(f"r{d}") for d in range(len(row.rows)))
    extents = list(zip(index, row.rows, strict=True))
    work = sum(int(np.prod(g.domain, dtype=np.int64)) * element_cost(g.nodes)
               for g in row.members)
    with em.loops(extents, work, rows=True), em.bound(index):
        for group in row.members:
            emit_group(em, group, index)


def emit_group(em: Emitter, group: FusionGroup, rows: tuple[str, ...] = ()) -> None:
    """The group's loop nest; inside a row loop, ``rows`` are the row indices."""
    em.comment(group.describe())
    first = group.nodes[0]
    defining = first.inputs[0] if first is group.reduction else first.output
    domain = dims(em, defining)
    keys = domain_key(defining, through_views=True)
    for node in group.nodes:
        for v in node.inputs:
            if v.type.ndim == len(group.domain) and domain_key(v) == group.domain:
                continue  # provably the domain's lengths (x[:i] + y[:i])
            check_extents(em, v, domain, broadcast_failure(node), node.loc, stretch=True,
                          proven=proven_axes(v, keys))
    fortran = not rows and _in_fortran_order(em, group)
    for v in group.stored:
        reused = em.reusable.get(id(v))
        if id(v) in em.destinations:
            region_view(em, em.destinations[id(v)], v)
            continue
        if reused is not None:
            allocation, layout = em(reused), em.layout(reused)
        elif fortran:
            allocation, layout = f"{empty(domain[::-1], v.dtype)}.T", "F"
        else:
            allocation, layout = empty(domain, v.dtype), "C"
        em.allocate(f"{em.define(v, layout=layout)} = {allocation}")
    index = (*rows, *(em.fresh(f"i{d}") for d in range(len(rows), len(group.domain))))
    order = tuple(reversed(range(len(domain)))) if fortran else None
    nest = LoopNest(domain, index, cost=element_cost(group.nodes), order=order)
    packed = {} if rows else _packed_views(em, group, domain)

    def element(v: Value) -> str:
        return temps.get(id(v)) or load(em, v, nest, packed.get(id(v)))

    temps: dict[int, str] = {}
    reduction = group.reduction
    computed = group.nodes[:-1] if reduction else group.nodes
    magnitudes = _magnitude_comparisons(group, computed)
    skipped = {id(absolute) for absolute, _, _ in magnitudes.values()}
    for node in computed:
        if id(node) in skipped:
            continue  # |z| that only a comparison reads: it computes |z| itself
        temp = em.fresh("e")
        if id(node) in magnitudes:
            absolute, order, c = magnitudes[id(node)]
            expr = magnitude_expression(absolute, order, c, element(absolute.inputs[0]))
        else:
            expr = scalar_expression(node, [element(v) for v in node.inputs])
        nest.statements.append((temp, expr))
        temps[id(node.output)] = temp
    for v in group.stored:
        nest.stores.append((em(v), temps[id(v)]))
    if reduction is None:
        render(em, nest)
    else:
        (x,) = reduction.inputs
        emit_reduction(em, reduction, nest, element(x))


def _magnitude_comparisons(group: FusionGroup, computed: Sequence[Node]) -> dict[int, tuple]:
    """id(comparison) -> its ``magnitude_comparison`` for the group's
    comparisons of a complex magnitude with a constant whose magnitude
    nothing else reads: they test re**2 + im**2 first."""
    found = {}
    for node in computed:
        match = magnitude_comparison(node)
        if match is None or not any(match[0] is n for n in computed):
            continue
        magnitude = match[0].output
        readers = [n for n in group.nodes for v in n.inputs if v is magnitude]
        if readers == [node] and all(v is not magnitude for v in group.stored):
            found[id(node)] = match
    return found


def _in_fortran_order(em: Emitter, group: FusionGroup) -> bool:
    """Whether an elementwise kernel runs its loops in Fortran order and writes
    F-ordered results: when every operand as large as the kernel is F-ordered
    (a transposed C array: ``np.exp(a.T)``, or an F-ordered argument), as
    NumPy's ufuncs follow their operands' memory order. In C order the
    strided loads keep LLVM's loop scalar: exp of a 2000x2000 ``a.T`` took
    11.9 ms, 1.9 ms in memory order (NumPy 3.3)."""
    if group.reduction is not None or len(group.domain) < 2:
        return False
    inside = {id(n.output) for n in group.nodes}
    full = [v for n in group.nodes for v in n.inputs
            if id(v) not in inside and v.shape == group.domain]
    return bool(full) and all(em.layout(v) == "F" for v in full)


# An operand this much smaller than the loop nest is copied before the nest
# when it is read through a view.
_PACK_RATIO = 16


def _packed_views(em: Emitter, group: FusionGroup, domain) -> dict[int, str]:
    """Small operands the nest reads through a transpose or slice (a column
    of a matrix as a row: ``pos[:, 0:1].T``), copied to contiguous arrays
    first: broadcast over the nest, they are read again for each outer index,
    and strided loads leave LLVM's loop scalar (a pairwise kernel calling pow:
    29 ms through the view, 4.3 ms packed, for a copy of 1000 elements)."""
    size = known_size(domain)
    inside = {id(n.output) for n in group.nodes}
    packed: dict[int, str] = {}
    for node in group.nodes:
        for v in node.inputs:
            if (size is None or id(v) in inside or id(v) in packed or v.producer is None
                    or v.producer.op not in (ops.transpose, ops.getitem)
                    or not v.type.static or v.type.ndim == 0
                    or v.type.size * _PACK_RATIO > size):
                continue
            packed[id(v)] = em.fresh("packed")
            em.assign(packed[id(v)], contiguous(em(v)))
    return packed
