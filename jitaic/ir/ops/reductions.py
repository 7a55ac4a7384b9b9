"""Reductions, cumulative ops, sorting and selection."""

from __future__ import annotations

import numpy as np

from jitaic.ir.ops.core import MAY_RAISE, REDUCTION, Op, check_dtype, check_static, define
from jitaic.ir.types import TensorType, example_value

# ---------------------------------------------------------------- reductions

def _reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduction(name: str, np_fn, combine: np.ufunc, identity: object) -> Op:
    def reference(x, axes, keepdims):
        return np.asarray(np_fn(x, axis=axes, keepdims=keepdims))

    def infer(in_types, attrs, regions):
        (x,) = in_types
        axes = attrs["axes"]
        if identity is None and any(x.shape[a] == 0 for a in axes):
            raise ValueError(empty_reduction_message(op))
        dtype = reference(example_value(x.with_shape(x.shape)), axes, False).dtype
        shape = _reduced_shape(x.shape, axes, attrs["keepdims"])
        return [TensorType(shape, check_dtype(dtype, name))]

    # Without an identity: NumPy's error for an empty axis, checked when the
    # code runs for a run-time extent (such a node runs though nothing reads it)
    traits = (REDUCTION,) if identity is not None else (REDUCTION, MAY_RAISE)
    op = define(name, infer, reference, traits, combine=combine, identity=identity,
                complex=True, raises=lambda node: any(node.inputs[0].shape[a] is None
                                                      for a in node.attrs["axes"]))
    return op


def empty_reduction_message(op: Op) -> str:
    """NumPy's error for a reduction without identity over no elements."""
    return (f"zero-size array to reduction operation {op.combine.__name__} "
            f"which has no identity")


reduce_sum = _reduction("reduce_sum", np.sum, np.add, 0)
reduce_prod = _reduction("reduce_prod", np.prod, np.multiply, 1)
reduce_max = _reduction("reduce_max", np.max, np.maximum, None)
reduce_min = _reduction("reduce_min", np.min, np.minimum, None)
reduce_any = _reduction("reduce_any", np.any, np.logical_or, False)
reduce_all = _reduction("reduce_all", np.all, np.logical_and, True)
# ufunc.reduce's op: np.add.reduce(x, axis) is reduce_sum
REDUCE_OPS: dict[np.ufunc, Op] = {
    op.combine: op for op in (reduce_sum, reduce_prod, reduce_max, reduce_min,
                              reduce_any, reduce_all)}


def _arg_reduction(name: str, np_fn) -> Op:
    """argmax/argmin over one axis, or over the flattened array (axis None)."""

    def reference(x, axis, keepdims):
        return np.asarray(np_fn(x, axis=axis, keepdims=keepdims))

    def infer(in_types, attrs, regions):
        (x,) = in_types
        axis = attrs["axis"]
        if 0 in (x.shape if axis is None else (x.shape[axis],)):  # run-time: when it runs
            raise ValueError(f"attempt to get {name} of an empty sequence")
        if axis is None:
            shape = (1,) * x.ndim if attrs["keepdims"] else ()
        else:
            shape = _reduced_shape(x.shape, (axis,), attrs["keepdims"])
        return [TensorType(shape, np.dtype(np.intp))]

    def raises(node) -> bool:  # an empty run-time extent: NumPy's error when it runs
        shape, axis = node.inputs[0].shape, node.attrs["axis"]
        return None in (shape if axis is None else (shape[axis],))

    return define(name, infer, reference, (REDUCTION, MAY_RAISE), complex=True, raises=raises)


argmax = _arg_reduction("argmax", np.argmax)
argmin = _arg_reduction("argmin", np.argmin)


def _cumulative(name: str, np_fn) -> Op:
    """cumsum/cumprod along one axis (the tracer flattens for axis None); the
    dtype is NumPy's (small integers and bools accumulate in the platform int)."""

    def reference(x, axis):
        return np.asarray(np_fn(x, axis=axis))

    def infer(in_types, attrs, regions):
        (x,) = in_types
        dtype = reference(example_value(x), attrs["axis"]).dtype
        return [TensorType(x.shape, check_dtype(dtype, name))]

    return define(name, infer, reference, complex=True)


cumsum = _cumulative("cumsum", np.cumsum)
cumprod = _cumulative("cumprod", np.cumprod)
# np.maximum.accumulate / np.minimum.accumulate: the running max/min (NaN
# propagates from where it appears), in the input's dtype.
cummax = _cumulative("cummax", np.maximum.accumulate)
cummin = _cumulative("cummin", np.minimum.accumulate)


def _argsort_reference(x, axis):
    return np.argsort(x, axis=axis, kind="stable")


def _argsort_infer(in_types, attrs, regions):
    (x,) = in_types
    return [TensorType(x.shape, np.dtype(np.intp))]


def _select_infer(in_types, attrs, regions):
    (x,) = in_types
    check_static(x, "an order statistic (np.median, np.quantile)")
    ks = attrs["ks"]
    ordered = bool(ks) and list(ks) == sorted(set(ks))
    if x.ndim < 1 or not ordered or not 0 <= ks[0] <= ks[-1] < x.shape[-1]:
        raise ValueError(f"order statistics {ks} of lanes of length {x.shape[-1:]}")
    return [TensorType(x.shape[:-1] + (len(ks),), x.dtype)]


def _select_reference(x, ks):
    return np.take(np.partition(x, ks, axis=-1), ks, axis=-1)


# The ks-th smallest elements (ks sorted, distinct) of each lane along the
# last axis, NaN after every number: np.median / np.quantile select without
# sorting (a partition per lane, O(n)).
select = define("select", _select_infer, _select_reference, complex=True)

# Stable: equal elements keep their order (NumPy's kind="stable"; its default
# introsort may order ties, and -0.0 against 0.0, differently). NaN sorts last.
argsort = define("argsort", _argsort_infer, _argsort_reference, complex=True)

def _sort_infer(in_types, attrs, regions):
    (x,) = in_types
    if attrs["kind"] not in ("quicksort", "heapsort", "stable"):
        raise ValueError(f"sort kind {attrs['kind']!r}")
    return [TensorType(x.shape, x.dtype)]


def _sort_reference(x, axis, kind):
    return np.sort(x, axis=axis, kind=kind)


# The values of each lane along the axis in NumPy's order (NaN last), as
# np.sort(kind=) orders them: where equal elements differ in their bits (0.0
# and -0.0, NaNs), NumPy's algorithm of that kind decides where each goes.
sort = define("sort", _sort_infer, _sort_reference, complex=True)


def _argsort_rows_infer(in_types, attrs, regions):
    (x,) = in_types
    check_static(x, "np.unique(axis=)")
    if x.ndim != 2:
        raise ValueError(f"argsort_rows takes a 2-D array, got {x}")
    return [TensorType(x.shape[:1], np.dtype(np.intp))]


def _argsort_rows_reference(x):
    if not x.shape[1]:
        return np.arange(x.shape[0], dtype=np.intp)
    return np.lexsort(x.T[::-1]).astype(np.intp)


# The stable order of a 2-D array's rows compared element by element in
# NumPy's sort order (NaN after every number, NaNs alike): np.unique(axis=)
# sorts the rows as NumPy sorts them viewed as structured values.
argsort_rows = define("argsort_rows", _argsort_rows_infer, _argsort_rows_reference,
                      complex=True)


def _searchsorted_infer(in_types, attrs, regions):
    a, v = in_types
    check_static(a, "np.searchsorted")
    check_static(v, "np.searchsorted")
    if a.ndim != 1:
        raise ValueError("object too deep for desired array")
    return [TensorType(v.shape, np.dtype(np.intp))]


# Insertion points of v's elements in a sorted 1-D a (same dtype: the tracer
# casts both), by binary search in NumPy's sort order (NaN after everything;
# complex values by real part, then imaginary).
searchsorted = define(
    "searchsorted", _searchsorted_infer,
    lambda a, v, side: np.asarray(np.searchsorted(a, v, side=side), dtype=np.intp),
    complex=True)

