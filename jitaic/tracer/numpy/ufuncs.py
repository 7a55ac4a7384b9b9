"""ufunc calls on Tracers: the op of each ufunc, NumPy 2's rules for Python ints
(NEP 50), integer powers, ``out=``, the Python operators, the ufuncs written
as compositions of ops, and the parts of complex numbers (real, imag, angle).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from jitaic.errors import UnsupportedError, at, user_location
from jitaic.ir import ops
from jitaic.ir.types import SUPPORTED_DTYPES
from jitaic.tracer.core import Tracer, ViewStep, emit, to_value
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    broadcast_to,
    full_value,
    reduction,
    require,
    unsupported,
    view,
    where,
)
from jitaic.tracer.numpy.registry import implements


def apply_ufunc(ufunc: np.ufunc, *inputs: object) -> Tracer:
    if ufunc is np.matmul:
        return matmul(*inputs)
    op = ops.UFUNC_OPS.get(ufunc)
    if op is None:
        raise unsupported(f"np.{ufunc.__name__}")
    inputs = _python_ints_for_loop(op, inputs)
    if isinstance(inputs, Tracer):  # a comparison with an int beyond the dtype's range
        return inputs
    if op is ops.power:
        _check_integer_exponent(inputs)
    return emit(op, inputs)


def _check_integer_exponent(inputs: tuple) -> None:
    """NumPy's integer power loop raises at a negative exponent it meets: at
    none where the broadcast operands have no element."""
    loop = ops.ufunc_loop_dtypes(np.power, [to_value(x).type for x in inputs])
    if loop[1].kind != "i":
        return
    exponent = inputs[1]
    nonnegative = (reduction(ops.reduce_all, exponent >= 0, None, False)
                   if isinstance(exponent, Tracer) else np.all(np.asarray(exponent) >= 0))
    # the broadcast is empty where an operand is (x[i:j] when it runs)
    sizes = [x.size if isinstance(x, Tracer) else np.size(x) for x in inputs]
    if any(not isinstance(size, Tracer) and size == 0 for size in sizes):
        return
    for size in sizes:
        if isinstance(size, Tracer):
            nonnegative = apply_ufunc(np.logical_or, nonnegative, size == 0)
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
    loop = _loop_dtypes(op, inputs)
    huge = [i for i in ints if not _INT64.min <= inputs[i] <= _INT64.max]
    if huge and loop[0].kind in "fc":  # converted to the loop's dtype, as NumPy's
        if loop[0] not in SUPPORTED_DTYPES:  # (float16)
            raise UnsupportedError(f"{op.name} would produce dtype {loop[0]}, which "
                                   f"jitaic does not support{at(user_location())}")
        with np.errstate(over="ignore"):  # (to inf: NumPy warns when the code runs)
            inputs = tuple(np.array(x, loop[i])[()] if i in huge else x
                           for i, x in enumerate(inputs))
    ints = [i for i in ints if type(inputs[i]) is int]
    loop = _loop_dtypes(op, inputs)
    for i in ints:
        if loop[i].kind in "iu":
            info = np.iinfo(loop[i])
            if info.min <= inputs[i] <= info.max:
                continue
            if any(getattr(x, "dtype", None) == np.bool_ for x in inputs):
                # NumPy converts the int to a C long for a bool operand first
                raise OverflowError(f"Python int too large to convert to C long"
                                    f"{at(user_location())}")
            if op in _ABOVE and len(inputs) == 2:
                other = as_tracer(inputs[1 - i])
                above = (inputs[i] > info.max) == (i == 1)  # c on the right and large
                answer = _ABOVE[op] if above or op in (ops.equal, ops.not_equal) \
                    else not _ABOVE[op]
                if other.ndim == 0:  # a ufunc of 0-d operands gives a NumPy scalar
                    return as_tracer(np.bool_(answer))
                if None in other.shape:  # a run-time length: an integer equals itself
                    return emit(ops.equal if answer else ops.not_equal, [other, other])
                return full_value(other.shape, answer, np.bool_)
            if all(isinstance(x, Tracer) and x.aval.weak for j, x in enumerate(inputs)
                   if j != i):
                # the other operand is a Python int too (a loop index): Python's
                # own arithmetic would not overflow
                raise UnsupportedError(
                    f"Python int arithmetic beyond int64 ({inputs[i]}) with a Python int "
                    f"computed when the code runs (a loop index){at(user_location())}: "
                    f"jitaic holds those as int64")
            raise OverflowError(f"Python integer {inputs[i]} out of bounds for "
                                f"{loop[i]}{at(user_location())}")
    return inputs


def _loop_dtypes(op: ops.Op, inputs: tuple) -> tuple:
    """NumPy's loop for the operands; its TypeError (no loop) names the line,
    as an op's own type errors do."""
    try:
        return ops.ufunc_loop_dtypes(op.ufunc, _operand_types(inputs))
    except TypeError as exc:
        raise TypeError(f"{exc} (in {op.name}){at(user_location())}") from None


def _operand_types(inputs: tuple) -> list:
    """The operands' types, Python ints of any size as weak ints."""
    return [to_value(1 if type(x) is int else x).type for x in inputs]


def assign_inplace(target: object, result: Tracer, name: str) -> Tracer:
    """``target[...] = result`` with the casting and shape checks of a ufunc's ``out=``."""
    if not isinstance(target, Tracer):
        raise unsupported(f"writing a traced result into a concrete array (np.{name}, out=)")
    _check_output_cast(name, result.dtype, target.dtype)
    shape = ops.broadcast_shapes(result.shape, target.shape)
    # (a run-time extent, x[i:], against a static one is checked when it runs)
    if len(shape) != len(target.shape) or any(
            d is not None and t is not None and d != t for d, t in zip(shape, target.shape)):
        raise ValueError(f"non-broadcastable output operand with shape {target.shape} "
                         f"doesn't match the broadcast shape {result.shape}"
                         f"{at(user_location())}")
    value = result
    if value.dtype != target.dtype:
        value = astype(value, target.dtype)
    # the target's extents, the value's where the target's is a run-time one
    wanted = tuple(d if t is None else t for d, t in zip(shape, target.shape))
    if value.shape != wanted and None not in wanted:
        value = broadcast_to(value, wanted)
    target.write(value.value)
    return target


def _check_output_cast(name: str, dtype: np.dtype, target: np.dtype) -> None:
    if not np.can_cast(dtype, target, "same_kind"):
        raise TypeError(f"Cannot cast ufunc '{name}' output from {dtype!r} to "
                        f"{target!r} with casting rule 'same_kind'{at(user_location())}")


def check_output_cast_first(ufunc: np.ufunc, inputs: tuple, target: object) -> None:
    """NumPy resolves a ufunc's loop dtypes, and checks that its output casts
    into ``out=`` (the target of ``x += y``), before it looks at shapes."""
    if ufunc not in ops.UFUNC_OPS or not isinstance(target, Tracer) or not all(
            isinstance(x, (Tracer, np.ndarray, np.generic, bool, int, float, complex))
            for x in inputs):
        return
    try:
        dtype = ops.ufunc_loop_dtypes(ufunc, _operand_types(inputs))[-1]
    except TypeError:  # no loop for these dtypes: the ufunc's own error follows
        return
    _check_output_cast(ufunc.__name__, dtype, target.dtype)


def _binary(ufunc: np.ufunc) -> tuple[Callable, Callable, Callable]:
    def forward(self, other):
        return apply_ufunc(ufunc, self, other)

    def reflected(self, other):
        return apply_ufunc(ufunc, other, self)

    def inplace(self, other):
        if self._scalar:  # NumPy scalars are immutable: `s += 1` rebinds
            return apply_ufunc(ufunc, self, other)
        check_output_cast_first(ufunc, (self, other), self)
        result = apply_ufunc(ufunc, self, other)
        return assign_inplace(self, result, ufunc.__name__)

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

# NumPy's scalars order complex numbers lexicographically (its scalar math),
# its arrays with NaN parts unordered (the ufunc): (1+nanj) > 0j is True for
# scalars, False for arrays. Per ordering: the real parts' test, the imaginary's.
_SCALAR_ORDER = {np.less: (np.less, np.less), np.less_equal: (np.less, np.less_equal),
                 np.greater: (np.greater, np.greater),
                 np.greater_equal: (np.greater, np.greater_equal)}


def _comparison(ufunc: np.ufunc) -> Callable:
    forward = _binary(ufunc)[0]
    if ufunc not in _SCALAR_ORDER:
        return forward
    strict, last = _SCALAR_ORDER[ufunc]

    def compare(self, other):
        other_scalar = isinstance(other, (bool, int, float, complex, np.generic)) or (
            isinstance(other, Tracer) and other._scalar)
        if not (self._scalar and other_scalar) or "c" not in (
                self.dtype.kind, np.result_type(other).kind):
            return forward(self, other)
        xr, yr = real(self), real(other)
        return apply_ufunc(np.logical_or, apply_ufunc(strict, xr, yr), apply_ufunc(
            np.logical_and, apply_ufunc(np.equal, xr, yr),
            apply_ufunc(last, imag(self), imag(other))))

    return compare


def _is_scalar(x: object) -> bool:
    """A NumPy scalar or Python number, traced or not."""
    return isinstance(x, (bool, int, float, complex, np.generic)) or (
        isinstance(x, Tracer) and x._scalar)


def _scalar_product(x: object, y: object) -> Tracer:
    """``x * y``: NumPy's scalar operator multiplies complex scalars as C
    does, each product rounded on its own; its loops (arrays, np.multiply)
    fuse them (lower/complexmath.multiply)."""
    if not (_is_scalar(x) and _is_scalar(y)) or "c" not in (
            np.result_type(x).kind, np.result_type(y).kind):
        return apply_ufunc(np.multiply, x, y)
    xr, xi, yr, yi = real(x), imag(x), real(y), imag(y)
    if not all(type(v) in (bool, int, float, complex) or (isinstance(v, Tracer) and v.aval.weak)
               for v in (x, y)):
        # (Python numbers both: Python's product, weak as they are)
        dtype = ops.ufunc_loop_dtypes(np.multiply, _operand_types((x, y)))[-1]
        part = np.finfo(dtype).dtype
        xr, xi, yr, yi = (astype(p, part) for p in (xr, xi, yr, yi))
    return emit(ops.make_complex, [xr * yr - xi * yi, xr * yi + xi * yr], scalar=True)


def _power_operator(self: Tracer, other: object) -> Tracer:
    """``**``: NumPy's operator squares a bool array raised to the Python int 2
    (np.square's dtype, int8; np.power would give int64), and takes a complex
    array to the Python number 0.5 or -1 with np.sqrt or np.reciprocal (not
    np.power: they differ at -1 + 0j and at infinities)."""
    if type(other) is int and other == 2 and self.dtype == np.bool_ and not self._scalar:
        return apply_ufunc(np.square, self)
    if type(other) in (int, float) and self.dtype.kind == "c" and not self._scalar:
        if other == 0.5:
            return apply_ufunc(np.sqrt, self)
        if other == -1:
            return apply_ufunc(np.reciprocal, self)
    return apply_ufunc(np.power, self, other)


def _absolute_operator(self: Tracer) -> Tracer:
    """``abs()``: of a complex scalar, NumPy's scalar math (and CPython's
    complex) take the C library's hypot of the parts; np.absolute and arrays
    take NumPy's loop formula, which differs in the last bit for a third of
    all values (abs(sqrt(2) * (1+1j)) is 2.0, np.abs of it 2.0000000000000004)."""
    if self._scalar and self.dtype.kind == "c":
        return apply_ufunc(np.hypot, real(self), imag(self))
    return apply_ufunc(np.absolute, self)


def install_operators() -> None:
    for name, ufunc in _BINARY_OPERATORS.items():
        forward, reflected, inplace = _binary(ufunc)
        forward = _power_operator if ufunc is np.power else forward
        if ufunc is np.multiply:
            forward, reflected = _scalar_product, lambda self, other: _scalar_product(other, self)
        setattr(Tracer, f"__{name}__", forward)
        setattr(Tracer, f"__r{name}__", reflected)
        setattr(Tracer, f"__i{name}__", inplace)
    for name, ufunc in _COMPARISONS.items():
        setattr(Tracer, f"__{name}__", _comparison(ufunc))
    for name, ufunc in _UNARY_OPERATORS.items():
        setattr(Tracer, f"__{name}__", lambda self, u=ufunc: apply_ufunc(u, self))
    Tracer.__abs__ = _absolute_operator
    Tracer.__hash__ = object.__hash__  # __eq__ is elementwise, identity hashing stays


def matmul(a, b) -> Tracer:
    return emit(ops.matmul, [a, b])


@implements(np.logaddexp)
def logaddexp(x1, x2):
    """NumPy's npy_logaddexp: the larger plus log1p(exp(-|x - y|)), NaN for
    NaN, x + log(2) for equal infinities. (Equal finite values take the
    general formula: log1p(1) rounds to log(2) exactly, as NumPy's constant,
    and the gradient there is 1/2 for each.)"""
    return _log_add(np.logaddexp, x1, x2, np.exp, lambda v: apply_ufunc(np.log1p, v))


@implements(np.logaddexp2)
def logaddexp2(x1, x2):
    """NumPy's npy_logaddexp2: as logaddexp in base 2, log2(1 + v) computed as
    log1p(v) * log2(e) in the operands' dtype (equal finite values give exactly
    one more, as NumPy's special case does)."""
    return _log_add(np.logaddexp2, x1, x2, np.exp2,
                    lambda v: apply_ufunc(np.log1p, v) * _LOG2E)


_LOG2E = float(np.log2(np.e))


def _loop_dtype(ufunc: np.ufunc, operands: tuple) -> np.dtype:
    """The result dtype of the ufunc's loop for these operands (its TypeError,
    at the user's line, where it has none)."""
    try:
        return np.dtype(ops.ufunc_loop_dtypes(ufunc, _operand_types(operands))[-1])
    except TypeError as exc:
        raise TypeError(f"{exc}{at(user_location())}") from None


@implements(np.heaviside)
def heaviside(x1, x2):
    """0 below zero, x2 at either zero, 1 above; NaN at NaN (x1 itself)."""
    dtype = _loop_dtype(np.heaviside, (x1, x2))
    x, h = astype(as_tracer(x1), dtype, copy=False), astype(as_tracer(x2), dtype, copy=False)
    return where(x < 0, 0.0, where(x > 0, 1.0, where(x == 0, h, x)))


def _log_add(ufunc: np.ufunc, x1, x2, power: np.ufunc, log_1p: Callable) -> Tracer:
    """log(b**x + b**y) for the base of ``power``: the larger operand plus
    log_1p(power(-|x - y|)); NaN where either is NaN; x where x and y are the
    same infinity. In the dtype of the ufunc's loop (its TypeError for
    complex values)."""
    dtype = _loop_dtype(ufunc, (x1, x2))
    x, y = astype(as_tracer(x1), dtype, copy=False), astype(as_tracer(x2), dtype, copy=False)
    d = x - y
    result = where(d > 0, x + log_1p(apply_ufunc(power, -d)),
                   y + log_1p(apply_ufunc(power, d)))
    result = where(apply_ufunc(np.isnan, d), d, result)
    same_infinity = apply_ufunc(np.equal, x, y) & apply_ufunc(np.isinf, x)
    return where(same_infinity, x, result)


# ---------------------------------------------------------------- complex numbers

@implements(np.real)
def real(val):
    """The real part, a view: writes through it change the array (of a real
    array, the array itself)."""
    x = as_tracer(val)
    return _part(x, ops.real) if x.dtype.kind == "c" else x


@implements(np.imag)
def imag(val):
    """The imaginary part, a view of a complex array; of a real array, zeros
    (read-only in NumPy)."""
    x = as_tracer(val)
    if x.dtype.kind == "c":
        return _part(x, ops.imag)
    part = emit(ops.imag, [x])
    part._buffer.read_only = True
    return part


def _part(x: Tracer, op: ops.Op) -> Tracer:
    if x._scalar:  # a NumPy scalar's part is a scalar: nothing to write through
        return emit(op, [x])
    return view(x, (ViewStep(op, ()),))


@implements(method="conj")
def conj(self):
    return apply_ufunc(np.conjugate, self)


@implements(method="conjugate")
def conjugate(self):
    return apply_ufunc(np.conjugate, self)


@implements(np.angle)
def angle(z, deg=False):
    """NumPy's formula: arctan2 of the imaginary and real parts, in degrees on request."""
    x = as_tracer(z)
    if x.dtype.kind not in "fc":
        x = astype(x, np.float64)
    result = apply_ufunc(np.arctan2, imag(x), real(x))
    return result * (180 / np.pi) if deg else result


@implements(np.iscomplex)
def iscomplex(x):
    x = as_tracer(x)
    if x.dtype.kind == "c":
        return apply_ufunc(np.not_equal, imag(x), 0)
    return full_value(x.shape, False, np.bool_)


@implements(np.real_if_close)
def real_if_close(a, tol=100):
    """The argument itself where it is real, as NumPy returns it. Of complex
    values the result's dtype depends on the values: refused."""
    x = as_tracer(a)
    if x.dtype.kind == "c":
        raise unsupported("np.real_if_close of complex values (its result's dtype "
                          "depends on the values)")
    return x


@implements(np.isreal)
def isreal(x):
    return apply_ufunc(np.equal, imag(as_tracer(x)), 0)


def squared_magnitude(x: Tracer) -> Tracer:
    """|x|**2 as NumPy's var and norm compute it: x * conj(x)'s real part,
    re * re + im * im, for complex x; x * x for real x."""
    if x.dtype.kind != "c":
        return x * x
    re, im = real(x), imag(x)
    return re * re + im * im
