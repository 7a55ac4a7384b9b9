"""Which run-time lengths are provably equal, from the graph alone.

A length known only when the code runs (``x[:i]``) has a key: the window it
comes from (the sliced array's static extent and the slice's bounds, values
computed alike), followed back through elementwise ops, whose run-time lengths
are their operands' (where those differ, the set of their keys: the length
they broadcast to). Two axes with equal keys have equal lengths whatever
the run-time values: fusion iterates them as one domain, the lowering
checks nothing between them (no broadcast error to raise, no length of 1 to
stretch), and the backward pass sums no stretched cotangent.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Node, Value


def length_key(v: Value, axis: int, through_views: bool = False) -> tuple:
    """The key of axis ``axis``'s run-time length: the window it comes from
    (x[:i] and y[:i] of equal static lengths have one run-time length;
    x[:i] and y[:j] stay apart), or else the array it is read from. With
    ``through_views``, also followed through views that take every axis whole
    (``x[::-1]`` has x's lengths)."""
    known: dict[tuple[int, int], tuple] = {}  # a DAG: each value's axis once

    def key(root: Value, k: int) -> tuple:
        if (id(root), k) not in known:
            known[id(root), k] = _key_of(root, k)
        return known[id(root), k]

    def _key_of(root: Value, k: int) -> tuple:
        while root.producer is not None and through_views \
                and _whole_axes_view(root.producer):
            root = root.producer.inputs[0]
        if root.producer is not None and root.producer.op is ops.broadcast_like:
            return key(root.producer.inputs[1], k)  # like's shape
        if root.producer is not None and _elementwise(root.producer):
            back = root.type.ndim - k
            keys = {key(x, x.type.ndim - back) for x in root.producer.inputs
                    if x.type.ndim >= back and x.shape[x.type.ndim - back] is None}
            if keys:
                return _broadcast_key(keys)
        return _window_length(root, k) or (id(root), k)

    return key(v, axis)


def _broadcast_key(keys: set[tuple]) -> tuple:
    """The key of the length that lengths of ``keys`` broadcast to: one of them,
    or the set of all (broadcasting is a function of the set of lengths, so
    broadcasting that result against one of them again gives it back)."""
    atoms = frozenset().union(*(k[1] if k[0] == "broadcast" else {k} for k in keys))
    return next(iter(atoms)) if len(atoms) == 1 else ("broadcast", atoms)


def _elementwise(node: Node) -> bool:
    """An elementwise op over an array domain: its lengths broadcast its operands'."""
    return ops.ELEMENTWISE in node.op.traits and node.outputs[0].type.ndim > 0 \
        and not node.regions


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
    array's static extent there and the bounds (``value_key``), equal for
    windows of equal length; None for any other axis."""
    values, keys = iter(values), []
    for dim, entry in enumerate(index):
        if ops.is_range(entry):
            _, start, stop, step = entry
            bounds = [value_key(next(values)) if b == ops.DYNAMIC else b
                      for b in (start, stop)]
            n = shape[dim]
            keys.append(None if n is None else ("window", n, *bounds, step))
            continue
        if entry == ops.DYNAMIC or ops.is_dynamic_slice(entry):
            next(values)
        if entry != ops.DYNAMIC and not isinstance(entry, (int, np.integer)):
            keys.append(None)
    return keys


def value_key(v: Value) -> tuple:
    """A key equal for two values computed alike from the same values
    (``x[:n[0]]`` and ``y[:n[0]]`` read n[0] twice, ``a[a < 0] = -a[a < 0]``
    compares twice, until CSE merges them): casts, reads at static indices,
    elementwise arithmetic and small constants are followed; any other
    value is itself."""
    node = v.producer
    if node is not None and node.op is ops.constant:
        value = np.asarray(node.attrs["value"])
        return ("constant", value.dtype.str, value.shape, value.tobytes()) \
            if value.size <= 16 else ("value", id(v))
    if node is None or node.regions or len(node.outputs) != 1 or not (
            node.op in (ops.astype, ops.getitem) or ops.ELEMENTWISE in node.op.traits):
        return ("value", id(v))
    if node.op is ops.astype and node.inputs[0].dtype == v.dtype:
        return value_key(node.inputs[0])
    attrs = tuple(sorted(node.attrs.items()))
    try:
        hash(attrs)
    except TypeError:  # an unhashable attribute: the value itself
        return ("value", id(v))
    return (node.op.name, attrs, v.type, *(value_key(x) for x in node.inputs))


def result_keys(v: Value) -> tuple[tuple | None, ...]:
    """Per axis of ``v``, the key of its run-time length; None where static."""
    return tuple(None if d is not None else length_key(v, k, through_views=True)
                 for k, d in enumerate(v.shape))


def proven_axes(v: Value, region: Sequence[tuple | None]) -> set[int]:
    """The run-time axes of ``v`` whose lengths are provably those of the
    region axes they broadcast against (``region``: a key per region axis,
    None where unknown), aligned at the trailing axes."""
    offset = len(region) - v.type.ndim
    return {k for k, d in enumerate(v.shape)
            if d is None and 0 <= offset + k < len(region) and region[offset + k] is not None
            and length_key(v, k, through_views=True) == region[offset + k]}
