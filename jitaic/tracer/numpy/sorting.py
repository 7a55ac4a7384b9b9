"""Sorting and searching: sort, argsort (stable) and searchsorted.
"""

from __future__ import annotations

import numpy as np

from jitaic.ir import ops
from jitaic.tracer.core import emit
from jitaic.tracer.numpy.common import as_tracer, astype, normalize_axes, unsupported
from jitaic.tracer.numpy.indexing import take_along_axis
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import ravel


@implements(np.argsort, method="argsort")
def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    if order is not None:
        raise unsupported("np.argsort(order=) (structured arrays)")
    x = as_tracer(a)
    if axis is None:
        x, axis = ravel(x), 0
    (axis,) = normalize_axes(axis, x.ndim)
    return emit(ops.argsort, [x], {"axis": axis}, scalar=False)


@implements(np.sort)
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """The elements in argsort's order (so the gradient flows through the
    gather)."""
    x = as_tracer(a)
    if axis is None:
        x, axis = ravel(x), 0
    return take_along_axis(x, argsort(x, axis, kind, order), axis)


@implements(np.searchsorted, method="searchsorted")
def searchsorted(a, v, side="left", sorter=None):
    if sorter is not None:
        raise unsupported("np.searchsorted(sorter=)")
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    x, y = as_tracer(a), as_tracer(v)
    dtype = np.result_type(x.dtype, y.dtype)
    x, y = astype(x, dtype, copy=False), astype(y, dtype, copy=False)
    return emit(ops.searchsorted, [x, y], {"side": side})


@implements(method="sort")
def sort_method(self, axis=-1, kind=None, order=None):
    """``x.sort()`` sorts in place."""
    self.write(sort(self, axis, kind, order).value)
