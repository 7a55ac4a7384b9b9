"""VJPs of control flow: cond becomes a cond over the branch VJPs.

A branch's intermediate values live inside its region, so the backward
branch recomputes the forward branch (rematerialisation) and backpropagates
through the copy. Cotangents flow to the cond's operands and to every outer
value a branch reads. Loops (for_loop, while_loop) have no VJP yet.
"""

from __future__ import annotations

from collections.abc import Callable

from jitaic.ir import ops
from jitaic.ir.graph import Node, Region, Value
from jitaic.tracer import control_flow
from jitaic.tracer import numpy_api as npa
from jitaic.tracer.core import Tracer, current, new_tracer

# rule(node, output cotangents, backpropagate) -> [(value, cotangent)]
REGION_VJP_RULES: dict[ops.Op, Callable] = {}


def _captured(region: Region) -> list[Value]:
    """Values a region reads from enclosing scopes, in first-use order."""
    inside = {id(p) for p in region.params}
    out, seen = [], set()
    for node in region.walk():
        for v in node.inputs:
            if id(v) not in inside and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        inside.update(id(o) for o in node.outputs)
    for v in region.results:
        if id(v) not in inside and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def _replay(region: Region, bindings: dict[int, Value]) -> tuple[list[Node], list[Value]]:
    """Re-emit a region's nodes in the current block with its params bound."""
    env = dict(bindings)
    builder = current().builder
    nodes = []
    for node in region.nodes:
        new = builder.emit(node.op, [env.get(id(v), v) for v in node.inputs], node.attrs,
                           node.regions, node.loc)
        env.update({id(o): n for o, n in zip(node.outputs, new.outputs, strict=True)})
        nodes.append(new)
    return nodes, [env.get(id(v), v) for v in region.results]


def _zeros(v: Value) -> Tracer:
    return npa.full_value(v.shape, 0.0, v.dtype) if v.type.ndim else npa.astype(
        new_tracer(v) * 0.0, v.dtype)


def _cond_vjp(node: Node, cotangents: list, backpropagate: Callable) -> list:
    pred, *operands = node.inputs
    bindings = {id(p): o for r in node.regions for p, o in zip(r.params, operands, strict=True)}
    wrt = [v for v in dict.fromkeys(
        [*operands, *(w for r in node.regions for w in _captured(r))], None)
        if v.dtype.kind == "f" and id(v) not in bindings]
    gs = [g if g is not None else _zeros(v) for g, v in zip(cotangents, node.outputs,
                                                              strict=True)]

    def backward(region: Region):
        def branch():
            nodes, results = _replay(region, bindings)
            seeds: dict[int, Tracer] = {}
            for r, g in zip(results, gs, strict=True):
                if r.dtype.kind == "f":
                    seeds[id(r)] = g if id(r) not in seeds else seeds[id(r)] + g
            cts = backpropagate(nodes, seeds)
            return tuple(cts[id(w)] if id(w) in cts else _zeros(w) for w in wrt)

        return branch

    if not wrt:
        return []
    outs = control_flow.cond(new_tracer(pred), backward(node.regions[0]),
                             backward(node.regions[1]), [])
    return list(zip(wrt, outs, strict=True))


REGION_VJP_RULES[ops.cond] = _cond_vjp
