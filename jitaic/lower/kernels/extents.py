"""Fusion domains: which elementwise nodes iterate one domain, and which
operand axes are provably the domain's (``jitaic.ir.lengths`` keys)."""

from __future__ import annotations

from jitaic.ir import ops
from jitaic.ir.graph import Node, Value
from jitaic.ir.lengths import length_key
from jitaic.lower.kernels.scalar import SCALAR_RULES


def domain_key(v: Value, through_views: bool = False) -> tuple:
    """Per axis of ``v``: its static extent, or the key of its run-time length
    (``length_key``)."""
    return tuple(d if d is not None else length_key(v, k, through_views)
                 for k, d in enumerate(v.shape))


def fusible(node: Node) -> bool:
    """Elementwise nodes over an array domain join fusion groups; so does a
    scalar broadcast to an array (other broadcasts stay views)."""
    if node.op is ops.broadcast_to and node.inputs[0].type.ndim:
        return False
    return node.op in SCALAR_RULES and node.output.type.ndim > 0 and not node.regions
