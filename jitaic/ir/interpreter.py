"""The NumPy reference interpreter: runs a graph node by node with each op's
NumPy reference. Used by tests, by constant folding and by the
``backend="reference"`` knob (compare it with numba to localise a wrong result).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jitaic.ir.graph import Graph, Node, Region
from jitaic.ir.printer import format_graph


def _run_region(region: Region, args: Sequence[object], env: dict[int, object]) -> list:
    env = dict(env)
    for p, a in zip(region.params, args, strict=True):
        env[id(p)] = a
    for node in region.nodes:
        results = evaluate_node(node, [env[id(v)] for v in node.inputs], env)
        for v, r in zip(node.outputs, results, strict=True):
            env[id(v)] = r
    return [env[id(v)] for v in region.results]


def evaluate_node(node: Node, inputs: list, env: dict[int, object] | None = None) -> list:
    """Outputs of one node as NumPy arrays, cast to the node's declared dtypes."""
    kwargs = dict(node.attrs)
    if node.regions:
        kwargs["regions"] = tuple(
            (lambda *a, r=r: _run_region(r, a, env or {})) for r in node.regions
        )
    # Casts into the loop and result dtypes may overflow (a weak float64
    # scalar into float32): silently, as inside NumPy's ufunc loops.
    with np.errstate(all="ignore"):
        if node.op.ufunc is not None:  # compute in NumPy's loop dtypes (weak scalars)
            from jitaic.ir.ops import ufunc_loop_dtypes

            loop = ufunc_loop_dtypes(node.op.ufunc, [v.type for v in node.inputs])
            inputs = [np.asarray(x).astype(d, copy=False)
                      for x, d in zip(inputs, loop, strict=False)]
        try:
            result = node.op.reference(*inputs, **kwargs)
        except Exception as exc:
            where = f" at {node.loc}" if node.loc else ""
            raise type(exc)(f"{exc}\n  while executing {node.op.name}{where}") from exc
        results = list(result) if isinstance(result, (list, tuple)) else [result]
        return [_as_value(r, v.dtype) for r, v in zip(results, node.outputs, strict=True)]


def _as_value(x: object, dtype: np.dtype) -> object:
    """An array of ``dtype``; a Generator (the object dtype: ops.GENERATOR) itself."""
    return x if dtype.kind == "O" else np.asarray(x).astype(dtype, copy=False)


def evaluate(graph: Graph, *args: object) -> tuple[list[np.ndarray], dict[int, np.ndarray]]:
    """Run the graph: (results, {parameter index: its final value})."""
    env: dict[int, object] = {}
    for p, a in zip(graph.params, args, strict=True):
        env[id(p)] = a if p.dtype.kind == "O" else np.asarray(a)
    params = [env[id(p)] for p in graph.params]
    full = Region(graph.params, graph.nodes, tuple(graph.results) + tuple(graph.updates.values()))
    values = _run_region(full, params, {})
    n = len(graph.results)
    return values[:n], dict(zip(graph.updates.keys(), values[n:], strict=True))


__all__ = ["evaluate", "evaluate_node", "format_graph"]
