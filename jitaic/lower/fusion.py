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

from collections.abc import Sequence
from dataclasses import dataclass, field

from jitaic.ir.graph import Node, Value
from jitaic.lower.codegen import Emitter, np_type
from jitaic.lower.kernels import (
    MONOIDS,
    SCALAR_RULES,
    LoopNest,
    emit_reduction,
    load,
    render,
    scalar_expression,
)


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

    def describe(self) -> str:
        names = ", ".join(n.op.name for n in self.nodes)
        return (f"kernel over {list(self.domain)}: {names} "
                f"(stores {len(self.stored)}; boundary: {self.why_sealed})")


Scheduled = Node | FusionGroup


def _fusible(node: Node) -> bool:
    """Elementwise nodes over an array domain join fusion groups."""
    return node.op in SCALAR_RULES and node.output.type.ndim > 0 and not node.regions


def plan(nodes: Sequence[Node], escaping: Sequence[Value]) -> list[Scheduled]:
    """Schedule one block (the function's, or a control-flow body's) whose
    ``escaping`` values (results, argument updates) are read after it."""
    schedule: list[Scheduled] = []
    open_groups: dict[tuple[int, ...], FusionGroup] = {}
    owner: dict[int, FusionGroup] = {}

    def seal(group: FusionGroup, why: str) -> None:
        if open_groups.get(group.domain) is group:
            del open_groups[group.domain]
            group.why_sealed = why
            schedule.append(group)

    for node in nodes:
        if _fusible(node):
            domain = node.output.shape
            for v in node.inputs:
                g = owner.get(id(v))
                if g is not None and g.domain != domain:
                    seal(g, f"{node.op.name} iterates over {list(domain)}")
            group = open_groups.get(domain)
            if group is None:
                group = open_groups[domain] = FusionGroup(domain)
            group.nodes.append(node)
            owner[id(node.output)] = group
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
        for g in readers:
            seal(g, f"read by {node.op.name}")
        schedule.append(node)
    for g in list(open_groups.values()):
        seal(g, "end of block")
    _mark_stored(escaping, schedule, owner)
    return schedule


def _mark_stored(results: Sequence[Value], schedule: list[Scheduled], owner: dict) -> None:
    escaping = {id(v) for v in results}
    for item in schedule:
        nodes = item.nodes if isinstance(item, FusionGroup) else [item]
        for node in nodes:
            for region in node.regions:
                escaping.update(id(v) for inner in region.walk() for v in inner.inputs)
            for v in node.inputs:
                if owner.get(id(v)) is not item:
                    escaping.add(id(v))
    for item in schedule:
        if isinstance(item, FusionGroup):
            item.stored = [n.output for n in item.nodes
                           if id(n.output) in escaping and n is not item.reduction]


def emit_group(em: Emitter, group: FusionGroup) -> None:
    em.comment(group.describe())
    for v in group.stored:
        em.line(f"{em.define(v)} = np.empty({v.shape}, {np_type(v.dtype)})")
    index = tuple(em.fresh(f"i{d}") for d in range(len(group.domain)))
    nest = LoopNest(group.domain, index)
    temps: dict[int, str] = {}
    reduction = group.reduction
    for node in group.nodes[:-1] if reduction else group.nodes:
        args = [temps.get(id(v)) or load(em, v, nest) for v in node.inputs]
        temp = em.fresh("e")
        nest.statements.append(f"{temp} = {scalar_expression(node, args)}")
        temps[id(node.output)] = temp
    for v in group.stored:
        nest.stores.append((em(v), temps[id(v)]))
    if reduction is None:
        render(em, nest)
    else:
        (x,) = reduction.inputs
        emit_reduction(em, reduction, nest, temps.get(id(x)) or load(em, x, nest))
