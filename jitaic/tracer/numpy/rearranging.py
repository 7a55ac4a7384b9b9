"""Tiling, rearranging, padding and splitting: flips and rotations, roll,
repeat, tile, resize, insert and delete, pad and the split family, as
slices, concatenations and gathers.
"""

from __future__ import annotations

import numpy as np

from jitaic.errors import at, user_location
from jitaic.tracer.core import Tracer, traced_shape
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    broadcast_to,
    full_value,
    normalize_axes,
    not_lowered,
    static_ints,
    unsupported,
)
from jitaic.tracer.numpy.indexing import getitem, take
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import concatenate, moveaxis, ravel, reshape, transpose


@implements(np.flip)
def flip(m, axis=None):
    x = as_tracer(m)
    axes = normalize_axes(axis, x.ndim)
    return getitem(x, tuple(slice(None, None, -1) if d in axes else slice(None)
                            for d in range(x.ndim)))


def _flip_axis(m, axis: int) -> Tracer:
    x = as_tracer(m)
    if x.ndim <= axis:
        raise ValueError(f"Input must be >= {axis + 1}-d.{at(user_location())}")
    return flip(x, axis)


@implements(np.flipud)
def flipud(m):
    return _flip_axis(m, 0)


@implements(np.fliplr)
def fliplr(m):
    return _flip_axis(m, 1)


@implements(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    x = as_tracer(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError(f"len(axes) must be 2.{at(user_location())}")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == x.ndim:
        raise ValueError(f"Axes must be different.{at(user_location())}")
    if not all(-x.ndim <= a < x.ndim for a in axes):
        raise ValueError(f"Axes={axes} out of range for array of ndim={x.ndim}."
                         f"{at(user_location())}")
    (k,) = static_ints(k, "np.rot90's k")
    first, second = (a % x.ndim for a in axes)
    order = list(range(x.ndim))
    order[first], order[second] = second, first
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, first), second)
    if k == 1:
        return transpose(flip(x, second), order)
    return flip(transpose(x, order), second)


def along(x: Tracer, axis: int, part: slice) -> Tracer:
    return getitem(x, tuple(part if d == axis else slice(None) for d in range(x.ndim)))


@implements(np.roll)
def roll(a, shift, axis=None):
    x = as_tracer(a)
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), x.shape)
    shifts, axes = static_ints(shift, "np.roll's shift"), normalize_axes(axis, x.ndim)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    elif len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    for k, ax in zip(shifts, axes):
        n = x.shape[ax]
        if n and k % n:
            cut = n - k % n
            x = concatenate([along(x, ax, slice(cut, None)), along(x, ax, slice(None, cut))],
                            axis=ax)
    return x


@implements(np.repeat, method="repeat")
def repeat(a, repeats, axis=None):
    """A gather whose (static) indices NumPy's own np.repeat computes."""
    x = as_tracer(a)
    if axis is None or x.ndim == 0:  # a 0-d array repeats as a 1-d one (axis 0 or -1)
        normalize_axes(axis, x.ndim)
        x, axis = ravel(x), 0
    (axis,) = normalize_axes(axis, x.ndim)
    counts = static_ints(repeats, "np.repeat's repeats")
    if x.shape[axis] is None:
        return _repeat_run_time_length(x, counts, axis)
    index = np.repeat(np.arange(x.shape[axis]), counts if len(counts) > 1 else counts[0])
    return take(x, index, axis)


def _repeat_run_time_length(x: Tracer, counts: tuple[int, ...], axis: int) -> Tracer:
    """Each element ``count`` times along an axis of run-time length n: the
    gather of positions k // count for k < n * count."""
    from jitaic.tracer.numpy.reductions import cumsum  # (reductions builds on this module)

    if len(counts) != 1:
        raise unsupported("np.repeat with a count per element along an axis of run-time "
                          "length")
    if counts[0] < 0:
        raise ValueError(f"repeats may not contain negative values.{at(user_location())}")
    length = traced_shape(x)[axis] * counts[0]
    positions = cumsum(full_value((length,), 1, np.int64)) - 1
    return take(x, positions // max(counts[0], 1), axis)


@implements(np.tile)
def tile(A, reps):
    x = as_tracer(A)
    reps = static_ints(reps, "np.tile's reps")
    ndim = max(len(reps), x.ndim)
    reps = (1,) * (ndim - len(reps)) + reps
    shape = (1,) * (ndim - x.ndim) + x.shape
    spread = reshape(x, tuple(d for n in shape for d in (1, n)))
    tiled = broadcast_to(spread, tuple(d for r, n in zip(reps, shape) for d in (r, n)))
    return reshape(tiled, tuple(r * n for r, n in zip(reps, shape)))


@implements(np.resize)
def resize(a, new_shape):
    """The flattened array repeated to fill new_shape (zeros if it is empty)."""
    x = ravel(as_tracer(a))
    shape = static_ints(new_shape, "np.resize's new_shape")
    if any(d < 0 for d in shape):
        raise ValueError(f"all elements of `new_shape` must be non-negative"
                         f"{at(user_location())}")
    size = int(np.prod(shape, dtype=np.int64))
    if x.shape[0] == 0:
        return full_value(shape, 0, x.dtype)
    repeated = tile(x, -(-size // x.shape[0]))
    return reshape(repeated[:size], shape)


# ------------------------------------------------------ inserting and deleting
# As NumPy's, with the positions static: the result gathers from the array and
# the values joined along the axis.


def _positions(obj, n: int, what: str) -> np.ndarray:
    """obj (an int, a slice, a sequence of ints or a boolean mask) as positions in range(n)."""
    if isinstance(obj, Tracer):
        raise unsupported(f"np.{what} with traced positions")
    if isinstance(obj, slice):
        return np.arange(*obj.indices(n))
    positions = np.asarray(obj)
    if positions.dtype == bool:
        if positions.ndim != 1 or positions.shape[0] != n:
            raise ValueError(f"boolean array argument obj to {what} must be one dimensional "
                             f"and match the axis length of {n}{at(user_location())}")
        return np.flatnonzero(positions)
    if positions.size == 0:
        return positions.astype(np.intp).reshape(-1)
    if positions.dtype.kind not in "iu":
        raise IndexError(f"index arrays to {what} must be integer{at(user_location())}")
    return positions


def _out_of_bounds(index: int, axis: int, n: int) -> IndexError:
    return IndexError(f"index {index} is out of bounds for axis {axis} with size {n}"
                      f"{at(user_location())}")


@implements(np.insert)
def insert(arr, obj, values, axis=None):
    """values placed before the given positions along ``axis`` (the array
    flattened without one), cast to the array's dtype."""
    x = as_tracer(arr)
    if axis is None:
        x, axis = ravel(x), 0
    (axis,) = normalize_axes(axis, x.ndim)
    n = x.shape[axis]
    positions = _positions(obj, n, "insert")
    new = astype(as_tracer(values), x.dtype)
    new = reshape(new, (1,) * (x.ndim - new.ndim) + new.shape) if new.ndim < x.ndim else new
    if positions.ndim == 0 or (positions.size == 1 and not isinstance(obj, slice)):
        index = int(positions.reshape(-1)[0])
        if not -n <= index <= n:
            raise _out_of_bounds(index, axis, n)
        index = index + n if index < 0 else index
        if positions.ndim == 0:  # a scalar position: values' first axis runs along ``axis``
            new = moveaxis(new, 0, axis) if new.ndim else new
        count = new.shape[axis]
        new = broadcast_to(new, x.shape[:axis] + (count,) + x.shape[axis + 1:])
        before = (slice(None),) * axis
        return concatenate([getitem(x, before + (slice(None, index),)), new,
                            getitem(x, before + (slice(index, None),))], axis=axis)
    positions = np.where(positions < 0, positions + n, positions).reshape(-1)
    if np.any((positions < 0) | (positions > n)):
        bad = next(int(p) for p in np.asarray(obj).reshape(-1) if not -n <= p <= n)
        raise _out_of_bounds(bad, axis, n)
    count = positions.shape[0]
    new = broadcast_to(new, x.shape[:axis] + (count,) + x.shape[axis + 1:])
    slots = positions[np.argsort(positions, kind="stable")] + np.arange(count)
    source = np.empty(n + count, np.intp)  # where each slot of the result comes from
    taken = np.ones(n + count, bool)
    taken[slots] = False
    source[taken] = np.arange(n)
    source[slots] = n + np.argsort(positions, kind="stable")
    return take(concatenate([x, new], axis=axis), as_tracer(source), axis=axis)


@implements(np.delete)
def delete(arr, obj, axis=None):
    """The array without the given positions along ``axis`` (flattened without one)."""
    x = as_tracer(arr)
    if axis is None:
        x, axis = ravel(x), 0
    (axis,) = normalize_axes(axis, x.ndim)
    n = x.shape[axis]
    positions = _positions(obj, n, "delete").reshape(-1)
    for p in positions:
        if not -n <= p < n:
            raise _out_of_bounds(int(p), axis, n)
    keep = np.ones(n, bool)
    keep[positions] = False
    return take(x, as_tracer(np.flatnonzero(keep)), axis=axis)


# ------------------------------------------------------------------ splitting
# As NumPy's: sections (an int) or split points (a sequence), all static; the
# pieces are slices, views of the array as NumPy's are.


@implements(np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    x = as_tracer(ary)
    (axis,) = normalize_axes(axis, x.ndim)  # an AxisError (an IndexError, as NumPy's)
    total = x.shape[axis]
    if isinstance(indices_or_sections, (tuple, list, np.ndarray)):
        points = [0, *static_ints(list(indices_or_sections), "split points"), total]
    else:
        (sections,) = static_ints(indices_or_sections, "the number of sections")
        if sections <= 0:
            raise ValueError(f"number sections must be larger than 0.{at(user_location())}")
        each, extra = divmod(total, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        points = np.cumsum([0, *sizes]).tolist()
    return [along(x, axis, slice(start, end)) for start, end in zip(points, points[1:])]


@implements(np.split)
def split(ary, indices_or_sections, axis=0):
    x = as_tracer(ary)
    if not isinstance(indices_or_sections, (tuple, list, np.ndarray)):
        (sections,) = static_ints(indices_or_sections, "the number of sections")
        (along_axis,) = normalize_axes(axis, x.ndim)
        if sections and x.shape[along_axis] % sections:
            raise ValueError("array split does not result in an equal division"
                             f"{at(user_location())}")
    return array_split(x, indices_or_sections, axis)


def _split_along(ary, indices_or_sections, least_ndim: int, name: str, axis_of):
    x = as_tracer(ary)
    if x.ndim < least_ndim:
        raise ValueError(f"{name} only works on arrays of {least_ndim} or more dimensions"
                         f"{at(user_location())}")
    return split(x, indices_or_sections, axis_of(x.ndim))


@implements(np.hsplit)
def hsplit(ary, indices_or_sections):
    return _split_along(ary, indices_or_sections, 1, "hsplit", lambda ndim: int(ndim > 1))


@implements(np.vsplit)
def vsplit(ary, indices_or_sections):
    return _split_along(ary, indices_or_sections, 2, "vsplit", lambda ndim: 0)


@implements(np.dsplit)
def dsplit(ary, indices_or_sections):
    return _split_along(ary, indices_or_sections, 3, "dsplit", lambda ndim: 2)


# ---------------------------------------------------------------- np.pad

def _pad_source(mode: str, n: int, positions: np.ndarray) -> np.ndarray:
    """The index along an axis of length ``n`` that each padded position
    (counted from the original first element: -2, -1 before it, n, n + 1
    after it) copies, per NumPy's mode."""
    if mode == "edge":
        return np.clip(positions, 0, n - 1)
    if mode == "wrap":
        return positions % n
    if mode == "symmetric":  # ... b a | a b c | c b ...
        p = positions % (2 * n)
        return np.where(p < n, p, 2 * n - 1 - p)
    if n == 1:  # reflect: ... c b | a b c | b a ..., period 2n - 2
        return np.zeros_like(positions)
    p = positions % (2 * n - 2)
    return np.where(p < n, p, 2 * n - 2 - p)


_PAD_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")


@implements(np.pad)
def pad(array, pad_width, mode="constant", **kwargs):
    """Static pad widths. "constant" (``constant_values``: a number, traced or
    not, or per-axis pairs), "edge", "wrap", "reflect" (even) and "symmetric"
    pad one axis after another, as NumPy does, so corners take the later
    axis's padding; the other modes are refused."""
    x = as_tracer(array)
    if callable(mode) or mode not in _PAD_MODES:
        raise not_lowered(f"np.pad(mode={mode!r})")
    allowed = {"constant": {"constant_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}}.get(mode, set())
    if set(kwargs) - allowed:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': "
                         f"{set(kwargs) - allowed}{at(user_location())}")
    if kwargs.get("reflect_type", "even") != "even":
        raise not_lowered("np.pad(reflect_type='odd')")
    widths = _pad_widths(pad_width, x.ndim)
    values = kwargs.get("constant_values", 0)
    for axis, (before, after) in enumerate(widths.tolist()):
        if before == after == 0:
            continue
        if mode == "constant":
            x = _pad_constant(x, axis, before, after, values)
            continue
        n = x.shape[axis]
        if n == 0:
            raise ValueError(f"can't extend empty axis {axis} using modes other than "
                             f"'constant' or 'empty'{at(user_location())}")
        positions = np.arange(-before, n + after)
        x = take(x, _pad_source(mode, n, positions), axis)
    return x


def _pad_widths(pad_width, ndim: int) -> np.ndarray:
    """NumPy's (ndim, 2) widths from an int, a pair or per-axis pairs."""
    if any(isinstance(w, Tracer) for w in np.ravel(np.asarray(pad_width, dtype=object))):
        raise unsupported("np.pad's pad_width given by a traced value (the result's shape "
                          "would depend on the data)")
    widths = np.asarray(pad_width)
    if widths.dtype.kind not in "iu":
        raise TypeError(f"`pad_width` must be of integral type.{at(user_location())}")
    if widths.size and widths.min() < 0:
        raise ValueError(f"index can't contain negative values{at(user_location())}")
    return _per_axis_pairs(widths, ndim)


def _per_axis_pairs(values: np.ndarray, ndim: int) -> np.ndarray:
    """A number, a pair or per-axis pairs as an (ndim, 2) array (NumPy's error
    for any other shape, at the user's line)."""
    try:
        return np.broadcast_to(values, (ndim, 2))
    except ValueError as exc:
        raise ValueError(f"{exc}{at(user_location())}") from None


def _pad_constant(x: Tracer, axis: int, before: int, after: int, values) -> Tracer:
    if isinstance(values, Tracer):
        fill = (values, values)
    else:
        pairs = _per_axis_pairs(np.asarray(values), x.ndim)
        fill = tuple(pairs[axis].tolist())
    parts = []
    for width, value in ((before, fill[0]), (after, fill[1])):
        shape = x.shape[:axis] + (width,) + x.shape[axis + 1:]
        parts.append(full_value(shape, value, x.dtype))
    return concatenate([parts[0], x, parts[1]], axis)
