"""Helpers every NumPy module of the tracer uses: operands as Tracers, axes
with the user's file:line on errors, run-time checks, and the handlers that are
one op each (astype, where, broadcast_to, copy, a filled array, a reduction).
"""

from __future__ import annotations

import dataclasses
import operator
import warnings
from collections.abc import Sequence

import numpy as np

from jitaic.errors import NotLowered, UnsupportedError, at, user_location
from jitaic.ir import ops
from jitaic.ir.types import check_supported_dtype
from jitaic.tracer.core import (
    READ_ONLY,
    Tracer,
    ViewStep,
    emit,
    is_scalar_like,
    new_tracer,
    to_value,
)
from jitaic.tracer.numpy.registry import implements


def unsupported(what: str) -> UnsupportedError:
    return UnsupportedError(f"{what} is not supported by jitaic{at(user_location())}")


def not_lowered(what: str) -> NotLowered:
    """For arguments a handler has no lowering for: the call goes to NumPy
    (a callback) instead, or is refused with this message."""
    return NotLowered(f"{what} is not supported by jitaic{at(user_location())}")


def normalize_axes(axis, ndim: int, argument: str = "") -> tuple[int, ...]:
    """``ops.normalize_axes`` with the user's file:line on NumPy's AxisError
    (and the argument's name where NumPy's message starts with it)."""
    try:
        return ops.normalize_axes(axis, ndim)
    except np.exceptions.AxisError as exc:
        prefix = f"{argument}: " if argument else ""
        raise np.exceptions.AxisError(f"{prefix}{exc}{at(user_location())}") from None


def normalize_axis_index(axis, ndim: int) -> int:
    """One axis as NumPy's ``normalize_axis_index`` reads it: unlike the
    reductions' ``axis``, none exists on a 0-d array."""
    if ndim == 0:
        raise np.exceptions.AxisError(f"{np.exceptions.AxisError(int(axis), 0)}"
                                      f"{at(user_location())}")
    (axis,) = normalize_axes(int(axis), ndim)
    return axis


def as_tracer(x: object) -> Tracer:
    """Any operand as a Tracer (constants become constant nodes)."""
    if isinstance(x, Tracer):
        return x
    return new_tracer(to_value(x), scalar=is_scalar_like(x) and not isinstance(x, np.ndarray))


def concrete(x: object) -> np.ndarray | None:
    """The value of an operand known while tracing (a constant), else None."""
    if not isinstance(x, Tracer):
        return np.asarray(x)
    node = x.value.producer
    return node.attrs["value"] if node is not None and node.op is ops.constant else None


def as_array(x: object) -> Tracer:
    """The array NumPy makes of an operand (``np.asarray``): a Python number,
    a weak scalar (NEP 50), gets a dtype of its own there and no longer
    adapts to the other operands' (``np.dot(i, int8)`` is int64 for a
    Python int ``i``, a loop index in the AST frontend's code)."""
    t = as_tracer(x)
    return astype(t, t.dtype) if t.aval.weak else t


def shape_of(x: object) -> tuple[int, ...]:
    return x.shape if isinstance(x, Tracer) else np.shape(x)


def require(ok: object, error: type[Exception], message: str) -> None:
    """Raise ``error`` where ``ok`` is false: now when it is known while
    tracing, else at run time (a check node), naming the user's line either way."""
    message += at(user_location())
    if not isinstance(ok, Tracer):
        if not ok:
            raise error(message)
        return
    emit(ops.check, [ok], {"error": error.__name__, "message": message})


def reduction(op: ops.Op, x, axis, keepdims: bool, dtype=None) -> Tracer:
    x = as_tracer(x)
    if dtype is not None:
        x = astype(x, dtype)
    axes = normalize_axes(axis, x.ndim) if x.ndim else _check_zero_d_axis(axis)
    attrs = {"axes": axes, "keepdims": bool(keepdims)}
    if not axes and x.ndim:  # over no axis: each element alone, in the reduction's dtype
        result = astype(x, op.infer([x.aval], attrs, ())[0].dtype)
        if op.identity is not None:  # folded into the identity, as NumPy's loop does:
            # 0.0 + -0.0 is 0.0, and (1 + 0j) * z is NaN where a part of z is infinite
            identity = as_tracer(np.asarray(op.identity, result.dtype))
            result = emit(ops.UFUNC_OPS[op.combine], [identity, result], scalar=False)
    else:
        result = emit(op, [x], attrs)
    # sum(dtype=int32) accumulates in int32; wrapping at the end gives the same bits.
    return astype(result, dtype) if dtype is not None and result.dtype != dtype else result


def _check_zero_d_axis(axis) -> tuple:
    """A 0-d array reduces over no axis; NumPy accepts axis None, 0, -1 or ()
    for it (an int by a legacy rule), and raises AxisError for a tuple of axes."""
    if isinstance(axis, tuple) and axis:
        raise np.exceptions.AxisError(f"{np.exceptions.AxisError(int(axis[0]), 0)}"
                                      f"{at(user_location())}")
    if axis is not None and not isinstance(axis, tuple):
        normalize_axes(axis, 0)
    return ()


@implements(method="astype")
def astype(x, dtype, order="K", casting="unsafe", subok=True, copy=True) -> Tracer:
    x = as_tracer(x)
    dtype = check_supported_dtype(np.dtype(dtype), "astype")
    if dtype == x.dtype and not copy:
        return x
    if x.dtype.kind == "c" and dtype.kind not in "cb":
        _warn_discarding_imaginary_parts()
    return emit(ops.astype, [x], {"dtype": dtype}, scalar=x._scalar)


def _warn_discarding_imaginary_parts() -> None:
    """NumPy's ComplexWarning for a complex -> real cast, at the user's line
    (once, when the function is traced: Python shows a warning once per
    line by default anyway)."""
    loc = user_location()
    message = "Casting complex values to real discards the imaginary part"
    if loc is None:
        warnings.warn(message, np.exceptions.ComplexWarning, stacklevel=3)
    else:
        warnings.warn_explicit(message, np.exceptions.ComplexWarning, loc.filename, loc.lineno)


def where(condition, x, y):
    """np.where of three operands (sorting.py registers np.where itself)."""
    return emit(ops.where, [condition, x, y], scalar=False)  # np.where never gives scalars


def view(a: Tracer, steps: tuple[ViewStep, ...]) -> Tracer:
    """A Tracer that shares ``a``'s buffer: writes through it update ``a``."""
    loc = user_location()
    steps = tuple(step if step.loc else dataclasses.replace(step, loc=loc) for step in steps)
    return Tracer(a._buffer, a._view + steps, scalar=False)


@implements(np.broadcast_to)
def read_only_broadcast(array, shape, subok=False):
    """NumPy's np.broadcast_to: a read-only view (writes raise ValueError;
    it shows later writes into ``array``)."""
    return broadcast_view(array, shape, READ_ONLY)


def broadcast_view(array, shape, no_writes: str) -> Tracer:
    """A view of ``array`` broadcast to ``shape`` that refuses writes
    (``ViewStep.no_writes``): it reads ``array`` as it is when read."""
    array = as_tracer(array)
    out = broadcast_to(array, shape)
    if out is array:  # the same shape: a view of all of it
        shape = array.aval.shape
        out = emit(ops.broadcast_like, [array, array], scalar=False) if None in shape \
            else emit(ops.broadcast_to, [array], {"shape": shape}, scalar=False)
    return derived_view(array, array, out, no_writes)


def derived_view(base: Tracer, via: Tracer, out: Tracer, no_writes: str) -> Tracer:
    """``out``, computed by one op from ``via`` (a view of ``base``), as a view
    of ``base`` that writes cannot go through: it reads ``base`` as it is
    when read, as NumPy's read-only views show later writes."""
    node = out.value.producer
    step = ViewStep(node.op, tuple(node.attrs.items()), tuple(node.inputs[1:]),
                    no_writes=no_writes)
    return view(base, via._view[len(base._view):] + (step,))


def broadcast_to(array, shape) -> Tracer:
    """``array`` broadcast to ``shape``, whose lengths (and the array's) may
    be known at run time only; ``array`` itself where nothing changes."""
    array = as_tracer(array)
    shape = _broadcast_target(array, tuple(shape) if isinstance(shape, (tuple, list))
                              else (shape,))
    if None in array.aval.shape or any(isinstance(d, Tracer) for d in shape):
        return emit(ops.broadcast_like, [array, _like(shape)], scalar=False)
    if shape == array.aval.shape:
        return array
    return emit(ops.broadcast_to, [array], {"shape": shape}, scalar=False)


def _like(shape: tuple) -> Tracer:
    """A value of ``shape``, whose values are never read: the array whose
    ``.shape`` it is (``np.broadcast_to(a, y.shape)``), else a fill."""
    sources = {id(d.value.producer.inputs[0]): d.value.producer.inputs[0] for d in shape
               if isinstance(d, Tracer) and d.value.producer is not None
               and d.value.producer.op is ops.dim_size}
    if len(sources) == 1:
        (source,) = sources.values()
        if source.type.ndim == len(shape) and all(
                d == n if not isinstance(d, Tracer) else
                d.value.producer is not None and d.value.producer.op is ops.dim_size
                and d.value.producer.inputs[0] is source
                and d.value.producer.attrs["axis"] == k
                for k, (d, n) in enumerate(zip(shape, source.shape, strict=True))):
            return new_tracer(source)
    return full_value(shape, False, np.bool_)


def _broadcast_target(array: Tracer, shape: tuple) -> tuple:
    """``shape`` checked against ``array``'s as NumPy checks it: static
    lengths as ints, and a traced one where the array's is static and not 1
    replaced by it (they must be equal: checked when the code runs). An
    array's run-time length is checked against the target by the lowering."""
    target = [d if isinstance(d, Tracer) else operator.index(d) for d in shape]
    if len(target) < array.ndim:
        raise ValueError(f"input operand has more dimensions than allowed by the axis "
                         f"remapping{at(user_location())}")
    if any(not isinstance(d, Tracer) and d < 0 for d in target):
        raise ValueError(f"all elements of broadcast shape must be non-negative"
                         f"{at(user_location())}")
    message = (f"operands could not be broadcast together with remapped shapes "
               f"[original->remapped]: {array.aval.shape} and requested shape "
               f"{tuple('?' if isinstance(d, Tracer) else d for d in target)}")
    offset = len(target) - array.ndim
    for k, n in enumerate(array.aval.shape):
        wanted = target[offset + k]
        if n is None or n == 1:
            continue
        if isinstance(wanted, Tracer):
            require(wanted == n, ValueError, message)
            target[offset + k] = n
        elif wanted != n:
            raise ValueError(message + at(user_location()))
    return tuple(target)


@implements(np.copy, method="copy")
def copy_array(a, order="K", subok=False):
    a = as_tracer(a)
    # Reading a view materialises it; a fresh buffer decouples later writes.
    return new_tracer(a.value, scalar=a._scalar)


def full_value(shape, fill_value, dtype=None) -> Tracer:
    """``np.full`` for a traced or concrete fill value, and traced lengths
    (``np.zeros((x.shape[0] + 1, 3))`` of a run-time length)."""
    if isinstance(shape, Tracer) or (isinstance(shape, (tuple, list))
                                     and any(isinstance(d, Tracer) for d in shape)):
        return _full_of_run_time_shape(shape if isinstance(shape, (tuple, list)) else (shape,),
                                       fill_value, dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    if isinstance(fill_value, Tracer):
        dtype = fill_value.dtype if dtype is None else np.dtype(dtype)
        value = astype(fill_value, dtype)
        return copy_array(broadcast_to(value, shape)) if shape else as_tracer(value.value)
    dtype = np.array(fill_value).dtype if dtype is None else np.dtype(dtype)
    check_supported_dtype(dtype, "np.full")
    attrs = {"shape": shape, "dtype": dtype, "fill": np.array(fill_value).astype(dtype).item()}
    return emit(ops.full, [], attrs, scalar=False)


def _full_of_run_time_shape(shape: Sequence, fill_value, dtype) -> Tracer:
    """A ``dyn_full``: each traced length an input, checked as NumPy checks it."""
    lengths = []
    for d in shape:
        if not isinstance(d, Tracer):
            continue
        if d.ndim or d.dtype.kind not in "iu":
            raise TypeError(f"'{d.dtype}' object cannot be interpreted as an integer"
                            f"{at(user_location())}")
        require(d >= 0, ValueError, "negative dimensions are not allowed")
        lengths.append(astype(d, np.int64))
    static = tuple(None if isinstance(d, Tracer) else operator.index(d) for d in shape)
    if any(d < 0 for d in static if d is not None):
        raise ValueError(f"negative dimensions are not allowed{at(user_location())}")
    traced_fill = isinstance(fill_value, Tracer)
    if traced_fill and fill_value.ndim:
        raise unsupported("np.full of a run-time length with an array fill value")
    dtype = (fill_value.dtype if traced_fill else np.array(fill_value).dtype) \
        if dtype is None else np.dtype(dtype)
    check_supported_dtype(dtype, "np.full")
    if traced_fill:  # each element selects the value (no arithmetic: -0.0 stays)
        every = emit(ops.dyn_full, lengths, {"shape": static, "dtype": np.dtype(np.bool_),
                                             "fill": True}, scalar=False)
        value = astype(fill_value, dtype)
        return where(every, value, value)
    fill = np.array(fill_value).astype(dtype).item()
    return emit(ops.dyn_full, lengths, {"shape": static, "dtype": dtype, "fill": fill},
                scalar=False)


def static_ints(value, what: str) -> tuple[int, ...]:
    """Shifts, counts and axes that shape the result must be Python ints."""
    values = value if isinstance(value, (tuple, list)) else (value,)
    if any(isinstance(v, Tracer) for v in values):
        raise unsupported(f"{what} given by a traced value (the result's shape would "
                           "depend on the data)")
    return tuple(operator.index(v) for v in values)


def size_of(x: Tracer, axes) -> int:
    """The element count over these axes (reshape's -1 cannot stand for it at size 0)."""
    return int(np.prod([x.shape[d] for d in axes], dtype=np.int64))


def lapack_operand(a) -> Tracer:
    """A LAPACK operand: integers and bools become float64 (NumPy's rule);
    float16 is rejected as NumPy rejects it."""
    x = as_tracer(a)
    if x.dtype == np.float16:
        raise TypeError("array type float16 is unsupported in linalg")
    return astype(x, np.float64) if x.dtype.kind in "biu" else x
