"""Which run-time lengths are provably equal, from the graph alone.

A length known only when the code runs (``x[:i]``) has a key: the window it
comes from (the sliced array's static extent and the slice's bounds, values
by identity), followed back through elementwise ops, whose run-time lengths
are their operands'. Two axes with equal keys have equal lengths whatever
the run-time values, so fusion iterates them as one domain and the lowering
checks nothing between them (no broadcast error to raise, no length of 1 to
stretch).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Node, Value
from jitaic.lower.kernels.scalar import SCALAR_RULES


def domain_key(v: Value, through_views: bool = False) -> tuple:
    """Per axis of ``v``: its static extent, or the key of its run-time length
    (``length_key``)."""
    return tuple(d if d is not None else length_key(v, k, through_views)
                 for k, d in enumerate(v.shape))


def length_key(v: Value, axis: int, through_views: bool = False) -> tuple:
    """The key of axis ``axis``'s run-time length: the window it comes from
    (x[:i] and y[:i] of equal static lengths have one run-time length;
    x[:i] and y[:j] stay apart), or else the array it is read from. With
    ``through_views``, also followed through views that take every axis whole
    (``x[::-1]`` has x's lengths)."""
    root, k = v, axis
    while root.producer is not None:
        if through_views and _whole_axes_view(root.producer):
            root = root.producer.inputs[0]
            continue
        if not fusible(root.producer):
            break
        back = root.type.ndim - k
        source = next((x for x in root.producer.inputs if x.type.ndim >= back
                       and x.shape[x.type.ndim - back] is None), None)
        if source is None:
            break
        root, k = source, source.type.ndim - back
    return _window_length(root, k) or (id(root), k)


def fusible(node: Node) -> bool:
    """Elementwise nodes over an array domain join fusion groups; so does a
    scalar broadcast to an array (other broadcasts stay views)."""
    if node.op is ops.broadcast_to and node.inputs[0].type.ndim:
        return False
    return node.op in SCALAR_RULES and node.output.type.ndim > 0 and not node.regions


def _whole_axes_view(node: Node) -> bool:
    """A view taking every axis whole, forwards or backwards (``x[::-1]``):
    its axes have its input's lengths, one for one."""
    index = node.attrs.get("index") if node.op in (ops.getitem, ops.dyn_getitem) else None
    return (index is not None and len(node.inputs) == 1
            and len(index) == node.inputs[0].type.ndim
            and all(ops.is_range(e) and e[1] is None and e[2] is None and e[3] in (1, -1)
                    for e in index))


def _window_length(v: Value, axis: int) -> tuple | None:
    """For axis ``axis`` of a window ``x[a:b:c]`` with run-time bounds, a key
    that two windows of the same length share (``window_keys``)."""
    node = v.producer
    if node is None or node.op is not ops.dyn_getitem:
        return None
    keys = window_keys(node.inputs[0].shape, node.attrs["index"], node.inputs[1:])
    return keys[axis] if axis < len(keys) else None


def window_keys(shape: tuple, index: tuple, values: Sequence[Value]) -> list[tuple | None]:
    """Per axis of the region ``index`` selects from an array of ``shape``
    (run-time inputs ``values``): for a window with run-time bounds, the
    array's static extent there and the bounds (values by identity), equal
    for windows of equal length; None for any other axis."""
    values, keys = iter(values), []
    for dim, entry in enumerate(index):
        if ops.is_range(entry):
            _, start, stop, step = entry
            bounds = [("value", id(next(values))) if b == ops.DYNAMIC else b
                      for b in (start, stop)]
            n = shape[dim]
            keys.append(None if n is None else ("window", n, *bounds, step))
            continue
        if entry == ops.DYNAMIC or ops.is_dynamic_slice(entry):
            next(values)
        if entry != ops.DYNAMIC and not isinstance(entry, (int, np.integer)):
            keys.append(None)
    return keys


def proven_axes(v: Value, region: Sequence[tuple | None]) -> set[int]:
    """The run-time axes of ``v`` whose lengths are provably those of the
    region axes they broadcast against (``region``: a key per region axis,
    None where unknown), aligned at the trailing axes."""
    offset = len(region) - v.type.ndim
    return {k for k, d in enumerate(v.shape)
            if d is None and 0 <= offset + k < len(region) and region[offset + k] is not None
            and length_key(v, k, through_views=True) == region[offset + k]}
