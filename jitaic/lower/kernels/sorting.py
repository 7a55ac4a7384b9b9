"""Sorting and selection along an axis: sort, argsort, partition-based select,
searchsorted, through runtime helpers called per lane; the order of rows.
"""

from __future__ import annotations

import numpy as np

from jitaic.ir import ops
from jitaic.ir.graph import Node
from jitaic.lower import numpy_sort
from jitaic.lower.codegen import Emitter, empty
from jitaic.lower.kernels.loops import dims, each_lane, lowering


@lowering(ops.select)
def _select(em: Emitter, node: Node) -> None:
    """A quickselect of each lane (order.select_smallest)."""
    (x,) = node.inputs
    out, ks = node.output, node.attrs["ks"]
    name = em.define(out)
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    kth = em.constant_arg(np.array(ks, np.int64))
    with each_lane(em, x, x.type.ndim - 1, x.type.size) as lane:
        em.line(f"order.select_smallest({em(x)}[{lane}], {kth}, {name}[{lane}])")


@lowering(ops.argsort)
def _argsort(em: Emitter, node: Node) -> None:
    """A stable sort (NaN last, as NumPy's) of each lane of the axis (order.argsort_into)."""
    (x,) = node.inputs
    name = em.define(node.output)
    em.line(f"{name} = {empty(dims(em, x), np.int64)}")
    with each_lane(em, x, node.attrs["axis"]) as lane:
        em.line(f"order.argsort_into({em(x)}[{lane}], {name}[{lane}])")


@lowering(ops.sort)
def _sort(em: Emitter, node: Node) -> None:
    """NumPy's own sort loop of the kind on each lane (order.sort_into), or,
    where that loop is not found, the stable radix sort."""
    (x,) = node.inputs
    kind = node.attrs["kind"]
    name = em.define(node.output)
    em.line(f"{name} = {empty(dims(em, x), x.dtype)}")
    numpys = numpy_sort.available(x.dtype, kind)
    with each_lane(em, x, node.attrs["axis"]) as lane:
        lanes = f"{em(x)}[{lane}], {name}[{lane}]"
        em.line(f"order.sort_into({lanes}, {kind!r})" if numpys
                else f"order.stable_sort_into({lanes})")


@lowering(ops.argsort_rows)
def _argsort_rows(em: Emitter, node: Node) -> None:
    """A merge sort of row indices (order.argsort_rows)."""
    (x,) = node.inputs
    em.line(f"{em.define(node.output)} = order.argsort_rows({em(x)})")


@lowering(ops.searchsorted)
def _searchsorted(em: Emitter, node: Node) -> None:
    a, v = node.inputs
    out = node.output
    name = em.define(out)
    right = node.attrs["side"] == "right"
    if not out.type.ndim:
        em.line(f"{name} = order.search_sorted({em(a)}, {em(v)}, {right})")
        return
    em.line(f"{name} = {empty(out.shape, out.dtype)}")
    index = [em.fresh(f"i{d}") for d in range(v.type.ndim)]
    with em.loops(list(zip(index, v.shape, strict=True)), out.type.size):
        at = ", ".join(index)
        em.line(f"{name}[{at}] = order.search_sorted({em(a)}, {em(v)}[{at}], {right})")
