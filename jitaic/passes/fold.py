"""Constant folding through the reference interpreter."""

from __future__ import annotations

import warnings

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Graph
from jitaic.ir.interpreter import evaluate_node
from jitaic.passes.rewrite import Rebuilder

# Folding must not turn a cheap `full` or a broadcast into a large embedded
# array: results bigger than this stay computed at run time.
MAX_FOLDED_ELEMENTS = 1024


def _constant_value(v) -> np.ndarray | None:
    node = v.producer
    return node.attrs["value"] if node is not None and node.op is ops.constant else None


def fold_constants(graph: Graph) -> tuple[Graph, bool]:
    """Nodes whose inputs are all constants become constants (in bodies too)."""
    rb = Rebuilder()

    def visit(node) -> None:
        rb.keep(node)
        current = rb.nodes[-1]
        foldable = (current.inputs and not current.regions and len(current.outputs) == 1
                    and ops.EFFECTFUL not in current.op.traits
                    and current.output.type.static
                    and current.output.type.size <= MAX_FOLDED_ELEMENTS)
        if not foldable:
            return
        values = [_constant_value(v) for v in current.inputs]
        if any(v is None for v in values):
            return
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            # the tracer gave NumPy's warnings at the user's line already
            warnings.simplefilter("ignore")
            (result,) = evaluate_node(current, values)
        result = np.array(result)  # own, C-ordered copy
        result.flags.writeable = False
        rb.nodes.pop()
        out = current.output
        rb.replace(out, rb.emit(ops.constant, (), {"value": result, "weak": out.type.weak},
                                loc=current.loc))

    rb.nodes = rb.block(graph.nodes, visit)  # control-flow bodies too
    return rb.finish(graph), rb.changed
