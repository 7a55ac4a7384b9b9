"""NumPy on Tracers: operators, methods, ``__array_ufunc__`` and ``__array_function__``.

Everything here lowers to the ops of ``jitaic.ir.ops``. Composite NumPy
functions (mean, var, clip, outer, stack, ...) are written in terms of those
ops, so later concerns (lowering, autodiff) only ever see primitive ops.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable

import numpy as np

from jitaic.errors import ShapeError, UnsupportedError, at, user_location
from jitaic.ir import ops
from jitaic.ir.types import check_supported_dtype
from jitaic.tracer.core import (
    Tracer,
    ViewStep,
    current,
    emit,
    is_scalar_like,
    new_tracer,
    to_value,
)


def _unsupported(what: str) -> UnsupportedError:
    return UnsupportedError(f"{what} is not supported by jitaic{at(user_location())}")


def normalize_axes(axis, ndim: int) -> tuple[int, ...]:
    """``ops.normalize_axes`` with the user's file:line on NumPy's AxisError."""
    try:
        return ops.normalize_axes(axis, ndim)
    except np.exceptions.AxisError as exc:
        raise np.exceptions.AxisError(f"{exc}{at(user_location())}") from None


def as_tracer(x: object) -> Tracer:
    """Any operand as a Tracer (constants become constant nodes)."""
    if isinstance(x, Tracer):
        return x
    return new_tracer(to_value(x), scalar=is_scalar_like(x) and not isinstance(x, np.ndarray))


def _shape_of(x: object) -> tuple[int, ...]:
    return x.shape if isinstance(x, Tracer) else np.shape(x)


# ---------------------------------------------------------------- ufuncs

def apply_ufunc(ufunc: np.ufunc, *inputs: object) -> Tracer:
    if ufunc is np.matmul:
        return matmul(*inputs)
    op = ops.UFUNC_OPS.get(ufunc)
    if op is None:
        raise _unsupported(f"np.{ufunc.__name__}")
    inputs = _python_ints_for_loop(op, inputs)
    if isinstance(inputs, Tracer):  # a comparison with an int beyond the dtype's range
        return inputs
    if op is ops.power:
        _check_integer_exponent(inputs)
    return emit(op, inputs)


def require(ok: object, error: type[Exception], message: str) -> None:
    """Raise ``error`` where ``ok`` is false: now when it is known while
    tracing, else at run time (a check node), naming the user's line either way."""
    message += at(user_location())
    if not isinstance(ok, Tracer):
        if not ok:
            raise error(message)
        return
    emit(ops.check, [ok], {"error": error.__name__, "message": message})


def _check_integer_exponent(inputs: tuple) -> None:
    loop = ops.ufunc_loop_dtypes(np.power, [to_value(x).type for x in inputs])
    if loop[1].kind == "i":
        exponent = inputs[1]
        nonnegative = (all_(exponent >= 0) if isinstance(exponent, Tracer)
                       else np.all(np.asarray(exponent) >= 0))
        require(nonnegative, ValueError, "Integers to negative integer powers are not allowed.")


_INT64 = np.iinfo(np.int64)
# x OP c for a Python int c above every value of x's integer dtype (NumPy 2
# compares such ints exactly); below every value, the same with c's side swapped.
_ABOVE = {ops.equal: False, ops.not_equal: True, ops.less: True, ops.less_equal: True,
          ops.greater: False, ops.greater_equal: False}


def _python_ints_for_loop(op: ops.Op, inputs: tuple) -> tuple | Tracer:
    """Python ints as NumPy 2 takes them (NEP 50): converted for a float loop,
    compared exactly when out of an integer dtype's range (the comparison's
    result, as a Tracer), refused otherwise."""
    ints = [i for i, x in enumerate(inputs) if type(x) is int]
    if not ints or len(ints) == len(inputs):
        return inputs
    if _float_loop(op, inputs):
        inputs = tuple(float(x) if type(x) is int and not _INT64.min <= x <= _INT64.max
                       else x for x in inputs)
    ints = [i for i in ints if type(inputs[i]) is int]
    loop = ops.ufunc_loop_dtypes(op.ufunc, _operand_types(inputs))
    for i in ints:
        if loop[i].kind in "iu":
            info = np.iinfo(loop[i])
            if info.min <= inputs[i] <= info.max:
                continue
            if op in _ABOVE and len(inputs) == 2:
                other = as_tracer(inputs[1 - i])
                above = (inputs[i] > info.max) == (i == 1)  # c on the right and large
                answer = _ABOVE[op] if above or op in (ops.equal, ops.not_equal) \
                    else not _ABOVE[op]
                if other.ndim == 0:  # a ufunc of 0-d operands gives a NumPy scalar
                    return as_tracer(np.bool_(answer))
                return full_value(other.shape, answer, np.bool_)
            raise OverflowError(f"Python integer {inputs[i]} out of bounds for "
                                f"{loop[i]}{at(user_location())}")
    return inputs


def _operand_types(inputs: tuple) -> list:
    """The operands' types, Python ints of any size as weak ints."""
    return [to_value(1 if type(x) is int else x).type for x in inputs]


def _float_loop(op: ops.Op, inputs: tuple) -> bool:
    """Whether the ufunc computes in floats for these operands."""
    return ops.ufunc_loop_dtypes(op.ufunc, _operand_types(inputs))[0].kind == "f"


_REDUCE_UFUNCS = {
    np.add: ops.reduce_sum, np.multiply: ops.reduce_prod, np.maximum: ops.reduce_max,
    np.minimum: ops.reduce_min, np.logical_or: ops.reduce_any, np.logical_and: ops.reduce_all,
}


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    out = kwargs.pop("out", None)
    if kwargs.get("where", True) is not True:
        raise _unsupported(f"np.{ufunc.__name__}(..., where=...)")
    kwargs.pop("where", None)
    dtype = kwargs.pop("dtype", None)
    accumulate_axis = kwargs.pop("axis", 0) if method == "accumulate" else None
    reduce_args = {k: kwargs.pop(k) for k in ("axis", "keepdims") if k in kwargs} \
        if method == "reduce" else {}
    if kwargs:
        raise _unsupported(f"np.{ufunc.__name__}(..., {', '.join(kwargs)}=...)")
    if method == "at" and ufunc is np.add:
        add_at(*inputs)
        return None
    if method == "__call__":
        composite = COMPOSITE_UFUNCS.get(ufunc)
        result = composite(*inputs) if composite else apply_ufunc(ufunc, *inputs)
    elif method == "reduce" and ufunc in _REDUCE_UFUNCS:
        (x,) = inputs[:1]
        axis = reduce_args.get("axis", inputs[1] if len(inputs) > 1 else 0)
        result = _reduce(_REDUCE_UFUNCS[ufunc], x, axis, reduce_args.get("keepdims", False))
    elif method == "accumulate" and ufunc in _SCANS:
        axis = inputs[1] if len(inputs) > 1 else accumulate_axis
        result = _SCANS[ufunc](inputs[0], axis)
    elif method == "outer":
        a, b = (as_tracer(v) for v in inputs)
        a = reshape(a, a.shape + (1,) * b.ndim)
        result = apply_ufunc(ufunc, a, b)
    else:
        raise _unsupported(f"np.{ufunc.__name__}.{method}")
    if dtype is not None:
        result = astype(result, dtype)
    if out is not None:
        (target,) = out if isinstance(out, tuple) else (out,)
        return _assign_inplace(target, result, ufunc.__name__)
    return result


def _assign_inplace(target: object, result: Tracer, name: str) -> Tracer:
    """``target[...] = result`` with the casting and shape checks of a ufunc's ``out=``."""
    if not isinstance(target, Tracer):
        raise _unsupported(f"writing a traced result into a concrete array (np.{name}, out=)")
    if not np.can_cast(result.dtype, target.dtype, "same_kind"):
        raise TypeError(f"Cannot cast ufunc '{name}' output from {result.dtype!r} to "
                        f"{target.dtype!r} with casting rule 'same_kind'"
                        f"{at(user_location())}")
    if ops.broadcast_shapes(result.shape, target.shape) != target.shape:
        raise ValueError(f"non-broadcastable output operand with shape {target.shape} "
                         f"doesn't match the broadcast shape {result.shape}"
                         f"{at(user_location())}")
    value = result
    if value.dtype != target.dtype:
        value = astype(value, target.dtype)
    if value.shape != target.shape:
        value = broadcast_to(value, target.shape)
    target.write(value.value)
    return target


# ---------------------------------------------------------------- operators

def _binary(ufunc: np.ufunc) -> tuple[Callable, Callable, Callable]:
    def forward(self, other):
        return apply_ufunc(ufunc, self, other)

    def reflected(self, other):
        return apply_ufunc(ufunc, other, self)

    def inplace(self, other):
        result = apply_ufunc(ufunc, self, other)
        if self._scalar:  # NumPy scalars are immutable: `s += 1` rebinds
            return result
        return _assign_inplace(self, result, ufunc.__name__)

    return forward, reflected, inplace


_BINARY_OPERATORS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
    "matmul": np.matmul, "and": np.bitwise_and, "or": np.bitwise_or,
    "xor": np.bitwise_xor, "lshift": np.left_shift, "rshift": np.right_shift,
}
_COMPARISONS = {"lt": np.less, "le": np.less_equal, "gt": np.greater,
                "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal}
_UNARY_OPERATORS = {"neg": np.negative, "pos": np.positive, "abs": np.absolute,
                    "invert": np.invert}


def _power_operator(self: Tracer, other: object) -> Tracer:
    """``**``: NumPy's operator squares a bool array raised to the Python int 2
    (np.square's dtype, int8; np.power would give int64)."""
    if type(other) is int and other == 2 and self.dtype == np.bool_ and not self._scalar:
        return apply_ufunc(np.square, self)
    return apply_ufunc(np.power, self, other)


def _install_operators() -> None:
    for name, ufunc in _BINARY_OPERATORS.items():
        forward, reflected, inplace = _binary(ufunc)
        forward = _power_operator if ufunc is np.power else forward
        setattr(Tracer, f"__{name}__", forward)
        setattr(Tracer, f"__r{name}__", reflected)
        setattr(Tracer, f"__i{name}__", inplace)
    for name, ufunc in _COMPARISONS.items():
        setattr(Tracer, f"__{name}__", _binary(ufunc)[0])
    for name, ufunc in _UNARY_OPERATORS.items():
        setattr(Tracer, f"__{name}__", lambda self, u=ufunc: apply_ufunc(u, self))
    Tracer.__hash__ = object.__hash__  # __eq__ is elementwise, identity hashing stays


# ---------------------------------------------------------------- reductions

def _reduce(op: ops.Op, x, axis, keepdims: bool, dtype=None) -> Tracer:
    x = as_tracer(x)
    if dtype is not None:
        x = astype(x, dtype)
    axes = normalize_axes(axis, x.ndim) if x.ndim else ()  # axis 0 of a 0-d array: itself
    attrs = {"axes": axes, "keepdims": bool(keepdims)}
    if not axes and x.ndim:  # over no axis: each element alone, in the reduction's dtype
        result = astype(x, op.infer([x.aval], attrs, ())[0].dtype)
    else:
        result = emit(op, [x], attrs)
    # sum(dtype=int32) accumulates in int32; wrapping at the end gives the same bits.
    return astype(result, dtype) if dtype is not None and result.dtype != dtype else result


# Reductions with an identity fill masked-out elements with it; max/min need
# ``initial`` for a mask, as NumPy's do. ``initial`` joins the result last.
_IDENTITY = {ops.reduce_sum: 0, ops.reduce_prod: 1, ops.reduce_any: False,
             ops.reduce_all: True}
_WITH_INITIAL = {ops.reduce_sum: np.add, ops.reduce_prod: np.multiply,
                 ops.reduce_max: np.maximum, ops.reduce_min: np.minimum,
                 ops.reduce_any: np.logical_or, ops.reduce_all: np.logical_and}


def _reducer(op: ops.Op) -> Callable:
    name = op.name.replace("reduce_", "")

    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        if out is not None:
            raise _unsupported(f"np.{name}(out=)")
        x = as_tracer(a)
        if where is not None:
            fill = _IDENTITY.get(op, initial)
            if fill is None:
                raise ValueError(f"reduction operation '{_WITH_INITIAL[op].__name__}' does "
                                 "not have an identity, so to use a where mask one has to "
                                 "specify 'initial'")
            mask = broadcast_to(as_tracer(where), x.shape)
            x = emit(ops.where, [mask, x, full_value((), fill, x.dtype)], scalar=False)
        result = _reduce(op, x, axis, keepdims, dtype)
        if initial is not None:
            result = apply_ufunc(_WITH_INITIAL[op], result, initial)
        return result

    return reduce


sum_ = _reducer(ops.reduce_sum)
prod = _reducer(ops.reduce_prod)
amax = _reducer(ops.reduce_max)
amin = _reducer(ops.reduce_min)
any_ = _reducer(ops.reduce_any)
all_ = _reducer(ops.reduce_all)


def _count(x: Tracer, axes: tuple[int, ...]) -> int | Tracer:
    """How many elements a reduction over ``axes`` sees: an int, or a traced
    int64 when some of those axes have run-time lengths (x[:i])."""
    static = int(np.prod([x.shape[a] for a in axes if x.shape[a] is not None],
                         dtype=np.int64))
    count: int | Tracer = static
    for a in axes:
        if x.shape[a] is None:
            count = count * emit(ops.dim_size, [x], {"axis": a})
    return count


def _divide(total: Tracer, count: int | Tracer) -> Tracer:
    """``total / count`` in total's dtype, as NumPy's mean and var divide: a
    float32 sum in float32, an integer sum (``dtype=np.int32``) cast back
    unsafely."""
    if isinstance(count, Tracer):
        count = astype(count, total.dtype if total.dtype.kind == "f" else np.float64)
    quotient = total / count
    return astype(quotient, total.dtype) if quotient.dtype != total.dtype else quotient


def _float_operand(x: Tracer, dtype) -> Tracer:
    """mean/var compute in float64 for integer and bool inputs, as NumPy does."""
    if dtype is not None:
        return astype(x, dtype)
    if x.dtype.kind in "biu":
        return astype(x, np.float64)
    return x


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    if out is not None:
        raise _unsupported("np.mean(out=)")
    x = _float_operand(as_tracer(a), dtype)
    axes = normalize_axes(axis, x.ndim)
    if where is not None:  # the sum of the selected elements over their count
        mask = broadcast_to(as_tracer(where), x.shape)
        count = _reduce(ops.reduce_sum, astype(mask, np.intp), axes, keepdims)
        return _divide(sum_(x, axes, None, None, keepdims, where=mask), count)
    return _divide(_reduce(ops.reduce_sum, x, axes, keepdims, dtype), _count(x, axes))


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
        correction=None):
    if out is not None or where is not None or mean is not None:
        raise _unsupported("np.var(out=/where=/mean=)")
    ddof = correction if correction is not None else ddof
    # NumPy's order: sums in ``dtype``, the deviations in the data's own dtype
    x = as_tracer(a) if dtype is not None else _float_operand(as_tracer(a), None)
    axes = normalize_axes(axis, x.ndim)
    n = _count(x, axes)
    centred = x - _divide(_reduce(ops.reduce_sum, x, axes, True, dtype), n)
    dof = max(n - ddof, 0) if isinstance(n, int) else apply_ufunc(np.maximum, n - ddof, 0)
    return _divide(_reduce(ops.reduce_sum, centred * centred, axes, keepdims, dtype), dof)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
        correction=None):
    variance = var(a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    if variance.dtype.kind in "iu" and variance.ndim:  # NumPy's sqrt(out=) refuses
        raise TypeError(f"Cannot cast ufunc 'sqrt' output from dtype('float64') to "
                        f"{variance.dtype!r} with casting rule 'same_kind'"
                        f"{at(user_location())}")
    x = as_tracer(a)
    if (correction if correction is not None else ddof) == 0 \
            and _count(x, normalize_axes(axis, x.ndim)) == 1:
        # One element per group: the variance is +0 (NaN from inf/NaN), and so is
        # variance * 0, whose gradient is 0 where sqrt's (1 / 2 sqrt(0) times
        # the variance's zero gradient) is NaN.
        return variance * 0
    return astype(apply_ufunc(np.sqrt, variance), variance.dtype, copy=False)


def _arg_reducer(op: ops.Op) -> Callable:
    def reduce(a, axis=None, out=None, *, keepdims=False):
        if out is not None:
            raise _unsupported(f"np.{op.name}(out=)")
        x = as_tracer(a)
        if x.ndim == 0:  # NumPy: the index of the one element (axis 0 or -1 allowed)
            normalize_axes(axis, 0)
            return as_tracer(np.intp(0))
        if axis is not None:
            axis = normalize_axes(axis, x.ndim)[0]
        return emit(op, [x], {"axis": axis, "keepdims": bool(keepdims)})

    return reduce


argmax = _arg_reducer(ops.argmax)
argmin = _arg_reducer(ops.argmin)


def _cumulative(op: ops.Op) -> Callable:
    def scan(a, axis=None, dtype=None, out=None):
        if out is not None:
            raise _unsupported(f"np.{op.name}(out=)")
        x = as_tracer(a)
        if dtype is not None:
            x = astype(x, dtype)
        if axis is None or x.ndim == 0:  # a 0-d array scans as a 1-d one (axis 0 or -1)
            normalize_axes(axis, x.ndim)
            x, axis = ravel(x), 0
        else:
            (axis,) = normalize_axes(axis, x.ndim)
        result = emit(op, [x], {"axis": axis}, scalar=False)
        # cumsum(dtype=int8) accumulates in int8; wrapping at the end gives the same bits
        return astype(result, dtype) if dtype is not None and result.dtype != dtype else result

    return scan


cumsum = _cumulative(ops.cumsum)
cumprod = _cumulative(ops.cumprod)
cummax = _cumulative(ops.cummax)
cummin = _cumulative(ops.cummin)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    if order is not None:
        raise _unsupported("np.argsort(order=) (structured arrays)")
    x = as_tracer(a)
    if axis is None:
        x, axis = ravel(x), 0
    (axis,) = normalize_axes(axis, x.ndim)
    return emit(ops.argsort, [x], {"axis": axis}, scalar=False)


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


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """The elements in argsort's order (so the gradient flows through the
    gather)."""
    x = as_tracer(a)
    if axis is None:
        x, axis = ravel(x), 0
    return take_along_axis(x, argsort(x, axis, kind, order), axis)


def _lanes(x: Tracer, axis, what: str) -> tuple[Tracer, tuple[int, ...]]:
    """``x`` with the reduced axes moved last and merged into one; and those axes."""
    axes = normalize_axes(axis, x.ndim)
    kept = [d for d in range(x.ndim) if d not in axes]
    lanes = reshape(transpose(x, (*kept, *axes)),
                    tuple(x.shape[d] for d in kept) + (_size_of(x, axes),))
    if lanes.shape[-1] == 0:
        raise _unsupported(f"{what} of an empty axis (NumPy returns NaN with a warning)")
    return lanes, axes


def _select(lanes: Tracer, ks) -> tuple[Tracer, dict[int, int]]:
    """The ks-th smallest elements of each lane (NaN last; a partition, no
    sort) along a last axis, and where each k landed in it."""
    ks = tuple(sorted(set(ks)))
    return emit(ops.select, [lanes], {"ks": ks}, scalar=False), {k: j for j, k in enumerate(ks)}


def _order_statistic(value: Tracer, lanes: Tracer, x: Tracer, axes, keepdims: bool) -> Tracer:
    """NaN wherever the lane holds one, as NumPy's; 0-d results are NumPy
    scalars; keepdims puts the reduced axes back as 1s."""
    if lanes.dtype.kind == "f":
        has_nan = any_(apply_ufunc(np.isnan, lanes), axis=-1)
        value = emit(ops.where, [has_nan, full_value((), np.nan, value.dtype), value])
    if keepdims:
        value = reshape(value, tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)))
    return value


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """NumPy's: the mean of the middle one or two elements in sorted order (so
    integers give float64), NaN wherever a NaN is present."""
    if out is not None:
        raise _unsupported("np.median(out=)")
    x = as_tracer(a)
    lanes, axes = _lanes(x, axis, "np.median")
    n = lanes.shape[-1]
    middle, _ = _select(lanes, ((n - 1) // 2, n // 2))
    return _order_statistic(mean(middle, axis=-1), lanes, x, axes, keepdims)

# ---------------------------------------------------------------- elementwise helpers


def astype(x, dtype, order="K", casting="unsafe", subok=True, copy=True) -> Tracer:
    x = as_tracer(x)
    dtype = check_supported_dtype(np.dtype(dtype), "astype")
    if dtype == x.dtype and not copy:
        return x
    return emit(ops.astype, [x], {"dtype": dtype}, scalar=x._scalar)


def where(condition, x=None, y=None):
    if x is None or y is None:
        raise _unsupported("np.where with one argument (its result shape depends on "
                           "the data)")
    return emit(ops.where, [condition, x, y], scalar=False)  # np.where never gives scalars


def clip(a, a_min=None, a_max=None, out=None, **kwargs):
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    if out is not None or kwargs:
        raise _unsupported("np.clip(out=/...)")
    result = as_tracer(a)
    if result.dtype.kind in "iu":  # NumPy drops a Python int bound beyond the dtype's range
        info = np.iinfo(result.dtype)
        a_min = None if type(a_min) is int and a_min < info.min else a_min
        a_max = None if type(a_max) is int and a_max > info.max else a_max
    if a_min is not None:
        result = apply_ufunc(np.maximum, result, a_min)
    if a_max is not None:
        result = apply_ufunc(np.minimum, result, a_max)
    return result


def round_(a, decimals=0, out=None):
    """NumPy's: rint(x * 10**d) / 10**d for floats (d < 0: rint(x / 10**-d) * 10**-d)."""
    if out is not None:
        raise _unsupported("np.round(out=)")
    (decimals,) = _static_ints(decimals, "np.round's decimals")
    a = as_tracer(a)
    if a.dtype == np.bool_:
        raise _unsupported("np.round of a bool array (NumPy returns float16)")
    if a.dtype.kind != "f":
        if decimals >= 0:
            return a
        raise _unsupported("np.round of integers with negative decimals")
    if decimals == 0:
        return apply_ufunc(np.rint, a)
    scale = a.dtype.type(10.0 ** abs(decimals))
    if decimals > 0:
        return apply_ufunc(np.rint, a * scale) / scale
    return apply_ufunc(np.rint, a / scale) * scale


# ---------------------------------------------------------------- linear algebra

def matmul(a, b) -> Tracer:
    return emit(ops.matmul, [a, b])


def dot(a, b, out=None):
    if out is not None:
        raise _unsupported("np.dot(out=)")
    a, b = as_tracer(a), as_tracer(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.ndim > 2 or b.ndim > 2:
        raise _unsupported("np.dot on arrays with more than 2 dimensions (use np.matmul)")
    return matmul(a, b)


def outer(a, b, out=None):
    if out is not None:
        raise _unsupported("np.outer(out=)")
    a, b = ravel(a), ravel(b)
    return reshape(a, (a.size, 1)) * reshape(b, (1, b.size))


def vdot(a, b):
    return sum_(ravel(a) * ravel(b))


def inner(a, b):
    a, b = as_tracer(a), as_tracer(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.ndim <= 2 and b.ndim <= 2:
        return matmul(a, swapaxes(b, -1, -2)) if b.ndim > 1 else matmul(a, b)
    return tensordot(a, b, ([-1], [-1]))  # a's leading axes, then b's


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's formulas: vector ords (None/2, 1, inf, -inf, 0, other p) and
    matrix ords ("fro", 1, -1, inf, -inf); the 2-norm and nuclear norm of a
    matrix need singular values and are not supported."""
    x = as_tracer(x)
    if x.dtype.kind != "f":
        x = astype(x, np.float64)
    axes = normalize_axes(axis, x.ndim)
    if ord is None or (ord == "fro" and len(axes) == 2) or (ord == 2 and len(axes) == 1):
        return apply_ufunc(np.sqrt, sum_(x * x, axis=axis, keepdims=keepdims))
    magnitude = apply_ufunc(np.absolute, x)
    if len(axes) == 1:
        if ord == np.inf:
            return amax(magnitude, axis=axis, keepdims=keepdims)
        if ord == -np.inf:
            return amin(magnitude, axis=axis, keepdims=keepdims)
        if ord == 0:
            return sum_(astype(apply_ufunc(np.not_equal, x, 0), x.dtype), axis=axis,
                        keepdims=keepdims)
        if ord == 1:
            return sum_(magnitude, axis=axis, keepdims=keepdims)
        if isinstance(ord, (int, float)) and not isinstance(ord, bool):
            total = sum_(magnitude ** ord, axis=axis, keepdims=keepdims)
            return total ** (1.0 / ord)
    elif len(axes) == 2 and ord in (1, -1, np.inf, -np.inf):
        rows, cols = (axes if axis is None else  # in the user's order, as NumPy's
                      tuple(normalize_axes(a, x.ndim)[0] for a in axis))
        summed, over = (rows, cols) if ord in (1, -1) else (cols, rows)
        pick = amax if ord in (1, np.inf) else amin
        totals = sum_(magnitude, axis=summed, keepdims=keepdims)
        return pick(totals, axis=over - (over > summed and not keepdims), keepdims=keepdims)
    raise _unsupported(f"np.linalg.norm with ord={ord!r} over {len(axes)} axes")


def diagonal(a, offset=0, axis1=0, axis2=1):
    x = as_tracer(a)
    if x.ndim != 2 or (axis1, axis2) != (0, 1):
        raise _unsupported("np.diagonal of a non-matrix or with axis1/axis2")
    n = max(0, min(x.shape[0], x.shape[1] - offset) if offset >= 0 else
            min(x.shape[0] + offset, x.shape[1]))
    rows = np.arange(n) - min(offset, 0)
    return getitem(x, (rows, rows + offset)) if n else full_value((0,), 0, x.dtype)


def diag(v, k=0):
    """The k-th diagonal of a matrix, or a matrix with v on its k-th diagonal."""
    x = as_tracer(v)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = x.shape[0] + abs(k)
    rows = np.arange(x.shape[0]) - min(k, 0)
    out = full_value((n, n), 0, x.dtype)
    setitem(out, (rows, rows + k), x)
    return out


def vander(x, N=None, increasing=False):
    """NumPy's: powers by repeated multiplication (a cumulative product)."""
    v = as_tracer(x)
    if v.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    columns = v.shape[0] if N is None else operator.index(N)
    if columns == 0:
        return full_value((v.shape[0], 0), 0, np.result_type(v.dtype, np.int64))
    dtype = np.result_type(v.dtype, np.int64)
    ones = full_value((v.shape[0], 1), 1, dtype)
    powers = ones if columns == 1 else concatenate(
        [ones, cumprod(broadcast_to(reshape(astype(v, dtype, copy=False), (-1, 1)),
                                    (v.shape[0], columns - 1)), axis=1)], axis=1)
    return powers if increasing else getitem(powers, (slice(None), slice(None, None, -1)))


# ---------------------------------------------------------------- shapes

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
    go (x[:i][:, None]); an axis of run-time length is given as -1 (or None)."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    kept = iter(k for k, d in enumerate(a.shape) if d != 1)
    resolved, from_axes = [], []
    for d in shape:
        d = -1 if d is None else int(d)
        axis = None if d == 1 else next(kept, -1)
        size = 1 if axis is None else a.shape[axis] if axis >= 0 else 0
        resolved.append(size if d in (-1, size) else 0)
        from_axes.append(axis)
    if 0 in resolved or list(kept) or shape.count(-1) > 1:
        ops.check_static(a.aval, "a reshape other than adding or removing length-1 axes",
                         at(user_location()))
    attrs = {"shape": tuple(resolved), "from_axes": tuple(from_axes)}
    return emit(ops.reshape, [a], attrs, scalar=False)


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        raise _unsupported(f"reshape with order={order!r}")
    a = as_tracer(a)
    if not a.aval.static:
        return _reshape_run_time(a, newshape if shape is None else shape)
    shape = _resolve_shape(newshape if shape is None else shape, a.size)
    if int(np.prod(shape, dtype=np.int64)) != a.size:
        raise ShapeError(f"cannot reshape array of size {a.size} into shape {shape}"
                         f"{at(user_location())}")
    if shape == a.shape:
        return view(a, ())
    if _is_c_contiguous(a):  # NumPy returns a view: writes through it reach `a`
        return view(a, (ViewStep("reshape", (shape, a.shape)),))
    return emit(ops.reshape, [a], {"shape": shape}, scalar=False)


def _is_c_contiguous(a: Tracer) -> bool:
    """Whether NumPy would hold ``a`` in one C-ordered block (reshape is a view)."""
    if not a._buffer.c_contiguous:
        return False
    steps = a._view
    if all(s.kind == "reshape" for s in steps):
        return True
    if len(steps) == 1 and steps[0].kind == "getitem":
        index = steps[0].attr
        rest = [e for e in index if not isinstance(e, int)]
        return not rest or (len(rest) == 1 and isinstance(index[-1], tuple)
                            and index[-1][2] == 1)
    return False


def ravel(a, order="C"):
    a = as_tracer(a)
    return reshape(a, (a.size,), order)


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
    return view(a, (ViewStep("transpose", perm),))


def swapaxes(a, axis1, axis2):
    a = as_tracer(a)
    perm = list(range(a.ndim))
    i, j = normalize_axes(axis1, a.ndim)[0], normalize_axes(axis2, a.ndim)[0]
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(a, perm)


def moveaxis(a, source, destination):
    a = as_tracer(a)
    src = [normalize_axes(s, a.ndim)[0] for s in np.atleast_1d(source)]
    dst = [normalize_axes(d, a.ndim)[0] for d in np.atleast_1d(destination)]
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return transpose(a, order)


def view(a: Tracer, steps: tuple[ViewStep, ...]) -> Tracer:
    """A Tracer that shares ``a``'s buffer: writes through it update ``a``."""
    loc = user_location()
    steps = tuple(step if step.loc else dataclasses.replace(step, loc=loc) for step in steps)
    return Tracer(a._buffer, a._view + steps, scalar=False)


def expand_dims(a, axis):
    a = as_tracer(a)
    axes = normalize_axes(axis, a.ndim + len(np.atleast_1d(axis)))
    shape = list(a.shape)
    for ax in axes:
        shape.insert(ax, 1)
    return reshape(a, tuple(shape))


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


def broadcast_to(array, shape, subok=False):
    array = as_tracer(array)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    if shape == array.shape:
        return array
    return emit(ops.broadcast_to, [array], {"shape": shape}, scalar=False)


def broadcast_arrays(*args, subok=False):
    shape = ops.broadcast_shapes(*(_shape_of(a) for a in args))
    return tuple(broadcast_to(a, shape) for a in args)


def atleast_1d(*arys):
    out = [reshape(a, (1,)) if np.ndim(a) == 0 else as_tracer(a) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    out = []
    for a in (as_tracer(a) for a in arys):
        out.append(reshape(a, (1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a)
    return out[0] if len(out) == 1 else out


def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    if out is not None:
        raise _unsupported("np.concatenate(out=)")
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
    return emit(ops.concatenate, arrays, {"axis": axis}, scalar=False)


def stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = [as_tracer(a) for a in arrays]
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError(f"all input arrays must have the same shape{at(user_location())}")
    axis = normalize_axes(axis, arrays[0].ndim + 1)[0]
    return concatenate([expand_dims(a, axis) for a in arrays], axis, out, dtype)


def hstack(tup, dtype=None, casting="same_kind"):
    arrays = [atleast_1d(a) for a in tup]
    return concatenate(arrays, 0 if arrays[0].ndim == 1 else 1, dtype=dtype)


def vstack(tup, dtype=None, casting="same_kind"):
    return concatenate([atleast_2d(a) for a in tup], 0, dtype=dtype)


def column_stack(tup):
    arrays = [as_tracer(a) for a in tup]
    arrays = [reshape(a, (a.size, 1)) if a.ndim < 2 else a for a in arrays]
    return concatenate(arrays, 1)


# ---------------------------------------------------------------- copies and constructors

def copy_array(a, order="K", subok=False):
    a = as_tracer(a)
    # Reading a view materialises it; a fresh buffer decouples later writes.
    return new_tracer(a.value, scalar=a._scalar)


def full_value(shape, fill_value, dtype=None) -> Tracer:
    """``np.full`` for a traced or concrete fill value."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    if isinstance(fill_value, Tracer):
        dtype = fill_value.dtype if dtype is None else np.dtype(dtype)
        value = astype(fill_value, dtype)
        return copy_array(broadcast_to(value, shape)) if shape else as_tracer(value.value)
    dtype = np.array(fill_value).dtype if dtype is None else np.dtype(dtype)
    check_supported_dtype(dtype, "np.full")
    attrs = {"shape": shape, "dtype": dtype, "fill": np.array(fill_value).astype(dtype).item()}
    return emit(ops.full, [], attrs, scalar=False)


def _like(fill: object | None) -> Callable:
    def like(a, dtype=None, order="K", subok=True, shape=None, fill_value=None, **kwargs):
        if fill_value is not None:  # full_like(a, fill_value)
            value = fill_value
        else:
            value = fill
        if value is None:
            raise _unsupported("np.full_like without a fill value")
        shape = _shape_of(a) if shape is None else shape
        dtype = (a.dtype if isinstance(a, Tracer) else np.asarray(a).dtype) \
            if dtype is None else dtype
        return full_value(shape, value, dtype)

    return like


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, **kwargs):
    return _like(None)(a, dtype, order, subok, shape, fill_value=fill_value)


def array_from_nested(data: object, dtype=None) -> Tracer:
    """``np.array`` of (nested) lists/tuples that contain Tracers."""
    if isinstance(data, (list, tuple)):
        if not data:
            return new_tracer(to_value(np.array([], dtype=dtype or np.float64)), False)
        items = [array_from_nested(item) for item in data]
        result = stack(items) if items[0].ndim or len(items) > 1 else expand_dims(items[0], 0)
    elif isinstance(data, Tracer):
        result = data
    else:  # Python scalars in lists are strong (np.array([1.0]) is float64)
        result = new_tracer(current().constant(np.asarray(data)), scalar=False)
    return astype(result, dtype) if dtype is not None else result


# ---------------------------------------------------------------- indexing

def _normalize_index(key: object, shape: tuple[int, ...]) -> tuple[tuple, list[int]]:
    """Basic index -> (normalized index of ints/slice triples, positions of None).

    Normalized slices are triples ``(start, stop, step)`` that select the same
    elements as the user's slice; ``stop`` is None when it runs past the front.
    """
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if _is_dynamic_int(k):
            continue
        if isinstance(k, (Tracer, list, np.ndarray)) and not (
                isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu"):
            raise _unsupported("indexing with an array (advanced indexing)")
        if _is_traced_slice(k) and isinstance(k.step, Tracer):
            raise _unsupported("a slice with a traced step")
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {n_real} were indexed{at(user_location())}")
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
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
            dynamic.append(k)
        elif shape[dim] is None:  # an axis whose length is known at run time only
            index.append(_run_time_entry(k, dynamic))
        elif _is_traced_slice(k):
            length, step = _traced_slice_length(k), k.step or 1
            if length is None:
                index.append(_run_time_entry(k, dynamic))
            else:
                if ops.slice_span(length, step) > shape[dim]:
                    raise IndexError(f"a slice of length {length} does not fit axis {dim} "
                                     f"of size {shape[dim]}{at(user_location())}")
                index.append((ops.DYNAMIC, length, step))
                dynamic.append(astype(as_tracer(k.start), np.int64))
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
                dynamic.append(astype(as_tracer(bound), np.int64))
        return (ops.RANGE, *bounds, step)
    dynamic.append(as_tracer(np.int64(_static_int(k, "index"))))
    return ops.DYNAMIC


def _static_int(k: object, what: str) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                         f"(`None`) and integer or boolean arrays are valid indices, got "
                         f"{type(k).__name__} as {what}{at(user_location())}")
    return int(k)


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
        raise _unsupported("indexing with a boolean scalar")
    if isinstance(k, (int, np.integer)):
        if not -size <= int(k) < size:
            raise IndexError(f"index {int(k)} is out of bounds for axis {dim} with size "
                             f"{size}{at(user_location())}")
        return int(k) % size
    raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                     f"(`None`) and integer or boolean arrays are valid indices, got "
                     f"{type(k).__name__}{at(user_location())}")


# ---------------------------------------------------------------- advanced indexing

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
            raise _unsupported("None (np.newaxis) together with array indices")
        if _is_mask(k):
            mask = _concrete(k)
            if mask is None:
                raise _unsupported("a traced boolean mask together with other indices "
                                   "(x[mask] alone is supported)")
            entries.extend(np.nonzero(mask))
        else:
            entries.append(k)
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
        concrete = _concrete(expanded[axis])
        if concrete is not None and x.shape[axis] is not None:
            n = x.shape[axis]
            bad = concrete[(concrete < -n) | (concrete >= n)]
            if bad.size:
                raise IndexError(f"index {bad.flat[0]} is out of bounds for axis {axis} with "
                                 f"size {n}{at(user_location())}")
        indices.append(index)
    basic = tuple(slice(None) if i in axes else k for i, k in enumerate(expanded))
    base = getitem(x, basic) if any(k != slice(None) for k in basic) else x
    front = axes != tuple(range(axes[0], axes[-1] + 1))
    return base, indices, axes, front


def _concrete(k: object) -> np.ndarray | None:
    """The value of an index known while tracing (a constant), else None."""
    if not isinstance(k, Tracer):
        return np.asarray(k)
    node = k.value.producer
    return node.attrs["value"] if node is not None and node.op is ops.constant else None


def _gather(x: Tracer, key: object) -> Tracer:
    base, indices, axes, front = _advanced_index(x, key)
    return emit(ops.gather, [base, *indices], {"axes": axes, "front": front}, scalar=False)


def _scatter(x: Tracer, key: object, value: object, accumulate: bool) -> None:
    base, indices, axes, front = _advanced_index(x, key)
    v = as_tracer(value)
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
        raise _unsupported("np.add.at on an array that is not traced")
    if not _has_advanced(key):
        index = key if isinstance(key, tuple) else (key,)
        x[index] = x[index] + as_tracer(value)  # basic indices never repeat
        return
    _scatter(x, key, value, accumulate=True)


def _traced_mask(key: object) -> bool:
    """A boolean mask only known when the code runs (not a constant)."""
    return isinstance(key, Tracer) and _is_mask(key) and _concrete(key) is None


def getitem(self: Tracer, key: object) -> Tracer:
    if _traced_mask(key):  # one row per true entry: a length known at run time only
        return emit(ops.compress, [self, key], scalar=False)
    if _has_advanced(key):
        return _gather(self, key)
    index, new_axes, dynamic = _normalize_index(key, self.shape)
    if dynamic or any(map(ops.is_range, index)):
        scalar = len(index) == self.ndim and all(not isinstance(e, tuple) for e in index)
        if scalar and not new_axes:
            return emit(ops.dyn_getitem, [self, *dynamic], {"index": index}, scalar=True)
        # A view, like NumPy's x[i]: writes through it reach x.
        step = ViewStep("dyn_getitem", (index, tuple(d.value for d in dynamic)))
        result = view(self, (step,))
        if dynamic:
            _ = result.value  # recorded now: a bad index raises, read or not, as in NumPy
    else:
        has_ellipsis = key is Ellipsis or (isinstance(key, tuple) and Ellipsis in key)
        all_ints = len(index) == self.ndim and all(isinstance(e, int) for e in index)
        if all_ints and not new_axes and not has_ellipsis:  # a scalar copy, not a view
            return emit(ops.getitem, [self], {"index": index}, scalar=True)
        result = view(self, (ViewStep("getitem", index),) if index else ())
    if new_axes:
        shape = list(result.shape)
        for pos in new_axes:
            shape.insert(pos, 1)
        result = reshape(result, tuple(shape))
    return result


def _check_scalar_into(dtype: np.dtype, value: object) -> None:
    """NumPy's checks on a scalar stored into an integer array: a Python int
    must fit the dtype (OverflowError); a Python float, or a NumPy float scalar
    into a signed dtype, goes through Python's int(): NaN raises ValueError,
    infinities and huge values OverflowError (float arrays, and NumPy float
    scalars into unsigned dtypes, are cast without a word)."""
    if dtype.kind not in "iu":
        return
    if type(value) is int:
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {dtype}"
                                f"{at(user_location())}")
    elif isinstance(value, Tracer):  # a Python float argument is weak
        if value._scalar and value.dtype.kind == "f" and (dtype.kind == "i" or value.aval.weak):
            require(value == value, ValueError, "cannot convert float NaN to integer")
            require(abs(value) < 2.0 ** 63, OverflowError,
                    "cannot convert float infinity or a float this large to integer")
    elif type(value) is float or (isinstance(value, np.floating) and dtype.kind == "i"):
        try:
            int(value)
        except (ValueError, OverflowError) as exc:
            raise type(exc)(f"{exc}{at(user_location())}") from None


def _selects_one_element(key: object, ndim: int) -> bool:
    """An integer for every axis (``b[()]`` of a 0-d array too): NumPy then
    stores one element, and an array value is an error even of size 1 (unless
    the array is bool: anything has a truth value)."""
    keys = key if isinstance(key, tuple) else (key,)
    return len(keys) == ndim and all(
        _is_dynamic_int(k) or (isinstance(k, (int, np.integer)) and not isinstance(k, bool))
        for k in keys)


def _without_leading_ones(v: Tracer, ndim: int) -> Tracer:
    """A value stored into ``ndim`` axes may have more leading axes of length 1
    (NumPy drops them: ``a[0] = a`` for a of shape (1, 5))."""
    extra = v.ndim - ndim
    if extra > 0 and all(d == 1 for d in v.shape[:extra]):
        return reshape(v, v.shape[extra:])
    return v


def setitem(self: Tracer, key: object, value: object) -> None:
    _check_scalar_into(self.dtype, value)
    if isinstance(key, Tracer) and key.dtype == np.bool_:  # a 0-d mask: all or nothing
        _masked_assign(self, key, value)
        return
    if _has_advanced(key):
        _scatter(self, key, value, accumulate=False)
        return
    index, new_axes, dynamic = _normalize_index(key, self.shape)
    if new_axes:
        raise _unsupported("assignment with None (np.newaxis) in the index")
    v = as_tracer(value)
    if _selects_one_element(key, self.ndim) and v.ndim and self.dtype != np.bool_:
        raise ValueError(f"setting an array element with a sequence.{at(user_location())}")
    v = _without_leading_ones(v, len(ops.slice_shape(self.shape, index)))
    if v.dtype != self.dtype:
        v = astype(v, self.dtype)
    if dynamic or any(map(ops.is_range, index)):
        self.write(emit(ops.dyn_setitem, [self, v, *dynamic], {"index": index}).value)
        return
    if not index:  # x[...] = v
        target = self.shape
        if ops.broadcast_shapes(v.shape, target) != target:
            raise ValueError(f"could not broadcast input array from shape {v.shape} into "
                             f"shape {target}{at(user_location())}")
        self.write(broadcast_to(v, target).value if v.shape != target else
                   copy_array(v).value)
        return
    self.write(emit(ops.setitem, [self, v], {"index": index}).value)


# ---------------------------------------------------------------- methods and properties

def _method_table() -> dict[str, Callable]:
    def reshape_method(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        return reshape(self, shape, order)

    def transpose_method(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
            axes = axes[0]
        return transpose(self, axes or None)

    def fill(self, value):
        _check_scalar_into(self.dtype, value)
        self.write(full_value(self.shape, value, self.dtype).value)

    return {
        "sum": sum_, "prod": prod, "max": amax, "min": amin, "mean": mean, "var": var,
        "std": std, "argmax": argmax, "argmin": argmin, "any": any_, "all": all_,
        "cumsum": cumsum, "cumprod": cumprod, "argsort": argsort, "repeat": repeat,
        "searchsorted": searchsorted,
        "diagonal": diagonal, "trace": trace_,
        "sort": lambda self, axis=-1, kind=None, order=None: self.write(
            sort(self, axis, kind, order).value),
        "reshape": reshape_method, "transpose": transpose_method, "astype": astype,
        "copy": copy_array, "ravel": ravel,
        "flatten": lambda self, order="C": copy_array(ravel(self)),
        "squeeze": squeeze, "clip": clip, "dot": dot, "swapaxes": swapaxes, "fill": fill,
        "round": round_, "__getitem__": getitem, "__setitem__": setitem,
    }


def _missing_attribute(self, name: str):
    """ndarray methods jitaic does not trace are an UnsupportedError, not a typo."""
    if name in ("__array_struct__", "__array_interface__"):  # NumPy converting a list
        raise UnsupportedError(
            f"a Python list or tuple holding traced values reached a NumPy function that "
            f"converts it to an array{at(user_location())} (np.sum([x, y]), or a list "
            f"argument of the jitted function handed on to NumPy): pass arrays (call "
            f"np.asarray on the argument before the jitted function) or combine traced "
            f"values with np.stack / np.concatenate")
    if hasattr(np.ndarray, name):
        raise _unsupported(f"ndarray.{name}")
    raise AttributeError(f"'Tracer' object (a traced array) has no attribute {name!r}")


def _install_methods() -> None:
    for name, fn in _method_table().items():
        setattr(Tracer, name, fn)
    Tracer.T = property(lambda self: transpose(self))
    Tracer.mT = property(lambda self: swapaxes(self, -1, -2))
    Tracer.__getattr__ = _missing_attribute
    Tracer.__array_ufunc__ = _array_ufunc
    Tracer.__array_function__ = _array_function


# ---------------------------------------------------------------- __array_function__

def _static(fn: Callable) -> Callable:
    """Functions answered from the static type, never recorded."""
    return lambda a, *args, **kwargs: fn(as_tracer(a), *args, **kwargs)


# ---------------------------------------------------------------- compositions

def flip(m, axis=None):
    x = as_tracer(m)
    axes = normalize_axes(axis, x.ndim)
    return getitem(x, tuple(slice(None, None, -1) if d in axes else slice(None)
                            for d in range(x.ndim)))


def diff(a, n=1, axis=-1, prepend=None, append=None):
    x = as_tracer(a)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    (axis,) = normalize_axes(axis, x.ndim)

    def edge(v):  # a scalar stands for a slice of length 1 along the axis
        v = as_tracer(v)
        return broadcast_to(v, x.shape[:axis] + (1,) + x.shape[axis + 1:]) if v.ndim == 0 \
            else v

    if prepend is not None or append is not None:
        x = concatenate([*([edge(prepend)] if prepend is not None else []), x,
                         *([edge(append)] if append is not None else [])], axis=axis)
    for _ in range(n):
        upper, lower = (getitem(x, tuple(part if d == axis else slice(None)
                                         for d in range(x.ndim)))
                        for part in (slice(1, None), slice(None, -1)))
        x = apply_ufunc(np.not_equal if x.dtype == np.bool_ else np.subtract, upper, lower)
    return x


def _static_ints(value, what: str) -> tuple[int, ...]:
    """Shifts, counts and axes that shape the result must be Python ints."""
    values = value if isinstance(value, (tuple, list)) else (value,)
    if any(isinstance(v, Tracer) for v in values):
        raise _unsupported(f"{what} given by a traced value (the result's shape would "
                           "depend on the data)")
    return tuple(operator.index(v) for v in values)


def _along(x: Tracer, axis: int, part: slice) -> Tracer:
    return getitem(x, tuple(part if d == axis else slice(None) for d in range(x.ndim)))


def roll(a, shift, axis=None):
    x = as_tracer(a)
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), x.shape)
    shifts, axes = _static_ints(shift, "np.roll's shift"), normalize_axes(axis, x.ndim)
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
            x = concatenate([_along(x, ax, slice(cut, None)), _along(x, ax, slice(None, cut))],
                            axis=ax)
    return x


def repeat(a, repeats, axis=None):
    """A gather whose (static) indices NumPy's own np.repeat computes."""
    x = as_tracer(a)
    if axis is None or x.ndim == 0:  # a 0-d array repeats as a 1-d one (axis 0 or -1)
        normalize_axes(axis, x.ndim)
        x, axis = ravel(x), 0
    (axis,) = normalize_axes(axis, x.ndim)
    counts = _static_ints(repeats, "np.repeat's repeats")
    index = np.repeat(np.arange(x.shape[axis]), counts if len(counts) > 1 else counts[0])
    return take(x, index, axis)


def tile(A, reps):
    x = as_tracer(A)
    reps = _static_ints(reps, "np.tile's reps")
    ndim = max(len(reps), x.ndim)
    reps = (1,) * (ndim - len(reps)) + reps
    shape = (1,) * (ndim - x.ndim) + x.shape
    spread = reshape(x, tuple(d for n in shape for d in (1, n)))
    tiled = broadcast_to(spread, tuple(d for r, n in zip(reps, shape) for d in (r, n)))
    return reshape(tiled, tuple(r * n for r, n in zip(reps, shape)))


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    grids = [reshape(as_tracer(v), (1,) * i + (-1,) + (1,) * (ndim - i - 1))
             for i, v in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        grids[0] = reshape(grids[0], (1, -1) + (1,) * (ndim - 2))
        grids[1] = reshape(grids[1], (-1, 1) + (1,) * (ndim - 2))
    return tuple(grids) if sparse else tuple(copy_array(g) for g in broadcast_arrays(*grids))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's formula: |a - b| <= atol + rtol*|b| for finite b, or a == b."""
    x, y = as_tracer(a), as_tracer(b)
    if y.dtype.kind != "f":
        y = astype(y, np.result_type(y.dtype, 1.0))
    close = apply_ufunc(np.less_equal, apply_ufunc(np.absolute, x - y),
                        atol + rtol * apply_ufunc(np.absolute, y))
    result = (close & apply_ufunc(np.isfinite, y)) | apply_ufunc(np.equal, x, y)
    if equal_nan:
        result = result | (apply_ufunc(np.isnan, x) & apply_ufunc(np.isnan, y))
    return result


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return all_(isclose(a, b, rtol, atol, equal_nan))


def logaddexp(x1, x2):
    """NumPy's npy_logaddexp: the larger plus log1p(exp(-|x - y|)), NaN for
    NaN, x + log(2) for equal infinities. (Equal finite values take the
    general formula: log1p(1) rounds to log(2) exactly, as NumPy's constant,
    and the gradient there is 1/2 for each.)"""
    x, y = as_tracer(x1), as_tracer(x2)
    dtype = np.result_type(x.dtype, y.dtype, np.float16)
    x, y = astype(x, dtype, copy=False), astype(y, dtype, copy=False)
    d = x - y
    result = where(d > 0, x + apply_ufunc(np.log1p, apply_ufunc(np.exp, -d)),
                   y + apply_ufunc(np.log1p, apply_ufunc(np.exp, d)))
    result = where(apply_ufunc(np.isnan, d), d, result)
    same_infinity = apply_ufunc(np.equal, x, y) & apply_ufunc(np.isinf, x)
    return where(same_infinity, x, result)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    v = as_tracer(x)
    if v.dtype.kind != "f":
        return v
    info = np.finfo(v.dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    v = where(apply_ufunc(np.isnan, v), v.dtype.type(nan), v)
    return where(v == np.inf, v.dtype.type(big), where(v == -np.inf, v.dtype.type(small), v))


def _without_nan(a, fill):
    x = as_tracer(a)
    if x.dtype.kind != "f":
        return x, None
    missing = apply_ufunc(np.isnan, x)
    return where(missing, x.dtype.type(fill), x), missing


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    x, _ = _without_nan(a, 0.0)
    return sum_(x, axis, dtype, out, keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    x, missing = _without_nan(a, 0.0)
    if missing is None:
        return mean(x, axis, dtype, out, keepdims)
    count = sum_(apply_ufunc(np.logical_not, missing), axis, np.intp, None, keepdims)
    return _divide(sum_(x, axis, dtype, out, keepdims), count)


def _nan_extreme(reducer, fill):
    def extreme(a, axis=None, out=None, keepdims=False, **kwargs):
        x, missing = _without_nan(a, fill)
        result = reducer(x, axis, keepdims=keepdims)
        if missing is None:
            return result
        nan = full_value((), np.nan, result.dtype)
        return emit(ops.where, [all_(missing, axis, keepdims=keepdims), nan, result])

    return extreme


nanmax, nanmin = _nan_extreme(amax, -np.inf), _nan_extreme(amin, np.inf)


def count_nonzero(a, axis=None, *, keepdims=False):
    x = as_tracer(a)
    return sum_(apply_ufunc(np.not_equal, x, 0), axis, np.intp, None, keepdims)


def flatnonzero(a):
    """Indices of the non-zero elements: a run-time length, as ``x[mask]``."""
    x = ravel(as_tracer(a))
    return getitem(as_tracer(np.arange(x.shape[0])), apply_ufunc(np.not_equal, x, 0))


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """NumPy's: (d * (y[1:] + y[:-1]) / 2.0).sum(axis)."""
    v = as_tracer(y)
    (axis,) = normalize_axes(axis, v.ndim)
    if x is None:
        d = dx
    else:
        d = diff(x) if as_tracer(x).ndim == 1 else diff(x, axis=axis)
        if as_tracer(x).ndim == 1:
            d = reshape(d, tuple(d.shape[0] if i == axis else 1 for i in range(v.ndim)))
    return sum_(d * (_along(v, axis, slice(1, None)) + _along(v, axis, slice(None, -1)))
                / 2.0, axis)


def _size_of(x: Tracer, axes) -> int:
    """The element count over these axes (reshape's -1 cannot stand for it at size 0)."""
    return int(np.prod([x.shape[d] for d in axes], dtype=np.int64))


def tensordot(a, b, axes=2):
    x, y = as_tracer(a), as_tracer(b)
    if isinstance(axes, int):
        ax_a, ax_b = tuple(range(x.ndim - axes, x.ndim)), tuple(range(axes))
    else:
        # pairs in the user's order (normalize_axes sorts)
        ax_a, ax_b = (tuple(normalize_axes(i, n)[0] for i in _static_ints(v, "np.tensordot's axes"))
                      for v, n in zip(axes, (x.ndim, y.ndim)))
    if any(x.shape[i] != y.shape[j] for i, j in zip(ax_a, ax_b)) or len(ax_a) != len(ax_b):
        raise ValueError("shape-mismatch for sum")
    free_a = [d for d in range(x.ndim) if d not in ax_a]
    free_b = [d for d in range(y.ndim) if d not in ax_b]
    k = _size_of(x, ax_a)
    lhs = reshape(transpose(x, (*free_a, *ax_a)), (_size_of(x, free_a), k))
    rhs = reshape(transpose(y, (*ax_b, *free_b)), (k, _size_of(y, free_b)))
    return reshape(matmul(lhs, rhs), tuple(x.shape[d] for d in free_a)
                   + tuple(y.shape[d] for d in free_b))


def matrix_power(a, n):
    """Repeated squaring, as NumPy's (n static; negative powers need inv)."""
    x = as_tracer(a)
    (n,) = _static_ints(n, "np.linalg.matrix_power's n")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError("Last 2 dimensions of the array must be square")
    if n < 0:
        raise _unsupported("np.linalg.matrix_power with a negative power (np.linalg.inv)")
    if n == 0:
        return broadcast_to(as_tracer(np.eye(x.shape[-1], dtype=x.dtype)), x.shape) + 0
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


def sinc(x):
    """NumPy's formula: sin(pi y) / (pi y), with 1e-20 standing in for 0."""
    x = as_tracer(x)
    y = np.pi * where(x == 0, 1.0e-20, x)
    return apply_ufunc(np.sin, y) / y


def polyval(p, x):
    """Horner's rule from a zero of x's dtype, NumPy's order of operations."""
    coefficients, x = as_tracer(p), as_tracer(x)
    if coefficients.ndim != 1:
        raise _unsupported("np.polyval with coefficients that are not a 1-D array")
    y = full_value(x.shape, 0, x.dtype)
    for k in range(coefficients.shape[0]):
        y = y * x + getitem(coefficients, k)
    return y


# Kernels up to this long are a sum of shifted slices (one fused loop);
# longer ones a gather of the windows times the kernel (one BLAS product).
_SLICE_SUM_MAX_TAPS = 32


def correlate(a, v, mode="valid"):
    """out[k] = sum_j a_padded[k + j] * v[j], NumPy's padding per mode."""
    x, w = (ravel(as_tracer(t)) for t in (a, v))
    n, m = x.shape[0], w.shape[0]
    if not n or not m:
        raise ValueError(f"{'a' if not n else 'v'} cannot be empty")
    if n < m:  # NumPy swaps and reverses the result
        return flip(correlate(w, x, mode), 0)
    left = {"valid": 0, "same": m // 2, "full": m - 1}.get(mode)
    if left is None:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    right = {"valid": 0, "same": m - 1 - m // 2, "full": m - 1}[mode]
    dtype = np.result_type(x.dtype, w.dtype)
    padded = concatenate([full_value((left,), 0, dtype), astype(x, dtype, copy=False),
                          full_value((right,), 0, dtype)])
    length = n + left + right - m + 1
    if m <= _SLICE_SUM_MAX_TAPS:
        out = None
        for j in range(m):
            term = getitem(padded, slice(j, j + length)) * getitem(w, j)
            out = term if out is None else out + term
        return out
    windows = getitem(padded, as_tracer(np.arange(length)[:, None] + np.arange(m)))
    return matmul(windows, astype(w, dtype, copy=False))


def convolve(a, v, mode="full"):
    """NumPy's: the longer operand first, correlated with the other reversed."""
    x, w = (ravel(as_tracer(t)) for t in (a, v))
    if w.shape[0] > x.shape[0]:
        x, w = w, x
    return correlate(x, flip(w, 0), mode)


def searchsorted(a, v, side="left", sorter=None):
    if sorter is not None:
        raise _unsupported("np.searchsorted(sorter=)")
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    x, y = as_tracer(a), as_tracer(v)
    dtype = np.result_type(x.dtype, y.dtype)
    x, y = astype(x, dtype, copy=False), astype(y, dtype, copy=False)
    return emit(ops.searchsorted, [x, y], {"side": side})


def digitize(x, bins, right=False):
    """NumPy's: a search of increasing bins, or of decreasing ones reversed
    (the direction is read from the bins; both searches run when it is only
    known at run time). Bins that are not monotonic give NumPy's error only
    when they are constants."""
    edges = as_tracer(bins)
    if edges.ndim != 1:
        raise ValueError("bins must be one-dimensional")
    side = "left" if right else "right"
    if isinstance(bins, np.ndarray):
        if not (np.all(bins[1:] >= bins[:-1]) or np.all(bins[1:] <= bins[:-1])):
            raise ValueError("bins must be monotonically increasing or decreasing")
    increasing = searchsorted(edges, x, side)
    if edges.shape[0] < 2:
        return increasing
    decreasing = edges.shape[0] - searchsorted(flip(edges, 0), x, side)
    # NumPy's direction: the first pair of unequal neighbours (NaN counts as
    # unequal) decreases, or not.
    later, earlier = getitem(edges, slice(1, None)), getitem(edges, slice(None, -1))
    unequal = later != earlier
    first = argmax(unequal)
    down = getitem(later < earlier, first) & any_(unequal)
    return where(down, decreasing, increasing)


def _linalg_operand(a) -> Tracer:
    """A LAPACK operand: integers and bools become float64 (NumPy's rule);
    float16 is rejected as NumPy rejects it."""
    x = as_tracer(a)
    if x.dtype == np.float16:
        raise TypeError("array type float16 is unsupported in linalg")
    return astype(x, np.float64) if x.dtype.kind in "biu" else x


def solve(a, b):
    """NumPy 2's rule: b is a vector (a stack of them, shaped like a's rows)
    when b.ndim == 1, else a stack of matrices; the stacks broadcast."""
    x, y = _linalg_operand(a), _linalg_operand(b)
    dtype = np.result_type(x.dtype, y.dtype)
    x, y = astype(x, dtype, copy=False), astype(y, dtype, copy=False)
    ops.check_square_stack(x.aval, "np.linalg.solve")  # before reading its shape
    if y.ndim == 1:
        if y.shape[0] != x.shape[-1]:
            raise ValueError(f"solve: Input operand 1 has a mismatch in its core "
                             f"dimension 0, with gufunc signature (m,m),(m)->(m) "
                             f"(size {y.shape[0]} is different from {x.shape[-1]})")
        return emit(ops.solve, [x, broadcast_to(y, x.shape[:-1])], scalar=False)
    stack = ops.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    x = broadcast_to(x, stack + x.shape[-2:])
    y = broadcast_to(y, stack + y.shape[-2:])
    return emit(ops.solve, [x, y], scalar=False)


def inv(a):
    return emit(ops.inv, [_linalg_operand(a)], scalar=False)


def det(a):
    return emit(ops.det, [_linalg_operand(a)])


_SLOGDET_RESULT = type(np.linalg.slogdet(np.eye(1)))  # NumPy's (sign, logabsdet) tuple


def slogdet(a):
    both = emit(ops.slogdet, [_linalg_operand(a)], scalar=False)
    scalar = both.ndim == 1
    sign, logdet = both[..., 0], both[..., 1]
    if scalar:  # NumPy returns scalars for one matrix
        sign, logdet = (new_tracer(v.value, scalar=True) for v in (sign, logdet))
    return _SLOGDET_RESULT(sign, logdet)


def cholesky(a, upper=False):
    lower = emit(ops.cholesky, [_linalg_operand(a)], scalar=False)
    return swapaxes(lower, -1, -2) if upper else lower


def einsum(subscripts, *operands, optimize=False, **kwargs):
    """Explicit or implicit subscripts over distinct letters per operand.
    Two operands whose shared letters are all summed are a tensordot (one
    BLAS product); anything else is a broadcast product summed over the
    dropped letters, which fuses into one loop nest."""
    if kwargs or not isinstance(subscripts, str) or "..." in subscripts:
        raise _unsupported("np.einsum with ellipses, out=/dtype= or the operand-list form")
    inputs, _, output = subscripts.replace(" ", "").partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise ValueError("more operands than subscripts" if len(operands) > len(terms)
                         else "fewer operands provided to einstein sum function than "
                              "specified in the subscripts string")
    if any(len(set(t)) != len(t) for t in terms):
        raise _unsupported("np.einsum with a letter repeated in one operand (a diagonal)")
    letters = "".join(terms)
    if "->" not in subscripts:
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    xs = [as_tracer(v) for v in operands]
    for term, x in zip(terms, xs):
        if len(term) != x.ndim:
            raise ValueError(f"einstein sum subscripts string contains too many subscripts "
                             f"for operand {terms.index(term)}")
    # Letters an operand alone has and the output drops are summed first.
    for i, (term, x) in enumerate(zip(terms, xs)):
        alone = [d for d, c in enumerate(term) if c not in output and
                 sum(c in t for t in terms) == 1]
        if alone:
            xs[i] = sum_(x, tuple(alone))
            terms[i] = "".join(c for d, c in enumerate(term) if d not in alone)
    shared = [c for c in terms[0] if len(terms) == 2 and c in terms[1]]
    if len(xs) == 2 and not (set(shared) & set(output)) and all(  # (else size 1 broadcasts)
            xs[0].shape[terms[0].index(c)] == xs[1].shape[terms[1].index(c)] for c in shared):
        product = tensordot(xs[0], xs[1], ([terms[0].index(c) for c in shared],
                                           [terms[1].index(c) for c in shared]))
        have = [c for c in terms[0] + terms[1] if c not in shared]
        if not have:
            return sum_(product)  # a 0-d result is a NumPy scalar
        return transpose(product, tuple(have.index(c) for c in output))
    order = sorted(set("".join(terms)), key=lambda c: (c not in output, output.find(c), c))
    product = None
    for term, x in zip(terms, xs):
        aligned = transpose(x, tuple(term.index(c) for c in order if c in term)) if term \
            else x
        aligned = reshape(aligned, tuple(x.shape[term.index(c)] if c in term else 1
                                         for c in order))
        product = aligned if product is None else product * aligned
    dropped = tuple(range(len(output), len(order)))
    return sum_(product, dropped) if dropped else product


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    """NumPy's default ("linear") method for static q: the sorted elements at
    floor and ceil of (n - 1) * q, blended by NumPy's _lerp; NaN anywhere
    gives NaN."""
    if out is not None or weights is not None or method != "linear":
        raise _unsupported("np.quantile/np.percentile with out=, weights= or a method "
                           "other than 'linear'")
    if isinstance(q, Tracer):
        raise _unsupported("np.quantile/np.percentile with a traced q")
    x = as_tracer(a)
    # NumPy's: a Python number q takes a float array's dtype; the virtual
    # indices and blend weights are computed in q's dtype.
    if isinstance(q, (int, float)) and x.dtype.kind == "f":
        qs = np.asarray(q, dtype=x.dtype)
    else:
        qs = np.asarray(q)
        qs = qs if qs.dtype.kind == "f" else qs.astype(np.float64)
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError("Quantiles must be in the range [0, 1]")
    lanes, axes = _lanes(x, axis, "np.quantile")
    lanes = astype(lanes, _float_type(x.dtype), copy=False)
    n = lanes.shape[-1]
    virtual = (n - 1) * qs.reshape(-1)                  # NumPy's "linear" virtual indices
    below = np.clip(np.floor(virtual), 0, n - 1).astype(int)
    chosen, slot = _select(lanes, (*below, *np.minimum(below + 1, n - 1)))
    results = []
    for v, k in zip(virtual, below, strict=True):
        gamma = v - np.floor(v)                         # a NumPy scalar of q's dtype
        lo = getitem(chosen, (..., slot[k]))
        hi = getitem(chosen, (..., slot[min(k + 1, n - 1)]))
        step = hi - lo
        # NumPy's _lerp: from the nearer end
        blend = hi - step * (1 - gamma) if gamma >= 0.5 else lo + step * gamma
        results.append(_order_statistic(blend, lanes, x, axes, keepdims))
    if qs.ndim == 0:
        return results[0]
    return reshape(stack(results), qs.shape + results[0].shape)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    if isinstance(q, Tracer):
        raise _unsupported("np.percentile with a traced q")
    dtype = as_tracer(a).dtype  # NumPy divides by 100 of a float array's dtype
    q = np.true_divide(q, dtype.type(100) if dtype.kind == "f" else 100)
    return quantile(a, q, axis, out, overwrite_input, method, keepdims, weights=weights)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """3- or 2-vectors along the last axes, in NumPy's order of operations."""
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = (moveaxis(as_tracer(v), ax, -1) for v, ax in ((a, axisa), (b, axisb)))
    if x.shape[-1] not in (2, 3) or y.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if x.shape[-1] != y.shape[-1]:
        raise _unsupported("np.cross of a 2-vector with a 3-vector")
    a0, a1, b0, b1 = (getitem(v, (..., i)) for v in (x, y) for i in (0, 1))
    if x.shape[-1] == 2:
        return a0 * b1 - a1 * b0
    a2, b2 = getitem(x, (..., 2)), getitem(y, (..., 2))
    result = stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(result, -1, axisc)


def interp(x, xp, fp, left=None, right=None, period=None):
    """NumPy's: for xp[j] <= x < xp[j+1], slope*(x - xp[j]) + fp[j] with
    slope = (fp[j+1] - fp[j]) / (xp[j+1] - xp[j]); fp[0] / fp[-1] (or
    left / right) outside, fp[-1] at x == xp[-1]. j is found by comparing
    against every xp (xp is short in the uses this serves)."""
    if period is not None:
        raise _unsupported("np.interp(period=)")
    v, xs, ys = as_tracer(x), as_tracer(xp), as_tracer(fp)
    if xs.ndim != 1 or ys.ndim != 1 or xs.shape != ys.shape or xs.shape[0] == 0:
        raise ValueError("fp and xp are not of the same length.")
    n = xs.shape[0]
    v = astype(v, np.float64, copy=False)
    xs, ys = astype(xs, np.float64, copy=False), astype(ys, np.float64, copy=False)
    low = ys[0] if left is None else left
    high = ys[n - 1] if right is None else right
    if n == 1:
        inside = full_value(v.shape, 0.0, np.float64) + ys[0]
    else:
        j = sum_(apply_ufunc(np.less_equal, reshape(xs[:-1], (n - 1,) + (1,) * v.ndim), v),
                 axis=0) - 1
        j = apply_ufunc(np.minimum, apply_ufunc(np.maximum, j, 0), n - 2)
        x0, x1 = take(xs, j), take(xs, j + 1)
        y0, y1 = take(ys, j), take(ys, j + 1)
        slope = (y1 - y0) / (x1 - x0)
        inside = slope * (v - x0) + y0
        # NumPy: a NaN (inf slopes) is retried from the right end, then fp[j] if flat.
        retry = slope * (v - x1) + y1
        inside = where(apply_ufunc(np.isnan, inside),
                       where(apply_ufunc(np.isnan, retry) & (y0 == y1), y0, retry), inside)
        inside = where(v == xs[n - 1], ys[n - 1], inside)
    return where(v < xs[0], low, where(v > xs[n - 1], high, inside))


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    x = as_tracer(a)
    if weights is None:
        avg = mean(x, axis, keepdims=keepdims)
        total = full_value(avg.shape, _count(x, normalize_axes(axis, x.ndim)), avg.dtype)
    else:
        w = as_tracer(weights)
        if w.shape != x.shape:  # 1-D weights along one axis, as NumPy allows
            if axis is None or w.ndim != 1:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            (ax,) = normalize_axes(axis, x.ndim)
            w = reshape(w, tuple(w.shape[0] if d == ax else 1 for d in range(x.ndim)))
        total = sum_(broadcast_to(w, x.shape) * 1.0, axis, keepdims=keepdims)
        avg = sum_(x * w, axis, keepdims=keepdims) / total
    return (avg, broadcast_to(total, avg.shape)) if returned else avg


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    if fweights is not None or aweights is not None:
        raise _unsupported("np.cov(fweights=/aweights=)")
    x = atleast_2d(m)
    x = astype(x, dtype or np.result_type(x.dtype, np.float64))  # NumPy: float64 at least
    if not rowvar and x.shape[0] != 1:
        x = transpose(x)
    if y is not None:
        yy = astype(atleast_2d(y), x.dtype)
        x = concatenate([x, transpose(yy) if not rowvar and yy.shape[0] != 1 else yy], 0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    n = x.shape[1]
    centred = x - mean(x, axis=1, keepdims=True)
    c = dot(centred, transpose(centred)) / max(n - ddof, 0)
    return squeeze(c) if c.shape == (1, 1) else c


def trace_(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    x = as_tracer(a)
    if out is not None or x.ndim != 2 or (axis1, axis2) != (0, 1):
        raise _unsupported("np.trace of a non-matrix or with axis1/axis2/out")
    return sum_(diagonal(x, offset), dtype=dtype)


def take(a, indices, axis=None, out=None, mode="raise"):
    if out is not None or mode != "raise":
        raise _unsupported("np.take(out=/mode=)")
    x = as_tracer(a)
    if axis is None:
        x, axis = ravel(x), 0
    (axis,) = normalize_axes(axis, x.ndim)
    return getitem(x, (slice(None),) * axis + (indices,))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``np.linspace`` with traced scalar endpoints (``num`` static), in NumPy's
    own arithmetic: ``arange(num) * step + start``, the last point ``stop``."""
    if isinstance(num, Tracer) or axis != 0 or np.ndim(start) or np.ndim(stop):
        raise _unsupported("np.linspace with traced arguments other than scalar "
                           "start/stop (num must be static)")
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = num - 1 if endpoint else num
    start, stop = as_tracer(start), as_tracer(stop)
    dt = np.result_type(start.dtype if not start.aval.weak else float(0),
                        stop.dtype if not stop.aval.weak else float(0), float(num))
    delta = astype(stop, dt) - astype(start, dt)
    y = as_tracer(np.arange(0, num, dtype=dt))
    step = delta / div if div > 0 else full_value((), np.nan, dt)
    y = (y * step if div > 0 else y * delta) + astype(start, dt)
    if endpoint and num > 1:
        y[-1] = stop
    y = astype(y, dtype) if dtype is not None else y
    return (y, step) if retstep else y


def _triangle(upper: bool) -> Callable:
    """np.triu / np.tril: a where against a constant mask (NumPy's own way)."""
    def triangle(m, k=0):
        x = as_tracer(m)
        if x.ndim < 2 or not x.aval.static:
            raise _unsupported(f"np.{'triu' if upper else 'tril'} of an array with fewer "
                               f"than 2 dimensions or a run-time length")
        rows, cols = x.shape[-2:]
        below = np.tri(rows, cols, k - 1 if upper else k, dtype=bool)
        keep = ~below if upper else below
        return where(as_tracer(keep), x, full_value((), 0, x.dtype))

    return triangle


def _float_type(dtype: np.dtype) -> np.dtype:
    return np.result_type(dtype, float) if dtype.kind in "biu" else dtype


def histogram(a, bins=10, range=None, density=None, weights=None):
    """``np.histogram`` with a static number of equal bins, NumPy's binning: the
    edges are ``linspace(min, max, bins + 1)`` (traced), each value's bin is
    computed from its offset and corrected against the edges, counts add up."""
    if not isinstance(bins, (int, np.integer)) or density:
        raise _unsupported("np.histogram with bins other than a number, or density=True")
    x = ravel(as_tracer(a))
    w = None if weights is None else ravel(as_tracer(weights))
    if range is not None:  # static edges (Python floats, as NumPy computes them)
        first, last = (float(v) for v in range)
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite"
                             f"{at(user_location())}")
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        first, last = (first - 0.5, last + 0.5) if first == last else (first, last)
        keep = (x >= first) & (x <= last)  # the rest is counted in a bin dropped below
        bin_type = _float_type(np.result_type(first, last, x.dtype))
        edges = as_tracer(np.linspace(first, last, bins + 1, dtype=bin_type))
    else:  # traced edges from the data's min and max
        keep = None
        bin_type = _float_type(x.dtype)
        first, last = astype(amin(x), bin_type), astype(amax(x), bin_type)
        require(apply_ufunc(np.isfinite, first) & apply_ufunc(np.isfinite, last), ValueError,
                "autodetected range of the data is not finite")
        same = first == last  # NumPy widens an empty range by 0.5 each way
        first, last = where(same, first - 0.5, first), where(same, last + 0.5, last)
        edges = linspace(first, last, bins + 1, dtype=bin_type)
    index = astype((x - first) / (last - first) * bins, np.int64)
    # in range: NumPy's bins - 1 for the last edge; out of range (dropped
    # below): anything that indexes the edges
    index = clip(index, 0, bins - 1)
    index = where(x < getitem(edges, index), index - 1, index)
    up = (x >= getitem(edges, index + 1)) & (index != bins - 1)
    index = where(up, index + 1, index)
    if keep is not None:
        index = where(keep, index, bins)
    counts = full_value((bins + 1,), 0, np.int64 if w is None else w.dtype)
    add_at(counts, index, 1 if w is None else w)
    return getitem(counts, slice(0, bins)), edges


# ufunc.accumulate that are scans (np.add.accumulate(x, axis) is cumsum's).
_SCANS = {np.add: cumsum, np.multiply: cumprod, np.maximum: cummax, np.minimum: cummin}
# ufuncs written as compositions of ops (reached through __array_ufunc__).
COMPOSITE_UFUNCS: dict[np.ufunc, Callable] = {np.logaddexp: logaddexp}

HANDLERS: dict[Callable, Callable] = {
    np.sum: sum_, np.prod: prod, np.max: amax, np.amax: amax, np.min: amin,
    np.amin: amin, np.any: any_, np.all: all_, np.mean: mean, np.var: var, np.std: std,
    np.argmax: argmax, np.argmin: argmin, np.cumsum: cumsum, np.cumprod: cumprod,
    np.diff: diff, np.argsort: argsort, np.sort: sort, np.median: median,
    np.roll: roll, np.repeat: repeat, np.tile: tile, np.meshgrid: meshgrid,
    np.isclose: isclose, np.allclose: allclose,
    np.nan_to_num: nan_to_num, np.nansum: nansum, np.nanmean: nanmean, np.nanmax: nanmax,
    np.nanmin: nanmin, np.count_nonzero: count_nonzero, np.flatnonzero: flatnonzero,
    np.trapezoid: trapezoid, np.tensordot: tensordot, np.linalg.matrix_power: matrix_power,
    np.searchsorted: searchsorted, np.digitize: digitize, np.sinc: sinc,
    np.polyval: polyval, np.correlate: correlate, np.convolve: convolve,
    np.linalg.solve: solve, np.linalg.inv: inv, np.linalg.det: det,
    np.linalg.slogdet: slogdet, np.linalg.cholesky: cholesky,
    np.einsum: einsum, np.quantile: quantile, np.percentile: percentile, np.cross: cross,
    np.interp: interp, np.diag: diag, np.diagonal: diagonal, np.vander: vander,
    np.take_along_axis: take_along_axis, np.where: where, np.clip: clip,
    np.round: round_, np.around: round_, np.dot: dot, np.outer: outer, np.vdot: vdot,
    np.inner: inner, np.linalg.norm: norm, np.reshape: reshape, np.ravel: ravel,
    np.transpose: transpose, np.swapaxes: swapaxes, np.moveaxis: moveaxis,
    np.expand_dims: expand_dims, np.squeeze: squeeze, np.broadcast_to: broadcast_to,
    np.broadcast_arrays: broadcast_arrays, np.atleast_1d: atleast_1d,
    np.atleast_2d: atleast_2d, np.concatenate: concatenate, np.stack: stack,
    np.hstack: hstack, np.vstack: vstack, np.column_stack: column_stack, np.copy: copy_array,
    np.zeros_like: _like(0), np.ones_like: _like(1), np.empty_like: _like(0),
    np.full_like: full_like, np.flip: flip, np.average: average, np.cov: cov,
    np.trace: trace_, np.take: take, np.linspace: linspace, np.histogram: histogram,
    np.triu: _triangle(upper=True), np.tril: _triangle(upper=False),
    np.shape: _static(lambda a: a.shape), np.ndim: _static(lambda a: a.ndim),
    np.size: _static(lambda a, axis=None: a.size if axis is None else a.shape[axis]),
    np.result_type: lambda *xs: np.result_type(*(as_tracer(x).dtype if isinstance(
        x, Tracer) else x for x in xs)),
    np.array: lambda obj, dtype=None, **kw: copy_array(astype(obj, dtype) if dtype else obj),
    np.asarray: lambda a, dtype=None, **kw: astype(a, dtype, copy=False) if dtype else a,
    np.ascontiguousarray: lambda a, dtype=None, **kw: as_tracer(a),
    np.asfortranarray: lambda a, dtype=None, **kw: as_tracer(a),
}


def _array_function(self, func, types, args, kwargs):
    handler = HANDLERS.get(func)
    if handler is None:
        module = func.__module__ if func.__module__ not in (None, "numpy") else "np"
        module = module.replace("numpy", "np")
        raise _unsupported(f"{module}.{func.__name__}")
    return handler(*args, **kwargs)


def _install() -> None:
    _install_operators()
    _install_methods()


_install()

__all__ = ["HANDLERS", "apply_ufunc", "array_from_nested", "as_tracer", "full_value"]
