"""Indexing and assignment: basic indexing as views, run-time indices and
slices (bounds-checked), advanced indexing as gather and scatter, masks,
``np.add.at``, take, take_along_axis, diagonal and flatnonzero.
"""

from __future__ import annotations

import math

import numpy as np

from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import (
    READ_ONLY,
    Tracer,
    ViewStep,
    current,
    emit,
    new_tracer,
    traced_shape,
)
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    broadcast_to,
    concrete,
    copy_array,
    derived_view,
    full_value,
    normalize_axes,
    not_lowered,
    require,
    unsupported,
    view,
    where,
)
from jitaic.tracer.numpy.reductions import cumsum
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import moveaxis, ravel, reshape
from jitaic.tracer.numpy.ufuncs import apply_ufunc, real


@implements(np.take_along_axis)
def take_along_axis(arr, indices, axis=-1):
    """NumPy's definition: integer-array indexing with aranges on the other axes."""
    x, idx = as_tracer(arr), as_tracer(indices)
    if axis is None:
        x, axis = ravel(x), 0
    (axis,) = normalize_axes(axis, x.ndim)
    if idx.ndim != x.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    key = tuple(idx if d == axis else np.arange(n).reshape(
        (1,) * d + (n,) + (1,) * (x.ndim - d - 1)) for d, n in enumerate(x.shape))
    return getitem(x, key)


@implements(np.diagonal, method="diagonal")
def diagonal(a, offset=0, axis1=0, axis2=1):
    """NumPy's read-only view: ``axis1`` and ``axis2`` dropped, the diagonal
    appended as the last axis."""
    x = as_tracer(a)
    if x.ndim < 2:
        raise ValueError(f"diag requires an array of at least two dimensions"
                         f"{at(user_location())}")
    (axis1,), (axis2,) = (normalize_axes(axis1, x.ndim, "axis1"),
                          normalize_axes(axis2, x.ndim, "axis2"))
    if axis1 == axis2:
        raise ValueError(f"axis1 and axis2 cannot be the same{at(user_location())}")
    if isinstance(offset, Tracer):
        raise unsupported("np.diagonal with a traced offset")
    rows_n, cols_n = x.shape[axis1], x.shape[axis2]
    if rows_n is None or cols_n is None:
        raise unsupported("np.diagonal across an axis of run-time length")
    offset = int(offset)
    n = max(0, min(rows_n, cols_n - offset) if offset >= 0 else min(rows_n + offset, cols_n))
    rows = np.arange(n) - min(offset, 0)
    moved = moveaxis(x, (axis1, axis2), (-2, -1))
    return derived_view(x, moved, getitem(moved, (Ellipsis, rows, rows + offset)), READ_ONLY)


def _normalize_index(key: object, shape: tuple[int, ...]) -> tuple[tuple, list[int]]:
    """Basic index -> (normalized index of ints/slice triples, positions of None).

    Normalized slices are triples ``(start, stop, step)`` that select the same
    elements as the user's slice; ``stop`` is None when it runs past the front.
    """
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:  # NumPy reads each integer as a C long, then counts the indices
        _read_as_c_long(k)
    # ... and converts slice bounds after counting them
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {n_real} were indexed{at(user_location())}")
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    for k in key:
        if _is_dynamic_int(k):
            continue
        if isinstance(k, (Tracer, list, np.ndarray)) and not (
                isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu"):
            raise unsupported("indexing with an array (advanced indexing)")
        if _is_traced_slice(k) and isinstance(k.step, Tracer):
            raise unsupported("a slice with a traced step")
        if _is_traced_slice(k) and any(isinstance(b, Tracer) and (b.ndim or b.dtype.kind
                                                                  not in "iu")
                                       for b in (k.start, k.stop)):
            raise TypeError(f"only integer scalar arrays can be converted to a scalar index"
                            f"{at(user_location())}")
    expanded: list = []
    for k in key:
        if k is Ellipsis:
            expanded.extend([slice(None)] * (len(shape) - n_real))
        else:
            expanded.append(k)
    index, new_axes, dim, out_pos, dynamic = [], [], 0, 0, []
    for k in expanded:
        if k is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        if _is_dynamic_int(k):
            index.append(ops.DYNAMIC)
            dynamic.append(k)  # (read as a C long above, before the count)
        elif shape[dim] is None:  # an axis whose length is known at run time only
            index.append(_run_time_entry(k, dynamic))
        elif _is_traced_slice(k):
            length, step = _traced_slice_length(k), k.step or 1
            if length is None or not _always_fits(k.start, length, step, shape[dim]):
                index.append(_run_time_entry(k, dynamic))  # NumPy may shorten it
            else:
                index.append((ops.DYNAMIC, length, step))
                dynamic.append(_slice_bound(k.start))
        else:
            index.append(_normalize_entry(k, shape[dim], dim))
        out_pos += isinstance(index[-1], tuple)
        dim += 1
    while index and index[-1] == (0, shape[len(index) - 1], 1):
        index.pop()  # trailing full slices are implicit
    return tuple(index), new_axes, dynamic


def _run_time_entry(k: object, dynamic: list) -> object:
    """An index entry resolved when the code runs (Python's semantics there):
    a slice with traced bounds becomes a RANGE (its length known at run time
    only), an int on an axis of run-time length a DYNAMIC index."""
    if isinstance(k, slice):
        step = 1 if k.step is None else _static_int(k.step, "slice step")
        if step == 0:
            raise ValueError("slice step cannot be zero")
        bounds = []
        for bound in (k.start, k.stop):
            if bound is None or isinstance(bound, (int, np.integer)):
                bounds.append(None if bound is None else int(bound))
            else:
                bounds.append(ops.DYNAMIC)
                dynamic.append(_slice_bound(bound))
        return (ops.RANGE, *bounds, step)
    dynamic.append(as_tracer(np.int64(_static_int(k, "index"))))
    return ops.DYNAMIC


def _static_int(k: object, what: str) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                         f"(`None`) and integer or boolean arrays are valid indices, got "
                         f"{type(k).__name__} as {what}{at(user_location())}")
    _check_c_long(k)
    return int(k)


def _read_as_c_long(k: object) -> None:
    """NumPy's conversion of an integer index, static or (a run-time check) traced."""
    if _is_dynamic_int(k):
        _as_c_long(k)
    elif isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu":
        _check_c_long(int(k))
    elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
        _check_c_long(k)


def _as_c_long(k: Tracer) -> Tracer:
    """A run-time integer index as NumPy reads it, a C long: a uint64 beyond
    int64 overflows."""
    if k.dtype == np.uint64:
        require(k <= np.uint64(2 ** 63 - 1), OverflowError,
                "Python int too large to convert to C long")
    return k


def _slice_bound(bound: object) -> Tracer:
    """A run-time slice bound as int64: Python's slice takes any int and clips
    it, a uint64 beyond int64 too (to the end)."""
    bound = as_tracer(bound)
    if bound.dtype == np.uint64:
        bound = apply_ufunc(np.minimum, bound, np.uint64(2 ** 63 - 1))
    return astype(bound, np.int64)


def _check_c_long(k: int | np.integer) -> None:
    """NumPy reads a Python int index as a C long: one that fits an unsigned
    64-bit int but not a signed one overflows, any other is no index at all."""
    if -2 ** 63 <= k < 2 ** 63:
        return
    if 2 ** 63 <= k < 2 ** 64:
        raise OverflowError(f"Python int too large to convert to C long{at(user_location())}")
    raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                     f"and integer or boolean arrays are valid indices{at(user_location())}")


def _is_traced_slice(k: object) -> bool:
    return isinstance(k, slice) and any(isinstance(b, Tracer) for b in (k.start, k.stop,
                                                                        k.step))


def _traced_slice_length(k: slice) -> int | None:
    """The static length of ``start:stop:step`` with a traced start, when stop
    is start plus a constant (``j:j + 3``, ``i - 1:i + 2``); else None."""
    if isinstance(k.step, Tracer) or (k.step or 1) <= 0 or k.start is None or k.stop is None:
        return None
    start, stop = _affine(k.start), _affine(k.stop)
    if start is None or stop is None or start[0] is None or start[0] is not stop[0]:
        return None
    return len(range(start[1], stop[1], k.step or 1))


def _always_fits(start: object, length: int, step: int, size: int) -> bool:
    """Whether a window of ``length`` from the traced ``start`` lies inside an
    axis of ``size`` for every value ``start`` can take: a for-loop index with
    static bounds plus a constant. Only then does it keep its static length;
    elsewhere NumPy shortens a window that runs past the end."""
    base, offset = _affine(start) or (None, 0)
    bounds = current().index_bounds.get(base)
    if bounds is None:
        return False
    low, high = bounds
    return low + offset >= 0 and high + offset + ops.slice_span(length, step) <= size


def _affine(x: object) -> tuple[object, int] | None:
    """``x`` as (base value, integer offset): base + offset, through additions and
    subtractions of integer constants (base None: x itself is a constant)."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return None, int(x)
    if not _is_dynamic_int(x):
        return None
    value, offset = x.value, 0
    while value.producer is not None and value.producer.op in (ops.add, ops.subtract):
        a, b = value.producer.inputs
        constant = _int_constant(b)
        if constant is None and value.producer.op is ops.add:
            a, constant = b, _int_constant(a)
        if constant is None:
            break
        offset += constant if value.producer.op is ops.add else -constant
        value = a
    return value, offset


def _int_constant(v) -> int | None:
    node = v.producer
    if node is None or node.op is not ops.constant or node.attrs["value"].dtype.kind not in "iu":
        return None
    return int(node.attrs["value"])


def _is_dynamic_int(k: object) -> bool:
    """A traced integer scalar used as an index (a loop index, say)."""
    return isinstance(k, Tracer) and k.ndim == 0 and k.dtype.kind in "iu"


def _normalize_entry(k: object, size: int, dim: int):
    if isinstance(k, slice):
        start, stop, step = k.indices(size)
        n = len(range(start, stop, step))
        end = start + n * step
        return (start, end if end >= 0 else None, step)
    if isinstance(k, (bool, np.bool_)):
        raise unsupported("indexing with a boolean scalar")
    if isinstance(k, (int, np.integer)):
        _check_c_long(k)
        if not -size <= int(k) < size:
            raise IndexError(f"index {int(k)} is out of bounds for axis {dim} with size "
                             f"{size}{at(user_location())}")
        return int(k) % size
    raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                     f"(`None`) and integer or boolean arrays are valid indices, got "
                     f"{type(k).__name__}{at(user_location())}")


def _is_mask(k: object) -> bool:
    return (isinstance(k, (Tracer, np.ndarray)) and k.dtype == np.bool_ and k.ndim > 0) or (
        isinstance(k, list) and np.asarray(k).dtype == np.bool_)


def _has_advanced(key: object) -> bool:
    """Whether an index holds integer or boolean arrays (NumPy's advanced indexing)."""
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, Tracer) and (k.ndim > 0 or k.dtype == np.bool_):
            return True
        if isinstance(k, list) or (isinstance(k, np.ndarray) and (
                k.ndim > 0 or k.dtype == np.bool_)):
            return True
    return False


def _advanced_index(x: Tracer, key: object) -> tuple[Tracer, list[Tracer], tuple, bool]:
    """(x with the basic part applied, index arrays, the axes they index, front).

    Integers among array indices are indices too (NumPy broadcasts them with
    the arrays); a concrete boolean mask is its ``nonzero()`` index arrays.
    """
    entries: list = []
    for k in key if isinstance(key, tuple) else (key,):
        if k is None:
            raise unsupported("None (np.newaxis) together with array indices")
        if _is_mask(k):
            mask = concrete(k)
            if mask is None:
                raise unsupported("a traced boolean mask together with other indices "
                                   "(x[mask] alone is supported)")
            entries.extend(np.nonzero(mask))
        else:
            entries.append(k)
    for k in entries:
        _read_as_c_long(k)
    n_real = sum(k is not Ellipsis for k in entries)
    if n_real > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, but "
                         f"{n_real} were indexed{at(user_location())}")
    expanded: list = []
    for k in entries:
        expanded += [slice(None)] * (x.ndim - n_real) if k is Ellipsis else [k]
    expanded += [slice(None)] * (x.ndim - len(expanded))
    axes = tuple(i for i, k in enumerate(expanded) if not isinstance(k, slice))
    indices = []
    for axis in axes:
        index = as_tracer(expanded[axis])
        if index.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer (or boolean) type"
                             f"{at(user_location())}")
        known = concrete(expanded[axis])
        if known is not None and x.shape[axis] is not None:
            n = x.shape[axis]
            bad = known[(known < -n) | (known >= n)]
            if bad.size:
                raise IndexError(f"index {bad.flat[0]} is out of bounds for axis {axis} with "
                                 f"size {n}{at(user_location())}")
        indices.append(index)
    basic = tuple(slice(None) if i in axes else k for i, k in enumerate(expanded))
    base = getitem(x, basic) if any(k != slice(None) for k in basic) else x
    front = axes != tuple(range(axes[0], axes[-1] + 1))
    return base, indices, axes, front


def _gather(x: Tracer, key: object) -> Tracer:
    base, indices, axes, front = _advanced_index(x, key)
    return emit(ops.gather, [base, *indices], {"axes": axes, "front": front}, scalar=False)


def _scatter(x: Tracer, key: object, value: object, accumulate: bool) -> None:
    base, indices, axes, front = _advanced_index(x, key)
    v = as_tracer(value)
    if not accumulate:  # np.add.at broadcasts strictly
        ndim = max(i.ndim for i in indices) + base.ndim - len(axes)
        v = _without_empty_leading_axes(_without_leading_ones(v, ndim, "the indexed region"),
                                        ndim)
    if v.dtype != x.dtype:
        v = astype(v, x.dtype)
    attrs = {"axes": axes, "front": front, "accumulate": accumulate}
    base.write(emit(ops.scatter, [base, v, *indices], attrs, scalar=False).value)


def _masked_assign(x: Tracer, mask: Tracer, value: object) -> None:
    """``x[mask] = v`` with a traced mask over x's leading axes: a where when v
    broadcasts over the selected rows, else one row of v per true entry."""
    if mask.shape != x.shape[:mask.ndim]:
        raise IndexError(f"boolean index of shape {mask.shape} does not match the indexed "
                         f"array's shape {x.shape}{at(user_location())}")
    v = as_tracer(value)
    rest = x.shape[mask.ndim:]
    if not ops.fits(v.shape, rest) or not x.aval.static:
        # one row of v per true entry (x[mask] = y[mask] * 2)
        v = astype(v, x.dtype) if v.dtype != x.dtype else v
        x.write(emit(ops.mask_scatter, [x, v, mask], scalar=False).value)
        return
    m = reshape(mask, mask.shape + (1,) * len(rest))
    # v in x's dtype first: NumPy casts the value to the array's dtype and stores
    # it (a where of uint64 and int32 would compute in float64 and round)
    x.write(where(m, astype(v, x.dtype, copy=False), x).value)


def add_at(x: object, key: object, value: object) -> None:
    """``np.add.at(x, key, value)``: unbuffered, so repeated indices add up."""
    if not isinstance(x, Tracer):
        raise unsupported("np.add.at on an array that is not traced")
    if not _has_advanced(key):
        index = key if isinstance(key, tuple) else (key,)
        x[index] = x[index] + as_tracer(value)  # basic indices never repeat
        return
    _scatter(x, key, value, accumulate=True)


def _traced_mask(key: object) -> bool:
    """A boolean mask only known when the code runs (not a constant)."""
    return isinstance(key, Tracer) and _is_mask(key) and concrete(key) is None


def _zero_d_index_array(k: object) -> bool:
    """A 0-d integer array, not a NumPy scalar: NumPy indexes with it as with
    an index array (advanced indexing), so ``x[k]`` is a copy, not a view."""
    return isinstance(k, (np.ndarray, Tracer)) and k.ndim == 0 and k.dtype.kind in "iu" \
        and not (isinstance(k, Tracer) and k._scalar)


@implements(method="__getitem__")
def getitem(self: Tracer, key: object) -> Tracer:
    result = _basic_or_advanced_getitem(self, key)
    if any(map(_zero_d_index_array, key if isinstance(key, tuple) else (key,))):
        return copy_array(result)  # writes through it must not reach self
    return result


def _basic_or_advanced_getitem(self: Tracer, key: object) -> Tracer:
    if _traced_mask(key):  # one row per true entry: a length known at run time only
        return emit(ops.compress, [self, key], scalar=False)
    if isinstance(key, Tracer) and key.dtype == np.bool_ and key.ndim == 0 \
            and concrete(key) is None:  # a new axis of length 1 or 0, as NumPy's x[True]
        return emit(ops.compress, [reshape(self, (1,) + self.shape), reshape(key, (1,))],
                    scalar=False)
    if _has_advanced(key):
        return _gather(self, key)
    index, new_axes, dynamic = _normalize_index(key, self.shape)
    # NumPy gives a 0-d array, not a scalar, when the key holds an Ellipsis
    has_ellipsis = any(k is Ellipsis for k in (key if isinstance(key, tuple) else (key,)))
    if dynamic or any(map(ops.is_range, index)):
        scalar = len(index) == self.ndim and all(not isinstance(e, tuple) for e in index)
        if scalar and not new_axes and not has_ellipsis:
            return emit(ops.dyn_getitem, [self, *dynamic], {"index": index}, scalar=True)
        # A view, like NumPy's x[i]: writes through it reach x.
        step = ViewStep(ops.dyn_getitem, (("index", index),), tuple(d.value for d in dynamic))
        result = view(self, (step,))
        if dynamic:
            _ = result.value  # recorded now: a bad index raises, read or not, as in NumPy
    else:
        all_ints = len(index) == self.ndim and all(isinstance(e, int) for e in index)
        if all_ints and not new_axes and not has_ellipsis:  # a scalar copy, not a view
            return emit(ops.getitem, [self], {"index": index}, scalar=True)
        result = view(self, (ViewStep(ops.getitem, (("index", index),)),) if index else ())
    if new_axes:
        shape = list(result.shape)
        for pos in new_axes:
            shape.insert(pos, 1)
        result = reshape(result, tuple(shape))
    return result


def check_scalar_into(dtype: np.dtype, value: object, numpy_scalars: bool = True) -> None:
    """NumPy's checks on a scalar stored into an integer array: a Python int,
    or a NumPy integer scalar into a signed dtype, must fit the dtype
    (OverflowError); a Python float, or a NumPy float scalar
    into a signed dtype, goes through Python's int(): NaN raises ValueError,
    infinities and huge values OverflowError (float arrays, and NumPy float
    scalars into unsigned dtypes, are cast without a word). A Python complex
    into a float or integer array is a TypeError; a NumPy complex scalar
    stores its real part (checked as a float into integers). Stores through
    masks and index arrays check Python scalars only (``numpy_scalars``
    False): NumPy casts its own scalars there as arrays."""
    if not numpy_scalars and (isinstance(value, np.generic) or (
            isinstance(value, Tracer) and not value.aval.weak)):
        return
    if type(value) is complex and dtype.kind in "fiu":
        converter = "float() argument must be a string or a real number" if dtype.kind == "f" \
            else "int() argument must be a string, a bytes-like object or a real number"
        raise TypeError(f"{converter}, not 'complex'{at(user_location())}")
    if dtype.kind not in "iu":
        return
    if isinstance(value, Tracer) and value._scalar and value.dtype.kind == "c":
        value = real(value)
    info = np.iinfo(dtype)
    if type(value) is int:
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {dtype}"
                                f"{at(user_location())}")
    elif isinstance(value, Tracer):  # a Python float argument is weak
        if value._scalar and value.dtype.kind in "iu" and dtype.kind == "i" \
                and not np.can_cast(value.dtype, dtype):
            # NumPy stores an integer scalar into a signed array through a
            # Python int, range-checked (into an unsigned array it wraps)
            fits = value <= info.max
            if value.dtype.kind == "i":
                fits = fits & (value >= info.min)
            require(fits, OverflowError, f"Python integer out of bounds for {dtype}")
        elif value._scalar and value.dtype.kind == "f" and (dtype.kind == "i" or value.aval.weak):
            require(value == value, ValueError, "cannot convert float NaN to integer")
            require(abs(value) < np.inf, OverflowError,
                    "cannot convert float infinity to integer")
            # int(value) truncates toward zero: it fits where min - 1 < value < max + 1
            # (for int64, -2**63 - 1 rounds to -2**63, which itself fits)
            low = float(info.min) - (1.0 if info.bits < 64 else 0.0)
            inside = (value > low) if info.bits < 64 else (value >= low)
            require(inside & (value < float(info.max) + 1.0), OverflowError,
                    f"Python integer out of bounds for {dtype}")
    elif type(value) is float or (isinstance(value, np.floating) and dtype.kind == "i"):
        try:
            as_int = int(value)
        except (ValueError, OverflowError) as exc:
            raise type(exc)(f"{exc}{at(user_location())}") from None
        check_scalar_into(dtype, as_int)


def _selects_one_element(key: object, ndim: int) -> bool:
    """An integer for every axis (``b[()]`` of a 0-d array too): NumPy then
    stores one element, and an array value is an error even of size 1 (unless
    the array is bool: anything has a truth value)."""
    keys = key if isinstance(key, tuple) else (key,)
    return len(keys) == ndim and all(
        _is_dynamic_int(k) or (isinstance(k, (int, np.integer)) and not isinstance(k, bool))
        for k in keys)


def _one_element(v: Tracer, dtype: np.dtype) -> Tracer:
    """An array stored into one element: an error, except into a bool array,
    which takes the truth value of an array of one element (its length may be
    known at run time only)."""
    message = "setting an array element with a sequence."
    if dtype.kind == "c":  # NumPy converts the value to a Python complex
        raise TypeError(f"only 0-dimensional arrays can be converted to Python "
                        f"scalars{at(user_location())}")
    if dtype != np.bool_:
        raise ValueError(message + at(user_location()))
    require(v.size == 1, ValueError, message)
    return reshape(v, ()) if None not in v.shape else getitem(ravel(v), 0)


def _without_leading_ones(v: Tracer, ndim: int, target: object) -> Tracer:
    """A value stored into ``ndim`` axes may have more leading axes of length 1
    (NumPy drops them: ``a[0] = a`` for a of shape (1, 5)); one whose length
    is known at run time only is checked to be 1 then."""
    extra = v.ndim - ndim
    if extra <= 0 or not all(d in (1, None) for d in v.shape[:extra]):
        return v
    if None not in v.shape[:extra]:
        return reshape(v, v.shape[extra:])
    for axis, d in enumerate(v.shape[:extra]):
        if d is None:
            require(emit(ops.dim_size, [v], {"axis": axis}) == 1, ValueError,
                    f"could not broadcast input array from shape {v.shape} into shape "
                    f"{target}")
    return v[(0,) * extra]


def _without_empty_leading_axes(v: Tracer, ndim: int) -> Tracer:
    """An empty value stored through index arrays may have more leading axes
    of any length, where its last ``ndim`` axes hold no element either
    (NumPy's ``c[c] = np.zeros((2, 0))`` for an empty ``c``; slices and
    masks refuse it)."""
    extra = v.ndim - ndim
    if extra <= 0 or None in v.shape or math.prod(v.shape[extra:]) != 0:
        return v
    return reshape(v, v.shape[extra:])


def _check_assignable(x: Tracer) -> None:
    """A NumPy (or Python) scalar takes no item assignment, a 0-d array does;
    which one a 0-d variable holds may be known only at run time (a flag)."""
    kind = x._kind if x._kind is not None else x._scalar
    if x.ndim or kind is False:
        return
    name = type(x.dtype.type(0).item()).__name__ if x.aval.weak else \
        f"numpy.{type(np.zeros((), x.dtype)[()]).__name__}"
    message = f"'{name}' object does not support item assignment"
    if kind is True:
        raise TypeError(message + at(user_location()))
    require(~new_tracer(kind, scalar=True), TypeError, message)


@implements(method="__setitem__")
def setitem(self: Tracer, key: object, value: object) -> None:
    _check_assignable(self)
    if isinstance(key, Tracer) and key.dtype == np.bool_:  # a 0-d mask: all or nothing
        check_scalar_into(self.dtype, value, numpy_scalars=False)
        _masked_assign(self, key, value)
        return
    if _has_advanced(key):
        check_scalar_into(self.dtype, value, numpy_scalars=False)
        _scatter(self, key, value, accumulate=False)
        return
    index, new_axes, dynamic = _normalize_index(key, self.shape)
    if new_axes:
        raise unsupported("assignment with None (np.newaxis) in the index")
    try:
        check_scalar_into(self.dtype, value)
        v = as_tracer(value)
        target = ops.slice_shape(self.shape, index)
        one_element = _selects_one_element(key, self.ndim) and v.ndim
        if dynamic and None in v.shape and (one_element or v.ndim > len(target)):
            # the value's run-time lengths are checked below, and NumPy checks
            # the index first: a read at it raises its IndexError when run
            emit(ops.dyn_getitem, [self, *dynamic], {"index": index})
        if one_element:
            v = _one_element(v, self.dtype)
        v = _without_leading_ones(v, len(target), target)
        if v.dtype != self.dtype:
            v = astype(v, self.dtype)
        if dynamic or any(map(ops.is_range, index)):
            new = emit(ops.dyn_setitem, [self, v, *dynamic], {"index": index})
            self.write(new.value)
            return
    except (ValueError, TypeError):
        # NumPy checks the index before the value: its IndexError, when a
        # run-time index is out of bounds, comes first (a read checks it)
        if dynamic:
            emit(ops.dyn_getitem, [self, *dynamic], {"index": index})
        raise
    if not index:  # x[...] = v
        target = self.shape
        if ops.broadcast_shapes(v.shape, target) != target:
            raise ValueError(f"could not broadcast input array from shape {v.shape} into "
                             f"shape {target}{at(user_location())}")
        self.write(broadcast_to(v, target).value if v.shape != target else
                   copy_array(v).value)
        return
    self.write(emit(ops.setitem, [self, v], {"index": index}).value)


@implements(np.flatnonzero)
def flatnonzero(a):
    """Indices of the non-zero elements: a run-time length, as ``x[mask]``."""
    x = ravel(as_tracer(a))
    if x.shape[0] is None:  # positions 0 .. n - 1 of a run-time length n
        positions = cumsum(full_value(traced_shape(x), 1, np.intp)) - 1
    else:
        positions = as_tracer(np.arange(x.shape[0]))
    return getitem(positions, apply_ufunc(np.not_equal, x, 0))


@implements(np.take, method="take")
def take(a, indices, axis=None, out=None, mode="raise"):
    """NumPy's take; ``mode="wrap"`` takes indices modulo the length,
    ``"clip"`` clips them to it (negative ones to 0)."""
    if out is not None:
        raise not_lowered("np.take(out=)")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got "
                         f"{mode!r}){at(user_location())}")
    x = as_tracer(a)
    if axis is None:
        x, axis = ravel(x), 0
    (axis,) = normalize_axes(axis, x.ndim)
    if mode != "raise":
        indices = into_range(indices, x.shape[axis], mode, "np.take")
    return getitem(x, (slice(None),) * axis + (indices,))


def into_range(indices: object, n: int | None, mode: str, what: str) -> object:
    """Indices wrapped or clipped into ``range(n)``, as the modes of np.take,
    np.put, np.choose and np.ravel_multi_index do."""
    if n is None:
        raise unsupported(f"{what}(mode={mode!r}) along an axis of run-time length")
    if not isinstance(indices, Tracer):
        indices = np.asarray(indices)
        if not indices.size:  # ([] is float64; NumPy takes it as no indices)
            return indices.astype(np.intp)
        if not n:
            raise IndexError(f"cannot do a non-empty take from an empty axes."
                             f"{at(user_location())}")
        return indices % n if mode == "wrap" else np.clip(indices, 0, n - 1)
    if not n:
        raise unsupported(f"{what}(mode={mode!r}) of traced indices from an empty axis")
    if mode == "wrap":
        return apply_ufunc(np.remainder, indices, n)
    return apply_ufunc(np.minimum, apply_ufunc(np.maximum, indices, 0), n - 1)


@implements(method="fill")
def fill(self, value):
    check_scalar_into(self.dtype, value)
    self.write(full_value(self.shape, value, self.dtype).value)
