"""Graph rebuilding and the local pattern-rule driver shared by the passes.

Nodes are immutable: a pass walks the nodes in order, decides for each one
whether it stays (rebuilt if its inputs were replaced), disappears (its
outputs replaced by existing values) or becomes new nodes, and returns a new
Graph. Source locations are copied to every node a rule creates.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from jitaic import config
from jitaic.ir.graph import Graph, Node, Region, Value, make_node
from jitaic.ir.int_ranges import IntRanges


class Rebuilder:
    """Collects the nodes of the new graph and the value substitutions."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self._subst: dict[int, Value] = {}
        self.changed = False
        self.use_counts: Counter[int] = Counter()  # of the graph being rewritten
        self.ranges: IntRanges | None = None  # bounds of its integers, for rules that ask

    def get(self, v: Value) -> Value:
        while id(v) in self._subst:
            v = self._subst[id(v)]
        return v

    def replace(self, old: Value, new: Value) -> None:
        if old is not new:
            self._subst[id(old)] = new
            self.changed = True

    def emit(self, op, inputs: Sequence[Value], attrs=None, loc=None) -> Value:
        node = make_node(op, [self.get(v) for v in inputs], attrs, (), loc)
        self.nodes.append(node)
        self.changed = True
        return node.output

    def keep(self, node: Node) -> None:
        self._append(node, tuple(self._remap_region(r) for r in node.regions))

    def _append(self, node: Node, regions: tuple[Region, ...]) -> None:
        """The node as it is, or rebuilt when its inputs or bodies changed."""
        inputs = [self.get(v) for v in node.inputs]
        if all(a is b for a, b in zip(inputs, node.inputs, strict=True)) and all(
                _same_region(a, b) for a, b in zip(regions, node.regions, strict=True)):
            self.nodes.append(node)
            return
        new = make_node(node.op, inputs, node.attrs, regions, node.loc)
        self.nodes.append(new)
        for old, fresh in zip(node.outputs, new.outputs, strict=True):
            fresh.name = old.name
            self.use_counts[id(fresh)] = self.use_counts[id(old)]
            self.replace(old, fresh)

    def block(self, nodes: Sequence[Node], visit: Callable[[Node], None],
              scope: Callable[[], AbstractContextManager] = nullcontext) -> list[Node]:
        """Rewrite one block: ``visit`` each node without regions (it keeps,
        drops or replaces it); nodes with regions get their bodies rewritten
        the same way, recursively, each body inside ``scope()`` (a pass that
        remembers values enters a body's own scope there)."""
        saved, self.nodes = self.nodes, []
        try:
            for node in nodes:
                if node.regions:
                    self._keep_with_bodies(node, visit, scope)
                else:
                    visit(node)
            return self.nodes
        finally:
            self.nodes = saved

    def _keep_with_bodies(self, node: Node, visit: Callable[[Node], None],
                          scope: Callable[[], AbstractContextManager]) -> None:
        regions = []
        for r in node.regions:
            with scope():
                regions.append(Region(r.params, tuple(self.block(r.nodes, visit, scope)),
                                      tuple(self.get(v) for v in r.results)))
        self._append(node, tuple(regions))

    def _remap_region(self, region: Region) -> Region:
        """A body with replaced outer values substituted (bodies read outer values)."""
        nodes, changed = [], False
        for node in region.nodes:
            regions = tuple(self._remap_region(r) for r in node.regions)
            inputs = [self.get(v) for v in node.inputs]
            if all(a is b for a, b in zip(inputs, node.inputs, strict=True)) and all(
                    a is b for a, b in zip(regions, node.regions, strict=True)):
                nodes.append(node)
                continue
            new = make_node(node.op, inputs, node.attrs, regions, node.loc)
            for old, fresh in zip(node.outputs, new.outputs, strict=True):
                self._subst[id(old)] = fresh
            nodes.append(new)
            changed = True
        results = tuple(self.get(v) for v in region.results)
        if not changed and all(a is b for a, b in zip(results, region.results, strict=True)):
            return region
        return Region(region.params, tuple(nodes), results)

    def finish(self, graph: Graph) -> Graph:
        if not self.changed:
            return graph
        results = tuple(self.get(v) for v in graph.results)
        updates = {i: self.get(v) for i, v in graph.updates.items()}
        return Graph(graph.params, tuple(self.nodes), results, name=graph.name,
                     updates=updates)


def _same_region(a: Region, b: Region) -> bool:
    """The same body: the same object, or a rebuilt one with the same nodes."""
    return a is b or (len(a.nodes) == len(b.nodes) and len(a.results) == len(b.results)
                      and all(x is y for x, y in zip(a.nodes, b.nodes, strict=True))
                      and all(x is y for x, y in zip(a.results, b.results, strict=True)))


# ---------------------------------------------------------------- pattern rules

@dataclass(frozen=True)
class Rule:
    """``fn(node, rb) -> Value | None``: a replacement for the node's one output."""

    name: str
    fn: Callable[[Node, Rebuilder], Value | None]


RULE_HITS: Counter[str] = Counter()  # counted when JITAIC_DEBUG is on


def _use_counts(graph: Graph) -> Counter[int]:
    """How often each value is read (results and updates count as reads)."""
    counts: Counter[int] = Counter()
    for node in graph.walk():
        counts.update(id(v) for v in node.inputs)
    counts.update(id(v) for v in (*graph.results, *graph.updates.values()))
    return counts


def apply_rules(graph: Graph, rules: dict[object, list[Rule]]) -> tuple[Graph, bool]:
    """One bottom-up sweep: each node tries the rules of its op, first match wins."""
    rb = Rebuilder()
    rb.use_counts = _use_counts(graph)
    rb.ranges = IntRanges(graph)

    def visit(node: Node) -> None:
        rb.keep(node)
        if len(node.outputs) != 1:
            return
        current = rb.nodes[-1]
        for rule in rules.get(current.op, ()):
            mark, changed = len(rb.nodes), rb.changed
            replacement = rule.fn(current, rb)
            if replacement is None:  # a rule that gave up leaves nothing behind
                del rb.nodes[mark:]
                rb.changed = changed
            else:
                if config.get("debug"):
                    RULE_HITS[rule.name] += 1
                rb.replace(current.output, replacement)
                break

    rb.nodes = rb.block(graph.nodes, visit)  # control-flow bodies too
    return rb.finish(graph), rb.changed
