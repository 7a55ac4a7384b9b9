"""Global cleanup passes: dead code elimination and common subexpressions."""

from __future__ import annotations

import numpy as np

from jitaic.ir.graph import Graph, Node, Region
from jitaic.ir.ops import ALLOCATES, EFFECTFUL
from jitaic.passes.rewrite import Rebuilder


def eliminate_dead_code(graph: Graph) -> tuple[Graph, bool]:
    """Drop nodes none of whose outputs reach a result or an argument update,
    inside control-flow bodies too (a gradient in a loop body computes
    cotangents nobody reads)."""
    nodes, changed = _live_nodes(graph.nodes, (*graph.results, *graph.updates.values()))
    if not changed:
        return graph, False
    return Graph(graph.params, nodes, graph.results, name=graph.name,
                 updates=graph.updates), True


def _live_nodes(nodes, results) -> tuple[tuple[Node, ...], bool]:
    live = {id(v) for v in results}
    kept, changed = [], False
    for node in reversed(nodes):
        if EFFECTFUL not in node.op.traits and not any(id(v) in live for v in node.outputs):
            changed = True
            continue
        node, pruned = _prune_bodies(node)
        changed |= pruned
        kept.append(node)
        live.update(id(v) for v in node.inputs)
        for region in node.regions:  # bodies may read outer values
            live.update(id(v) for inner in region.walk() for v in inner.inputs)
            live.update(id(v) for v in region.results)
    return tuple(reversed(kept)), changed


def _prune_bodies(node: Node) -> tuple[Node, bool]:
    """The node with dead code removed from its regions (results stay: they are
    the branch values or the loop-carried values)."""
    regions, changed = [], False
    for region in node.regions:
        nodes, pruned = _live_nodes(region.nodes, region.results)
        regions.append(Region(region.params, nodes, region.results) if pruned else region)
        changed |= pruned
    if not changed:
        return node, False
    new = Node(node.op, node.inputs, node.attrs, node.outputs, tuple(regions), node.loc)
    for v in new.outputs:
        v.producer = new
    return new, True


def freeze(value: object) -> object:
    """A hashable stand-in for an attribute value (arrays by content)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, float | np.floating):  # keeps -0.0 apart from 0.0
        return (type(value), float(value).hex())
    return (type(value), value)


def eliminate_common_subexpressions(graph: Graph) -> tuple[Graph, bool]:
    """Nodes with the same op, inputs and attributes compute the same value once."""
    rb = Rebuilder()
    seen: dict[tuple, object] = {}
    for node in graph.nodes:
        rb.keep(node)
        current = rb.nodes[-1]
        if current.regions or current.op.traits & {EFFECTFUL, ALLOCATES}:
            continue
        key = (current.op, tuple(id(v) for v in current.inputs),
               tuple(sorted((k, freeze(v)) for k, v in current.attrs.items())))
        if key in seen:
            rb.nodes.pop()
            for old, new in zip(current.outputs, seen[key].outputs, strict=True):
                rb.replace(old, new)
        else:
            seen[key] = current
    return rb.finish(graph), rb.changed
