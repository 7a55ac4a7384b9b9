"""Changing an array's shape without touching its elements: reshape and ravel
(views where NumPy's are), transposes, added and removed axes, broadcasting,
joining (concatenate, stack), and the queries answered from the static type.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from jitaic.errors import ShapeError, at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, ViewStep, emit, traced_shape
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    broadcast_view,
    copy_array,
    full_value,
    normalize_axes,
    require,
    unsupported,
    view,
)
from jitaic.tracer.numpy.registry import implements


def _resolve_shape(shape, size: int) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = [int(d) for d in shape]
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape "
                             f"{tuple(shape)}{at(user_location())}")
        shape[shape.index(-1)] = size // known
    return tuple(shape)


def _reshape_run_time(a: Tracer, shape) -> Tracer:
    """Reshape an array with a run-time extent: only length-1 axes may come or
    go (x[:i][:, None]); an axis of run-time length is given as -1, None or
    its traced length (``y.shape[0]``, checked when the code runs)."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    kept = iter(k for k, d in enumerate(a.shape) if d != 1)
    resolved, from_axes, unknown = [], [], 0
    for d in shape:
        traced = isinstance(d, Tracer)
        d = -1 if d is None or traced else int(d)
        unknown += d == -1 and not traced
        axis = None if d == 1 else next(kept, -1)
        size = 1 if axis is None else a.shape[axis] if axis >= 0 else 0
        if traced and axis is not None and axis >= 0:  # NumPy's error where it differs
            length = emit(ops.dim_size, [a], {"axis": axis}) if size is None else size
            require(shape[len(resolved)] == length, ValueError,
                    "cannot reshape an array of run-time length into the shape asked for")
        resolved.append(size if d in (-1, size) else 0)
        from_axes.append(axis)
    if 0 in resolved or list(kept) or unknown > 1:
        ops.check_static(a.aval, "a reshape other than adding or removing length-1 axes",
                         at(user_location()))
    attrs = {"shape": tuple(resolved), "from_axes": tuple(from_axes)}
    return emit(ops.reshape, [a], attrs, scalar=False)


@implements(np.reshape)
def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        raise unsupported(f"reshape with order={order!r}")
    a = as_tracer(a)
    if not a.aval.static:
        return _reshape_run_time(a, newshape if shape is None else shape)
    shape = _resolve_shape(newshape if shape is None else shape, a.size)
    if int(np.prod(shape, dtype=np.int64)) != a.size:
        raise ShapeError(f"cannot reshape array of size {a.size} into shape {shape}"
                         f"{at(user_location())}")
    if shape == a.shape:
        return view(a, ())
    if _is_c_contiguous(a) or _unit_axes_only(a.shape, shape):
        # NumPy returns a view: writes through it reach `a`
        return view(a, (ViewStep(ops.reshape, (("shape", shape),)),))
    return emit(ops.reshape, [a], {"shape": shape}, scalar=False)


def _unit_axes_only(old: tuple[int, ...], new: tuple[int, ...]) -> bool:
    """A reshape that only adds or drops length-1 axes (x[None], squeeze): a
    view in NumPy whatever x's strides."""
    return [d for d in old if d != 1] == [d for d in new if d != 1]


def _is_c_contiguous(a: Tracer) -> bool:
    """Whether NumPy would hold ``a`` in one C-ordered block (reshape is a view)."""
    if not a._buffer.c_contiguous:
        return False
    steps = a._view
    if all(s.op is ops.reshape for s in steps):
        return True
    if len(steps) == 1 and steps[0].op is ops.getitem:
        index = steps[0].attr
        rest = [e for e in index if not isinstance(e, int)]
        return not rest or (len(rest) == 1 and isinstance(index[-1], tuple)
                            and index[-1][2] == 1)
    return False


@implements(np.ravel, method="ravel")
def ravel(a, order="C"):
    a = as_tracer(a)
    return reshape(a, -1, order)


@implements(np.transpose)
def transpose(a, axes=None):
    a = as_tracer(a)
    if axes is None:
        perm = tuple(range(a.ndim))[::-1]
    else:
        perm = tuple(int(p) % max(a.ndim, 1) for p in axes)
        if len(perm) != a.ndim:
            raise ValueError(f"axes don't match array{at(user_location())}")
    if perm == tuple(range(a.ndim)):
        return view(a, ())
    return view(a, (ViewStep(ops.transpose, (("perm", perm),)),))


@implements(np.swapaxes, method="swapaxes")
def swapaxes(a, axis1, axis2):
    a = as_tracer(a)
    perm = list(range(a.ndim))
    i, j = normalize_axes(axis1, a.ndim)[0], normalize_axes(axis2, a.ndim)[0]
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(a, perm)


@implements(np.moveaxis)
def moveaxis(a, source, destination):
    a = as_tracer(a)
    src = [normalize_axes(s, a.ndim)[0] for s in np.atleast_1d(source)]
    dst = [normalize_axes(d, a.ndim)[0] for d in np.atleast_1d(destination)]
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return transpose(a, order)


@implements(np.rollaxis)
def rollaxis(a, axis, start=0):
    a = as_tracer(a)
    (axis,) = normalize_axes(axis, a.ndim)
    start += a.ndim if start < 0 else 0
    if not 0 <= start < a.ndim + 1:
        raise np.exceptions.AxisError(
            f"'start' arg requires {-a.ndim} <= start < {a.ndim + 1}, but {start} was passed "
            f"in{at(user_location())}")
    order = [d for d in range(a.ndim) if d != axis]
    order.insert(start - (axis < start), axis)
    return transpose(a, order)


@implements(np.expand_dims)
def expand_dims(a, axis):
    a = as_tracer(a)
    axes = normalize_axes(axis, a.ndim + len(np.atleast_1d(axis)))
    shape = list(a.shape)
    for ax in axes:
        shape.insert(ax, 1)
    return reshape(a, tuple(shape))


@implements(np.squeeze, method="squeeze")
def squeeze(a, axis=None):
    a = as_tracer(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(a.shape) if d == 1)
    else:
        axes = normalize_axes(axis, a.ndim)
        if any(a.shape[i] != 1 for i in axes):
            raise ValueError("cannot select an axis to squeeze out which has size not "
                             f"equal to one{at(user_location())}")
    return reshape(a, tuple(d for i, d in enumerate(a.shape) if i not in axes))


@implements(np.broadcast_arrays)
def broadcast_arrays(*args, subok=False):
    """NumPy's views of the arguments broadcast together, later writes into
    the arguments included. One that needed broadcasting refuses writes:
    NumPy's would reach every element sharing the memory (and warns that it
    will be read-only)."""
    arrays = [as_tracer(a) for a in args]
    shape = ops.broadcast_shapes(*(a.aval.shape for a in arrays))
    if None in shape:  # the length the lengths broadcast to, known when it runs
        together = functools.reduce(lambda a, b: emit(ops.logical_or, [a, b], scalar=False),
                                    [astype(a, np.bool_) for a in arrays])
        return tuple(broadcast_view(a, traced_shape(together), _SHARED_WRITES)
                     for a in arrays)
    return tuple(a if a.aval.shape == shape else broadcast_view(a, shape, _SHARED_WRITES)
                 for a in arrays)


_SHARED_WRITES = ("writing into an array np.broadcast_arrays broadcast is not supported "
                  "(NumPy's write reaches every element sharing its memory); write into a "
                  "copy")


@implements(np.atleast_1d)
def atleast_1d(*arys):
    out = tuple(reshape(a, (1,)) if np.ndim(a) == 0 else as_tracer(a) for a in arys)
    return out[0] if len(out) == 1 else out  # several: a tuple, as NumPy 2's


@implements(np.atleast_2d)
def atleast_2d(*arys):
    out = []
    for a in (as_tracer(a) for a in arys):
        out.append(reshape(a, (1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a)
    return out[0] if len(out) == 1 else tuple(out)


@implements(np.atleast_3d)
def atleast_3d(*arys):
    out = []
    for a in (as_tracer(a) for a in arys):
        shape = {0: (1, 1, 1), 1: (1, *a.shape, 1), 2: (*a.shape, 1)}.get(a.ndim, a.shape)
        out.append(reshape(a, shape) if a.ndim < 3 else a)
    return out[0] if len(out) == 1 else tuple(out)


@implements(np.block)
def block(arrays):
    """Nested lists of arrays joined as NumPy's block: the innermost lists
    along the last axis, each outer level one axis further out; arrays
    given leading 1s up to the result's number of dimensions."""
    depth = _block_depth(arrays, "arrays")
    ndim = max(depth, max(as_tracer(a).ndim for a in _block_leaves(arrays)))
    joined = _joined_blocks(arrays, depth, ndim, 0)
    return copy_array(joined) if depth == 0 else joined  # (a new array either way)


def _block_depth(arrays, where: str) -> int:
    """The nesting depth of the lists, NumPy's errors for tuples, empty
    lists and lists whose depths differ."""
    if isinstance(arrays, tuple):
        raise TypeError(f"{where} is a tuple. Only lists can be used to arrange blocks, and "
                        f"np.block does not allow implicit conversion from tuple to ndarray."
                        f"{at(user_location())}")
    if not isinstance(arrays, list):
        return 0
    if not arrays:
        raise ValueError(f"List at {where} cannot be empty{at(user_location())}")
    depths = [_block_depth(item, f"{where}[{i}]") for i, item in enumerate(arrays)]
    if any(d != depths[0] for d in depths):
        bad = next(i for i, d in enumerate(depths) if d != depths[0])
        raise ValueError(f"List depths are mismatched. First element was at depth "
                         f"{depths[0] + 1}, but there is an element at depth "
                         f"{depths[bad] + 1} ({where}[{bad}]){at(user_location())}")
    return depths[0] + 1


def _block_leaves(arrays):
    if isinstance(arrays, list):
        for item in arrays:
            yield from _block_leaves(item)
    else:
        yield arrays


def _joined_blocks(arrays, depth: int, ndim: int, level: int) -> Tracer:
    if level == depth:
        a = as_tracer(arrays)
        return reshape(a, (1,) * (ndim - a.ndim) + a.shape)
    parts = [_joined_blocks(item, depth, ndim, level + 1) for item in arrays]
    return concatenate(parts, axis=ndim - (depth - level))


@implements(np.append)
def append(arr, values, axis=None):
    arr, values = as_tracer(arr), as_tracer(values)
    if axis is None:
        arr = ravel(arr) if arr.ndim != 1 else arr
        values, axis = ravel(values), arr.ndim - 1
    return concatenate((arr, values), axis=axis)


@implements(np.concatenate)
def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    if out is not None:
        raise unsupported("np.concatenate(out=)")
    arrays = [as_tracer(a) for a in arrays]
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if any(a.ndim == 0 for a in arrays):
        raise ValueError("zero-dimensional arrays cannot be concatenated"
                         f"{at(user_location())}")
    axis = normalize_axes(axis, arrays[0].ndim)[0]
    if dtype is not None:
        arrays = [astype(a, dtype) for a in arrays]
    if len(arrays) == 1:
        return copy_array(arrays[0])
    if any(None in a.aval.shape for a in arrays):
        return _concatenate_run_time_lengths(arrays, axis)
    return emit(ops.concatenate, arrays, {"axis": axis}, scalar=False)


_MUST_MATCH = "all the input array dimensions except for the concatenation axis must match exactly"


def _concatenate_run_time_lengths(arrays: list[Tracer], axis: int) -> Tracer:
    """Arrays some of whose lengths are known at run time only (one grown in
    a loop, rows picked by a mask): each stored into its range of a fresh
    array. The other axes must match exactly, as NumPy checks (a slice
    assignment alone would stretch a length of 1)."""
    if len({a.ndim for a in arrays}) > 1:
        raise ValueError(f"all the input arrays must have same number of dimensions"
                         f"{at(user_location())}")
    shapes = [traced_shape(a) for a in arrays]
    shape = list(shapes[0])
    for k in range(len(shape)):
        if k == axis:
            shape[k] = functools.reduce(operator.add, [s[k] for s in shapes])
            continue
        static = {s[k] for s in shapes if not isinstance(s[k], Tracer)}
        if len(static) > 1:
            raise ValueError(f"{_MUST_MATCH}{at(user_location())}")
        shape[k] = static.pop() if static else shape[k]
        for s in shapes:
            if isinstance(s[k], Tracer) and s[k] is not shape[k]:
                require(s[k] == shape[k], ValueError, _MUST_MATCH)
    out = full_value(tuple(shape), 0, np.result_type(*(a.dtype for a in arrays)))
    start = 0
    for a, s in zip(arrays, shapes, strict=True):
        out[(slice(None),) * axis + (slice(start, start + s[axis]),)] = a
        start = start + s[axis]
    return out


@implements(np.stack)
def stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = [as_tracer(a) for a in arrays]
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError(f"all input arrays must have the same shape{at(user_location())}")
    axis = normalize_axes(axis, arrays[0].ndim + 1)[0]
    return concatenate([expand_dims(a, axis) for a in arrays], axis, out, dtype)


@implements(np.hstack)
def hstack(tup, dtype=None, casting="same_kind"):
    arrays = [atleast_1d(a) for a in tup]
    return concatenate(arrays, 0 if arrays[0].ndim == 1 else 1, dtype=dtype)


@implements(np.vstack)
def vstack(tup, dtype=None, casting="same_kind"):
    return concatenate([atleast_2d(a) for a in tup], 0, dtype=dtype)


@implements(np.column_stack)
def column_stack(tup):
    arrays = [as_tracer(a) for a in tup]
    arrays = [reshape(a, (-1, 1)) if a.ndim < 2 else a for a in arrays]
    return concatenate(arrays, 1)


@implements(method="reshape")
def reshape_method(self, *shape, order="C"):
    """``x.reshape(2, 3)`` as well as ``x.reshape((2, 3))``."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    return reshape(self, shape, order)


@implements(method="transpose")
def transpose_method(self, *axes):
    """``x.transpose(1, 0)`` as well as ``x.transpose((1, 0))``."""
    if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
        axes = axes[0]
    return transpose(self, axes or None)


@implements(method="flatten")
def flatten(self, order="C"):
    return copy_array(ravel(self))


# ---------------------------------------------------------------- static queries
# Answered from the traced array's type, never recorded.

@implements(np.shape)
def static_shape(a):
    return as_tracer(a).shape


@implements(np.ndim)
def static_ndim(a):
    return as_tracer(a).ndim


@implements(np.size)
def static_size(a, axis=None):
    a = as_tracer(a)
    return a.size if axis is None else a.shape[axis]


@implements(np.result_type)
def result_type(*arrays_and_dtypes):
    return np.result_type(*(x.dtype if isinstance(x, Tracer) else x for x in arrays_and_dtypes))
