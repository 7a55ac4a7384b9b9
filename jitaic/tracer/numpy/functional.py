"""NumPy's functional routines: apply_along_axis as one compiled loop.

(``piecewise`` lives with the mathematical functions; ``apply_over_axes``
stays NumPy's, through the callback, which refuses its function argument.)
"""

from __future__ import annotations

import math

import numpy as np

from jitaic.errors import at, user_location
from jitaic.tracer.numpy.common import as_tracer, full_value, normalize_axis_index
from jitaic.tracer.numpy.indexing import getitem, setitem
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import moveaxis, reshape


@implements(np.apply_along_axis)
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """NumPy's: ``func1d`` of every 1-D slice along ``axis``, its results'
    axes where ``axis`` was. The function is traced once, on the first
    slice, for its result's shape and dtype (NumPy's buffer), and once more
    as the body of a loop over all slices: one loop in the compiled code,
    however many slices."""
    from jitaic.tracer import loops  # loops builds on this package

    x = as_tracer(arr)
    axis = normalize_axis_index(axis, x.ndim)
    lanes = moveaxis(x, axis, -1)
    outer = lanes.shape[:-1]
    count = math.prod(outer)
    if count == 0:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0"
                         f"{at(user_location())}")
    rows = reshape(lanes, (count, lanes.shape[-1]))

    def result_of(row):
        return as_tracer(func1d(getitem(rows, (row, Ellipsis)), *args, **kwargs))

    first = result_of(0)

    def store(k, table):
        setitem(table, k, result_of(k))
        return (table,)

    (table,) = loops.for_loop(0, count, 1, store,
                              [full_value((count,) + first.shape, 0, first.dtype)])
    buffered = reshape(table, outer + first.shape)
    return moveaxis(buffered, tuple(range(len(outer), buffered.ndim)),
                    tuple(range(axis, axis + first.ndim)))
