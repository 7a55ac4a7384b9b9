"""Sorting and searching: sort, argsort (stable), searchsorted, and the
searches whose result length the data decides: nonzero, argwhere and np.where
with one argument.
"""

from __future__ import annotations

import numpy as np

from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    broadcast_to,
    full_value,
    normalize_axes,
    unsupported,
    where,
)
from jitaic.tracer.numpy.indexing import getitem, take_along_axis
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import ravel, reshape, stack
from jitaic.tracer.numpy.ufuncs import apply_ufunc


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


# ---------------------------------------------------------------- lengths the data decides
# Each result has one element per true entry of a mask: a length known when
# the code runs (``x[mask]``, the compress op).


def _index_grid(shape: tuple[int, ...], axis: int) -> Tracer:
    """Each element's index along ``axis`` (np.indices(shape)[axis])."""
    if None in shape:
        raise unsupported("np.nonzero of an array whose length is only known at run time")
    line = as_tracer(np.arange(shape[axis], dtype=np.int64))
    return broadcast_to(reshape(line, tuple(-1 if d == axis else 1 for d in range(len(shape)))),
                        shape)


def _nonzero_mask(x: Tracer) -> Tracer:
    return x if x.dtype == np.bool_ else apply_ufunc(np.not_equal, x, 0)


@implements(np.nonzero, method="nonzero")
def nonzero(a):
    x = as_tracer(a)
    if x.ndim == 0:
        raise ValueError(f"Calling nonzero on 0d arrays is not allowed. Use "
                         f"np.atleast_1d(scalar).nonzero() instead.{at(user_location())}")
    mask = _nonzero_mask(x)
    return tuple(getitem(_index_grid(x.shape, d), mask) for d in range(x.ndim))


@implements(np.argwhere)
def argwhere(a):
    """Rows of nonzero's indices: the index grids stacked on a last axis, read
    through the mask."""
    x = as_tracer(a)
    if x.ndim == 0:  # NumPy's: a (count, 0) array
        return getitem(full_value((1, 0), 0, np.int64), reshape(_nonzero_mask(x), (1,)))
    grid = stack([_index_grid(x.shape, d) for d in range(x.ndim)], axis=-1)
    return getitem(grid, _nonzero_mask(x))


@implements(np.where)
def where_(condition, x=None, y=None):
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError(f"either both or neither of x and y should be given"
                         f"{at(user_location())}")
    return where(condition, x, y)
