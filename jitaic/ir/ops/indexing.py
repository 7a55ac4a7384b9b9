"""Basic, advanced and dynamic (run-time index) indexing: reads, stores,
the read each store pairs with, and run-time extents."""

from __future__ import annotations

import numpy as np

from jitaic.errors import ShapeError
from jitaic.ir.ops.core import (
    ELEMENTWISE,
    MAY_RAISE,
    VIEW,
    broadcast_shapes,
    check_dtype,
    check_static,
    computes_same,
    define,
    fits,
)
from jitaic.ir.types import TensorType, example_operand


def slice_shape(shape: tuple[int, ...], index: tuple) -> tuple[int | None, ...]:
    """Shape after a normalized basic index: ints (and DYNAMIC) drop a dim,
    triples slice one; a dynamic slice keeps its length, a RANGE's length is
    known at run time only."""
    out = []
    for dim, entry in zip(shape, index, strict=False):
        if is_range(entry):
            out.append(None)
        elif is_dynamic_slice(entry):
            out.append(entry[1])
        elif isinstance(entry, tuple):
            out.append(len(range(dim)[slice(*entry)]))
    out.extend(shape[len(index):])
    return tuple(out)


def to_numpy_index(index: tuple) -> tuple:
    return tuple(slice(*e) if isinstance(e, tuple) else e for e in index)


def _getitem_infer(in_types, attrs, regions):
    (x,) = in_types
    return [x.with_shape(slice_shape(x.shape, attrs["index"]))]


getitem = define("getitem", _getitem_infer,
                 lambda x, index: np.asarray(x[to_numpy_index(index)]), (VIEW,),
                 complex=True)


def _setitem_infer(in_types, attrs, regions):
    x, v = in_types
    target = slice_shape(x.shape, attrs["index"])
    if not fits(v.shape, target, checked_when_run=True):  # _store_loop checks
        raise ShapeError(f"could not broadcast input array from shape {v.shape} "
                         f"into shape {target}")
    return [x.with_shape(x.shape)]


def _setitem_reference(x, v, index):
    out = np.array(x, copy=True)
    out[to_numpy_index(index)] = v
    return out


setitem = define("setitem", _setitem_infer, _setitem_reference, complex=True)


# ---------------------------------------------------------------- advanced indexing
# Integer-array indexing, NumPy's rules: the index arrays (one per entry of
# "axes", ascending axes of x) broadcast to one shape B, which replaces those
# axes in place when they are adjacent and goes first otherwise ("front").
# Negative indices count from the end; out-of-range ones raise IndexError.


def gather_shape(x_shape: tuple, index_shape: tuple, axes: tuple, front: bool) -> tuple:
    rest = [d for i, d in enumerate(x_shape) if i not in axes]
    if front:
        return (*index_shape, *rest)
    return (*x_shape[:axes[0]], *index_shape, *x_shape[axes[-1] + 1:])


def _index_shape(index_types) -> tuple:
    if any(t.dtype.kind not in "iu" for t in index_types):
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    try:
        return broadcast_shapes(*(t.shape for t in index_types))
    except ShapeError:
        shapes = " ".join(str(t.shape) for t in index_types)
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast "
                         f"together with shapes {shapes}") from None


def numpy_key(ndim: int, indices, axes: tuple) -> tuple:
    key = [slice(None)] * ndim
    for axis, index in zip(axes, indices, strict=True):
        key[axis] = np.asarray(index)
    return tuple(key)


def _gather_infer(in_types, attrs, regions):
    x, *indices = in_types
    shape = gather_shape(x.shape, _index_shape(indices), attrs["axes"], attrs["front"])
    return [TensorType(shape, x.dtype)]


gather = define("gather", _gather_infer,
                lambda x, *indices, axes, front: np.asarray(x[numpy_key(x.ndim, indices,
                                                                         axes)]).copy(),
                (MAY_RAISE,),
                complex=True)


def _scatter_infer(in_types, attrs, regions):
    x, v, *indices = in_types
    target = gather_shape(x.shape, _index_shape(indices), attrs["axes"], attrs["front"])
    if v.dtype != x.dtype:
        raise ShapeError(f"cannot scatter {v} into the {target} elements of {x}")
    if not fits(v.shape, target):  # NumPy's words
        raise ShapeError(f"shape mismatch: value array of shape {_shape_text(v.shape)} could "
                         f"not be broadcast to indexing result of shape {_shape_text(target)}")
    return [x.with_shape(x.shape)]


def _shape_text(shape: tuple) -> str:
    """A shape as NumPy's messages print it: (2,1), (0,)."""
    return "(" + ",".join("?" if d is None else str(d) for d in shape) + ("," if len(shape) == 1
                                                                           else "") + ")"


def _scatter_reference(x, v, *indices, axes, front, accumulate):
    out = np.array(x, copy=True)
    key = numpy_key(x.ndim, indices, axes)
    if accumulate:  # np.add.at: repeated indices add up
        np.add.at(out, key, v)
    else:
        out[key] = v
    return out


# x[idx] = v (accumulate=False; repeated indices: the last write wins) and
# np.add.at(x, idx, v) (accumulate=True).
scatter = define("scatter", _scatter_infer, _scatter_reference, (MAY_RAISE,), complex=True)


# Boolean-mask indexing with a traced mask: x[mask] has one row per true entry
# of the mask, a length known at run time only; x[mask] = v fills those rows
# from v in order (or broadcasts v over them).


def _check_mask(x: TensorType, mask: TensorType) -> tuple:
    prefix = x.shape[:mask.ndim]
    if mask.dtype != np.bool_ or mask.ndim == 0 or mask.ndim > x.ndim or any(
            a != b and None not in (a, b) for a, b in zip(mask.shape, prefix, strict=True)):
        raise IndexError(f"boolean index of shape {mask.shape} does not match the indexed "
                         f"array's shape {x.shape}")
    return x.shape[mask.ndim:]


def _compress_infer(in_types, attrs, regions):
    x, mask = in_types
    return [TensorType((None, *_check_mask(x, mask)), x.dtype)]


def _mask_may_not_match(node) -> bool:
    """Whether a mask's length may differ from its array's, known at run time only."""
    x, mask = node.inputs[0], node.inputs[-1]
    return None in mask.shape or None in x.shape[:mask.type.ndim]


compress = define("compress", _compress_infer,
                  lambda x, mask: np.asarray(x)[np.asarray(mask)].copy(), (MAY_RAISE,),
                  complex=True, raises=_mask_may_not_match)


def _mask_scatter_infer(in_types, attrs, regions):
    x, v, mask = in_types
    rest = _check_mask(x, mask)
    if v.dtype != x.dtype or v.ndim > len(rest) + 1 or (
            v.ndim and not fits(v.shape[1:] if v.ndim > len(rest) else v.shape, rest)):
        raise ShapeError(f"cannot assign {v} to the rows {rest} of {x} where the mask is true")
    return [x]


def _mask_scatter_reference(x, v, mask):
    out = np.array(x, copy=True)
    out[np.asarray(mask)] = v
    return out


def _mask_scatter_raises(node) -> bool:
    """x[mask] = v raises for a mask not of x's length, or rows of v not as
    many as the mask's true entries: not for v broadcast over the rows, nor
    for v computed elementwise from values the same mask gathered
    (x[m] = f(x[m], y[m]))."""
    x, v, mask = node.inputs
    if _mask_may_not_match(node):
        return True
    return not _one_row_per_true_entry(v, mask, x.type.ndim - mask.type.ndim)


def _one_row_per_true_entry(v, mask, row_ndim: int) -> bool:
    """Whether ``v`` broadcasts over the rows ``mask`` selects, or has as many."""
    return v.type.ndim <= row_ndim or v.shape[0] == 1 or gathering_mask(v) is mask


def gathering_mask(v):
    """The mask ``v`` has one row per true entry of, when it is a value that
    mask gathered (x[mask]) or an elementwise function of such values and of
    values broadcast against them; else None."""
    masks, pending, seen = set(), [v], set()
    while pending:
        v = pending.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        node = v.producer
        if node is not None and node.op is compress:
            masks.add(node.inputs[1])
        elif node is not None and ELEMENTWISE in node.op.traits and v.shape[0] is None:
            pending += [u for u in node.inputs if u.type.ndim == v.type.ndim
                        and u.shape[0] != 1]
        else:
            return None
    return masks.pop() if len(masks) == 1 else None


mask_scatter = define("mask_scatter", _mask_scatter_infer, _mask_scatter_reference,
                      (MAY_RAISE,),
                      complex=True, raises=_mask_scatter_raises)


def _concatenate_infer(in_types, attrs, regions):
    axis = attrs["axis"]
    for t in in_types:
        check_static(t, "np.concatenate")
    first = in_types[0]
    for t in in_types[1:]:
        if t.ndim != first.ndim or any(
            a != b for i, (a, b) in enumerate(zip(t.shape, first.shape)) if i != axis
        ):
            raise ShapeError(
                f"all the input array dimensions except for the concatenation axis "
                f"must match exactly, but got shapes "
                f"{', '.join(str(s.shape) for s in in_types)}")
    shape = list(first.shape)
    shape[axis] = sum(t.shape[axis] for t in in_types)
    dtype = np.result_type(*(example_operand(t) for t in in_types))
    return [TensorType(tuple(shape), check_dtype(dtype, "concatenate"))]


concatenate = define("concatenate", _concatenate_infer,
                     lambda *xs, axis: np.concatenate(xs, axis=axis),
                     complex=True)


def _dim_size_infer(in_types, attrs, regions):
    (x,) = in_types
    if not 0 <= attrs["axis"] < x.ndim:
        raise np.exceptions.AxisError(attrs["axis"], x.ndim)
    return [TensorType((), np.int64, weak=True)]


# The run-time extent of one axis (len(x[:i]), the count in np.mean(x[:i])):
# weak, a Python int as NumPy's shape holds it.
dim_size = define("dim_size", _dim_size_infer,
                  lambda x, axis: np.int64(np.shape(x)[axis]),
                  complex=True)

# ---------------------------------------------------------------- dynamic indexing
# Basic indexing where some indices are run-time values (a loop index): the
# "index" attribute is a template whose DYNAMIC markers are filled, in order,
# by the extra integer inputs.
# - DYNAMIC: an integer index (x[i]); NumPy's wraparound for negative values.
# - (DYNAMIC, length, step): a slice of static length whose start is a run-time
#   value (x[i, j:j + 3]). The tracer makes one only where the start's range
#   provably leaves room (a for-loop index with static bounds); any other
#   window is a RANGE, which NumPy's rules may shorten.
# - (RANGE, start, stop, step): a slice whose length is known at run time only
#   (x[:i], A[i, j:], y[k:n - k]); start and stop are DYNAMIC, a Python int or
#   None, with Python's slice semantics; the result's dimension is None.

DYNAMIC = "dynamic"
RANGE = "range"


def is_dynamic_slice(entry: object) -> bool:
    return isinstance(entry, tuple) and entry[0] == DYNAMIC


def is_range(entry: object) -> bool:
    return isinstance(entry, tuple) and entry[0] == RANGE


def dynamic_count(index: tuple) -> int:
    """How many run-time inputs fill the template."""
    return sum(1 if e == DYNAMIC or is_dynamic_slice(e) else
               (e[1] == DYNAMIC) + (e[2] == DYNAMIC) if is_range(e) else 0 for e in index)


def slice_span(length: int, step: int) -> int:
    """How far past its start a slice of ``length`` elements reaches."""
    return (length - 1) * step + 1 if length else 0


def _fill(index: tuple, values, shape: tuple[int, ...]) -> tuple:
    it = iter(values)
    out = []
    for dim, e in enumerate(index):
        if e == DYNAMIC:
            out.append(int(next(it)))
        elif is_dynamic_slice(e):
            _, length, step = e
            start = int(next(it))
            if length and (start < 0 or start + slice_span(length, step) > shape[dim]):
                raise IndexError(f"a slice of length {length} starting at {start} runs "
                                 f"outside axis {dim} of size {shape[dim]}")
            out.append((start, start + length * step, step))
        elif is_range(e):
            _, start, stop, step = e
            start = int(next(it)) if start == DYNAMIC else start
            stop = int(next(it)) if stop == DYNAMIC else stop
            out.append((start, stop, step))
        else:
            out.append(e)
    return tuple(out)


def _dyn_getitem_infer(in_types, attrs, regions):
    x, *dyn = in_types
    _check_dynamic(dyn, attrs["index"], x.shape)
    return [x.with_shape(slice_shape(x.shape, attrs["index"]))]


def _check_dynamic(dyn, index, shape) -> None:
    if len(dyn) != dynamic_count(index) or any(t.ndim or t.dtype.kind not in "iu" for t in dyn):
        raise ValueError("dynamic indices must be integer scalars, one per dynamic entry")
    for dim, e in enumerate(index):
        if is_dynamic_slice(e) and (e[2] <= 0 or shape[dim] is None
                                    or slice_span(e[1], e[2]) > shape[dim]):
            raise ValueError(f"dynamic slice {e} does not fit axis {dim} of size "
                             f"{shape[dim]}")


def _dyn_getitem_raises(node) -> bool:
    """Whether the read may raise: not when it reads the region a store of
    the same indices wrote into its array (that store checked them first)."""
    store = node.inputs[0].producer
    return not (store is not None and store.op is dyn_setitem and same_region(store, node))


# A dyn_getitem with attr ``bounded`` reads at indices in range by construction
# (a gradient's reads of its tapes, its replay of reads the forward checked):
# no run-time check, and dead code where nothing reads it.
dyn_getitem = define(
    "dyn_getitem", _dyn_getitem_infer,
    lambda x, *dyn, index, bounded=False:
    np.asarray(x[to_numpy_index(_fill(index, dyn, x.shape))]).copy(),
    (VIEW, MAY_RAISE),
                     complex=True, raises=_dyn_getitem_raises)


def _dyn_setitem_infer(in_types, attrs, regions):
    x, v, *dyn = in_types
    _check_dynamic(dyn, attrs["index"], x.shape)
    return _setitem_infer([x, v], attrs, regions)


def _dyn_setitem_reference(x, v, *dyn, index, bounded=False):
    return _setitem_reference(x, v, _fill(index, dyn, np.shape(x)))


def _dyn_setitem_raises(node) -> bool:
    """Whether the store may raise: not when it writes into what a store of
    the same region and of a value of the same static shape made (that one
    checked the same indices and the same broadcast first), nor when it
    writes back what a read of the same region of the array read (``y[:k] +=``
    leaves such a store; the read checked the indices)."""
    inner, value = node.inputs[0].producer, node.inputs[1].producer
    shape = node.inputs[1].shape
    if value is not None and value.op is dyn_getitem and value.inputs[0] is node.inputs[0] \
            and same_region(value, node):
        return False
    return not (inner is not None and inner.op is node.op and same_region(inner, node)
                and inner.inputs[1].shape == shape and None not in shape)


# A dyn_setitem with attr ``bounded`` writes at indices in range by
# construction (a gradient's rows of its stacks and logs): dead code where
# nothing reads the array.
dyn_setitem = define("dyn_setitem", _dyn_setitem_infer, _dyn_setitem_reference,
                     (MAY_RAISE,),
                     complex=True, raises=_dyn_setitem_raises)

# The read of the region each store writes (undo logs, cotangents of slices,
# simplification and in-place decisions pair a store with it).
READ_OF_STORE = {setitem: getitem, dyn_setitem: dyn_getitem}
STORE_OF_READ = {read: store for store, read in READ_OF_STORE.items()}


def same_region(a, b) -> bool:
    """Two nodes among the stores and reads above (graph nodes) that address
    the same elements: one index template filled by the same run-time values."""
    dyn_a, dyn_b = (n.inputs[2:] if n.op in READ_OF_STORE else n.inputs[1:] for n in (a, b))
    return (a.attrs["index"] == b.attrs["index"] and len(dyn_a) == len(dyn_b)
            and all(computes_same(x, y) for x, y in zip(dyn_a, dyn_b, strict=True)))


# Stores the lowering may do in place, into their first input's buffer.
STORES = (setitem, dyn_setitem, scatter)
