"""Global cleanup passes: dead code elimination and common subexpressions."""

from __future__ import annotations

import numpy as np

from jitaic.ir.graph import Graph
from jitaic.ir.ops import ALLOCATES, EFFECTFUL
from jitaic.passes.rewrite import Rebuilder


def eliminate_dead_code(graph: Graph) -> tuple[Graph, bool]:
    """Drop nodes none of whose outputs reach a result or an argument update."""
    live = {id(v) for v in (*graph.results, *graph.updates.values())}
    kept = []
    for node in reversed(graph.nodes):
        if EFFECTFUL in node.op.traits or any(id(v) in live for v in node.outputs):
            kept.append(node)
            live.update(id(v) for v in node.inputs)
            for region in node.regions:  # bodies may read outer values
                live.update(id(v) for inner in region.walk() for v in inner.inputs)
    if len(kept) == len(graph.nodes):
        return graph, False
    return Graph(graph.params, tuple(reversed(kept)), graph.results, name=graph.name,
                 updates=graph.updates), True


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
