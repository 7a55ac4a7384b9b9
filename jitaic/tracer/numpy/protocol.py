"""How NumPy reaches the handlers: ``__array_ufunc__``, ``__array_function__``
and the Tracer's operators and ndarray methods, installed from the registry."""

from __future__ import annotations

import numpy as np

from jitaic import config
from jitaic.errors import NotLowered, TracedSequenceError, at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer
from jitaic.tracer.numpy.callbacks import call_back
from jitaic.tracer.numpy.common import as_tracer, astype, reduction, unsupported
from jitaic.tracer.numpy.indexing import add_at
from jitaic.tracer.numpy.registry import ACCUMULATES, COMPOSITE_UFUNCS, FUNCTIONS, METHODS
from jitaic.tracer.numpy.shapes import reshape, swapaxes, transpose
from jitaic.tracer.numpy.ufuncs import (
    apply_ufunc,
    assign_inplace,
    check_output_cast_first,
    imag,
    install_operators,
    real,
)


def _in_loop_dtypes(ufunc: np.ufunc, method: str, inputs: tuple, dtype: np.dtype) -> tuple:
    """NumPy's ``dtype=``: the loop computes in it, the inputs cast to it first
    (not the result afterwards: np.add(int8s, dtype=float) does not wrap);
    impossible casts raise NumPy's own error (complex into a float loop)."""
    if method in ("reduce", "accumulate"):
        return (astype(as_tracer(inputs[0]), dtype), *inputs[1:])
    operands = [v if type(v) in (bool, int, float, complex) else as_tracer(v) for v in inputs]
    given = [np.dtype(bool) if type(v) is bool else type(v) if not isinstance(v, Tracer)
             else v.dtype for v in operands]
    outputs = [None] * ufunc.nout
    loop = ufunc.resolve_dtypes((*given, *outputs),
                                signature=(*[None] * ufunc.nin, dtype, *outputs[1:]))
    return tuple(astype(v, d) if isinstance(v, Tracer) else v
                 for v, d in zip(operands, loop, strict=False))


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    out = kwargs.pop("out", None)
    if kwargs.get("where", True) is not True:
        raise unsupported(f"np.{ufunc.__name__}(..., where=...)")
    kwargs.pop("where", None)
    dtype = kwargs.pop("dtype", None)
    accumulate_axis = kwargs.pop("axis", 0) if method == "accumulate" else None
    reduce_args = {k: kwargs.pop(k) for k in ("axis", "keepdims") if k in kwargs} \
        if method == "reduce" else {}
    composite = COMPOSITE_UFUNCS.get(ufunc) if method == "__call__" else None
    # a gufunc written as a composite (np.vecdot) takes its core axes
    core_args = {k: kwargs.pop(k) for k in ("axes", "axis", "keepdims") if k in kwargs} \
        if composite and ufunc.signature else {}
    if kwargs:
        raise unsupported(f"np.{ufunc.__name__}(..., {', '.join(kwargs)}=...)")
    if method == "at" and ufunc is np.add:
        add_at(*inputs)
        return None
    if dtype is not None:
        inputs = _in_loop_dtypes(ufunc, method, inputs, np.dtype(dtype))
    if method == "__call__":
        if out is not None and dtype is None:
            check_output_cast_first(ufunc, inputs, out[0] if isinstance(out, tuple) else out)
        result = composite(*inputs, **core_args) if composite else apply_ufunc(ufunc, *inputs)
    elif method == "reduce" and ufunc in ops.REDUCE_OPS:
        (x,) = inputs[:1]
        axis = reduce_args.get("axis", inputs[1] if len(inputs) > 1 else 0)
        result = reduction(ops.REDUCE_OPS[ufunc], x, axis, reduce_args.get("keepdims", False))
    elif method == "accumulate" and ufunc in ACCUMULATES:
        axis = inputs[1] if len(inputs) > 1 else accumulate_axis
        result = ACCUMULATES[ufunc](inputs[0], axis)
    elif method == "outer":
        a, b = (as_tracer(v) for v in inputs)
        a = reshape(a, a.shape + (1,) * b.ndim)
        result = apply_ufunc(ufunc, a, b)
    else:
        raise unsupported(f"np.{ufunc.__name__}.{method}")
    if dtype is not None:
        result = astype(result, dtype)
    if isinstance(result, tuple):  # a composite ufunc of two outputs (np.divmod)
        if out is not None:
            raise unsupported(f"np.{ufunc.__name__}(out=)")
        return tuple(numpy_scalar(r) for r in result)
    result = numpy_scalar(result)
    if out is not None:
        (target,) = out if isinstance(out, tuple) else (out,)
        return assign_inplace(target, result, ufunc.__name__)
    return result


def _missing_attribute(self, name: str):
    """ndarray methods jitaic does not trace are an UnsupportedError, not a typo."""
    if name in ("__array_struct__", "__array_interface__"):  # NumPy converting a list
        raise TracedSequenceError(
            f"a Python list or tuple holding traced values reached a NumPy function that "
            f"converts it to an array{at(user_location())} (np.sum([x, y]), or a list "
            f"argument of the jitted function handed on to NumPy): pass arrays (call "
            f"np.asarray on the argument before the jitted function) or combine traced "
            f"values with np.stack / np.concatenate")
    if hasattr(np.ndarray, name):
        raise unsupported(f"ndarray.{name}")
    raise AttributeError(f"'Tracer' object (a traced array) has no attribute {name!r}")


def _set_part(name: str):
    """``a.real = v`` / ``a.imag = v``: NumPy's assignment into the part."""
    def assign(self, value) -> None:
        part = getattr(self, name)
        if name == "imag" and self.dtype.kind != "c":
            raise TypeError("array does not have imaginary part to set")
        part[...] = value

    return assign


def _install_methods() -> None:
    for name, fn in METHODS.items():
        setattr(Tracer, name, fn)
    Tracer.T = property(lambda self: transpose(self))
    Tracer.mT = property(lambda self: swapaxes(self, -1, -2))
    Tracer.real = property(real, _set_part("real"))
    Tracer.imag = property(imag, _set_part("imag"))
    Tracer.__getattr__ = _missing_attribute
    Tracer.__array_ufunc__ = _array_ufunc
    Tracer.__array_function__ = _array_function


def _array_function(self, func, types, args, kwargs):
    handler = FUNCTIONS.get(func)
    if handler is None:  # NumPy computes it, called back (or refused: callbacks=False)
        return call_back(func, args, kwargs)
    try:
        result = handler(*args, **kwargs)
    except NotLowered as exc:  # arguments the handler does not lower
        if not config.get("callbacks"):
            raise
        return call_back(func, args, kwargs, exc)
    return tuple(map(numpy_scalar, result)) if type(result) is tuple else numpy_scalar(result)


def numpy_scalar(x: object) -> object:
    """What a NumPy function returns for Python numbers is a NumPy scalar, of
    a fixed dtype (np.isnan(k) is an np.bool, whatever k's iterations make
    of it); only operators keep Python numbers Python's (NEP 50: weak)."""
    if isinstance(x, Tracer) and x.aval.weak:
        return astype(x, x.dtype)
    return x


def install() -> None:
    """Make Tracers answer NumPy: call once every handler is registered."""
    install_operators()
    _install_methods()
