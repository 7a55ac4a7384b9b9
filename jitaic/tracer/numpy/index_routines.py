"""NumPy's indexing routines written over subscripting: put, put_along_axis,
place, extract, compress, choose, copyto, fill_diagonal, unravel_index,
ravel_multi_index and the *_indices_from constructors. Writes address the
array in its own shape (flat positions become coordinates), so they reach
it, and the array it views, as NumPy's in-place routines do: a flattened
copy of a strided view would take them instead.
"""

from __future__ import annotations

import numpy as np

from jitaic.errors import at, user_location
from jitaic.tracer.core import Tracer
from jitaic.tracer.numpy import common
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    broadcast_to,
    normalize_axes,
    require,
    unsupported,
)
from jitaic.tracer.numpy.indexing import (
    flatnonzero,
    into_range,
    setitem,
    take,
)
from jitaic.tracer.numpy.rearranging import resize
from jitaic.tracer.numpy.reductions import all_, any_, cumsum
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import broadcast_arrays, ravel, reshape
from jitaic.tracer.numpy.ufuncs import apply_ufunc

_MODES = ("raise", "wrap", "clip")


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})"
                         f"{at(user_location())}")


def _cycled(values, count: int, dtype: np.dtype) -> Tracer:
    """``values`` flattened and repeated to ``count`` elements, as NumPy's
    put, place and flat assignment reuse a short sequence."""
    return astype(resize(values, (count,)), dtype, copy=False)


def _coordinates(x: Tracer, flat) -> tuple:
    """The index of x's elements at C-order positions ``flat`` (in range, or
    negative from the end): one array of coordinates per axis. NumPy's
    IndexError for a position outside, when known while tracing."""
    size = int(np.prod(x.shape, dtype=np.int64))
    if not isinstance(flat, Tracer):
        positions = np.asarray(flat, np.intp)
        bad = positions[(positions < -size) | (positions >= size)]
        if bad.size:
            raise IndexError(f"index {bad[0]} is out of bounds for axis 0 with size {size}"
                             f"{at(user_location())}")
        return np.unravel_index(positions % max(size, 1), x.shape)
    require(all_((flat >= -size) & (flat < size)), IndexError,
            f"index out of bounds for axis 0 with size {size}")
    flat = apply_ufunc(np.remainder, astype(flat, np.intp), size)
    coordinates = []
    for n in reversed(x.shape):
        coordinates.append(apply_ufunc(np.remainder, flat, n))
        flat = apply_ufunc(np.floor_divide, flat, n)
    return tuple(reversed(coordinates))


@implements(np.put, method="put")
def put(a, ind, v, mode="raise"):
    """a.flat[ind] = v, v repeated as needed; "wrap"/"clip" bring indices into range."""
    _check_mode(mode)
    x = as_tracer(a)
    indices = ind if isinstance(ind, Tracer) else np.asarray(ind)
    indices = ravel(indices) if isinstance(indices, Tracer) else indices.reshape(-1)
    if indices.shape[0] == 0:
        return None
    if mode != "raise":
        indices = into_range(indices, int(np.prod(x.shape, dtype=np.int64)), mode, "np.put")
    setitem(x, _coordinates(x, indices), _cycled(v, indices.shape[0], x.dtype))
    return None


@implements(np.put_along_axis)
def put_along_axis(arr, indices, values, axis):
    """The writes take_along_axis would read: ``indices`` along ``axis``,
    aranges along the others; values broadcast to the indices."""
    x, idx = as_tracer(arr), as_tracer(indices)
    if axis is None:
        if idx.ndim != 1:
            raise ValueError(f"when axis=None, `indices` must have a single dimension."
                             f"{at(user_location())}")
        setitem(x, _coordinates(x, idx), broadcast_to(as_tracer(values), idx.shape))
        return None
    (axis,) = normalize_axes(axis, x.ndim)
    if idx.ndim != x.ndim:
        raise ValueError(f"`indices` and `arr` must have the same number of dimensions"
                         f"{at(user_location())}")
    key = tuple(idx if d == axis else np.arange(n).reshape((1,) * d + (n,)
                                                            + (1,) * (x.ndim - d - 1))
                for d, n in enumerate(x.shape))
    setitem(x, key, values)
    return None


@implements(np.place)
def place(arr, mask, vals):
    """Each true entry of ``mask`` takes the next of ``vals``, cycling."""
    x = as_tracer(arr)
    selected = ravel(as_tracer(mask))
    if selected.shape[0] != int(np.prod(x.shape, dtype=np.int64)):
        raise ValueError(f"place: mask and data must be the same size{at(user_location())}")
    choices = ravel(as_tracer(vals))
    selected = apply_ufunc(np.not_equal, selected, 0)
    if choices.shape[0] == 0:
        require(apply_ufunc(np.logical_not, any_(selected)), ValueError,
                "Cannot insert from an empty array!")
        return None
    rank = apply_ufunc(np.remainder, cumsum(astype(selected, np.intp)) - 1, choices.shape[0])
    placed = common.where(selected, astype(take(choices, rank), x.dtype), ravel(x))
    setitem(x, Ellipsis, reshape(placed, x.shape))
    return None


@implements(np.extract)
def extract(condition, arr):
    return take(ravel(as_tracer(arr)), flatnonzero(condition))


@implements(np.compress)
def compress(condition, a, axis=None, out=None):
    """The slices along ``axis`` where the 1-d ``condition`` is true (one
    shorter than the axis leaves the rest out)."""
    if out is not None:
        raise unsupported("np.compress(out=)")
    c = as_tracer(condition)
    if c.ndim != 1:
        raise ValueError(f"condition must be a 1-d array{at(user_location())}")
    return take(a, flatnonzero(c), axis=axis)


@implements(method="compress")
def compress_method(self, condition, axis=None, out=None):
    return compress(condition, self, axis, out)


@implements(np.choose, method="choose")
def choose(a, choices, out=None, mode="raise"):
    """choices[a[i]][i], all broadcast together: a where per choice."""
    if out is not None:
        raise unsupported("np.choose(out=)")
    _check_mode(mode)
    index = as_tracer(a)
    options = [as_tracer(c) for c in choices]
    if not options:
        raise ValueError(f"0-length sequence.{at(user_location())}")
    n = len(options)
    if mode == "raise":
        require(all_((index >= 0) & (index < n)), ValueError, "invalid entry in choice array")
    else:
        index = into_range(index, n, mode, "np.choose")
    dtype = np.result_type(*(o.dtype for o in options))
    index, *options = broadcast_arrays(index, *options)
    result = astype(options[0], dtype)
    for k, option in enumerate(options[1:], start=1):
        result = common.where(index == k, astype(option, dtype, copy=False), result)
    return result


@implements(np.copyto)
def copyto(dst, src, casting="same_kind", where=True):
    """dst[...] = src where ``where`` holds, src broadcast to dst; NumPy's
    TypeError for a cast ``casting`` does not allow."""
    x = as_tracer(dst)
    _check_cast(src, x.dtype, casting)
    value = broadcast_to(astype(as_tracer(src), x.dtype, copy=False), x.shape)
    if where is not True:
        value = common.where(broadcast_to(as_tracer(where), x.shape), value, x)
    setitem(x, Ellipsis, value)
    return None


def _check_cast(src, dtype: np.dtype, casting: str) -> None:
    """np.copyto's check; a Python number is weak (NEP 50): it takes the dtype
    it would have beside ``dtype``, and an int must fit."""
    if type(src) in (bool, int, float, complex):
        source, what = np.result_type(dtype, src), "scalar"
        if type(src) is int and dtype.kind in "iu" and not \
                np.iinfo(dtype).min <= src <= np.iinfo(dtype).max:
            raise OverflowError(f"Python integer {src} out of bounds for {dtype}"
                                f"{at(user_location())}")
    else:
        operand = src if isinstance(src, Tracer) else np.asarray(src)
        source, what = operand.dtype, "array data" if operand.ndim else "scalar"
    if not np.can_cast(source, dtype, casting):
        raise TypeError(f"Cannot cast {what} from {source!r} to {dtype!r} according to the "
                        f"rule {casting!r}{at(user_location())}")


@implements(np.fill_diagonal)
def fill_diagonal(a, val, wrap=False):
    """a.flat[::step] = val along the main diagonal (for tall matrices, again
    every n+1 rows when ``wrap``), val repeated as needed."""
    x = as_tracer(a)
    if x.ndim < 2:
        raise ValueError(f"array must be at least 2-d{at(user_location())}")
    if x.ndim == 2:
        step, end = x.shape[1] + 1, None if wrap else x.shape[1] * x.shape[1]
    else:
        if len(set(x.shape)) != 1:
            raise ValueError(f"All dimensions of input must be of equal length"
                             f"{at(user_location())}")
        step, end = 1 + int(np.cumprod(x.shape[:-1]).sum()), None
    positions = np.arange(int(np.prod(x.shape, dtype=np.int64)))[:end:step]
    if positions.size:
        setitem(x, _coordinates(x, positions), _cycled(val, positions.size, x.dtype))
    return None


@implements(np.unravel_index)
def unravel_index(indices, shape, order="C"):
    """The coordinates of flat indices into ``shape``, NumPy's ValueError for
    an index outside it (checked when the code runs)."""
    dims = tuple(int(d) for d in np.atleast_1d(shape))
    if order not in ("C", "F"):
        raise ValueError(f"only 'C' or 'F' order is permitted{at(user_location())}")
    flat = as_tracer(indices)
    if flat.dtype.kind not in "iu":
        raise TypeError(f"only int indices permitted{at(user_location())}")
    size = int(np.prod(dims, dtype=np.int64))
    require(all_((flat >= 0) & (flat < size)), ValueError,
            f"index out of bounds for array with size {size}")
    flat = astype(flat, np.intp)
    coordinates = []
    for n in (reversed(dims) if order == "C" else dims):
        coordinates.append(apply_ufunc(np.remainder, flat, n))
        flat = apply_ufunc(np.floor_divide, flat, n)
    return tuple(reversed(coordinates) if order == "C" else coordinates)


@implements(np.ravel_multi_index)
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat index of each coordinate tuple; ``mode`` per dimension."""
    dims = tuple(int(d) for d in np.atleast_1d(dims))
    coordinates = [as_tracer(c) for c in multi_index]
    if len(coordinates) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}"
                         f"{at(user_location())}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if order not in ("C", "F"):
        raise ValueError(f"only 'C' or 'F' order is permitted{at(user_location())}")
    strides = np.cumprod((1,) + dims[::-1][:-1])[::-1] if order == "C" \
        else np.cumprod((1,) + dims[:-1])
    total = None
    for c, n, m, stride in zip(coordinates, dims, modes, strides, strict=True):
        _check_mode(m)
        if c.dtype.kind not in "iu":
            raise TypeError(f"only int indices permitted{at(user_location())}")
        if m == "raise":
            require(all_((c >= 0) & (c < n)), ValueError, "invalid entry in coordinates array")
        else:
            c = into_range(c, n, m, "np.ravel_multi_index")
        term = astype(c, np.intp) * int(stride)
        total = term if total is None else total + term
    return total


@implements(np.tril_indices_from)
def tril_indices_from(arr, k=0):
    return _indices_from(np.tril_indices, arr, k)


@implements(np.triu_indices_from)
def triu_indices_from(arr, k=0):
    return _indices_from(np.triu_indices, arr, k)


def _indices_from(indices, arr, k) -> tuple:
    x = as_tracer(arr)
    if x.ndim != 2:
        raise ValueError(f"input array must be 2-d{at(user_location())}")
    return tuple(as_tracer(i) for i in indices(x.shape[-2], k=k, m=x.shape[-1]))


@implements(np.diag_indices_from)
def diag_indices_from(arr):
    x = as_tracer(arr)
    if x.ndim < 2:
        raise ValueError(f"input array must be at least 2-d{at(user_location())}")
    if len(set(x.shape)) != 1:
        raise ValueError(f"All dimensions of input must be of equal length"
                         f"{at(user_location())}")
    return tuple(as_tracer(i) for i in np.diag_indices(x.shape[0], x.ndim))

