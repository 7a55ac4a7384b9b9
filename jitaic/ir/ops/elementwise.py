"""Elementwise ops: NumPy's ufuncs (their dtype rules are the ufunc's own),
complex parts, ``where`` and ``astype``; what one element of each costs."""

from __future__ import annotations

import platform
import sys
from collections.abc import Sequence

import numpy as np

from jitaic.ir.ops.core import (
    COMMUTATIVE,
    ELEMENTWISE,
    OPS,
    InferRule,
    Op,
    broadcast_shapes,
    check_dtype,
    define,
)
from jitaic.ir.types import TensorType, example_operand, example_value

# ---------------------------------------------------------------- ufunc ops

def ufunc_loop_dtypes(ufunc: np.ufunc, in_types: Sequence[TensorType]) -> tuple:
    """NumPy's (input..., output) loop dtypes for these operand types."""
    operands = [example_operand(t) for t in in_types]
    if all(t.weak for t in in_types):  # Python scalars only: default dtypes
        operands = [t.dtype for t in in_types]
    return ufunc.resolve_dtypes((*operands, None))


def _ufunc_infer(ufunc: np.ufunc) -> InferRule:
    def infer(in_types, attrs, regions):
        # NumPy resolves the loop's dtypes before it broadcasts: its TypeError first
        dtype = check_dtype(ufunc_loop_dtypes(ufunc, in_types)[-1], ufunc.__name__)
        shape = broadcast_shapes(*(t.shape for t in in_types))
        weak = all(t.weak for t in in_types)
        return [TensorType(shape, dtype, weak)]

    return infer


def elementwise(name: str, ufunc: np.ufunc, *traits: str, complex: bool = False) -> Op:
    """An op that is a NumPy ufunc: its rules are the ufunc's own."""
    return define(name, _ufunc_infer(ufunc), ufunc, (ELEMENTWISE, *traits), ufunc,
                  complex=complex)


unary = binary = elementwise


# Unary elementwise: math
negative = unary("negative", np.negative, complex=True)
positive = unary("positive", np.positive, complex=True)
absolute = unary("absolute", np.absolute, complex=True)
exp = unary("exp", np.exp, complex=True)
exp2 = unary("exp2", np.exp2, complex=True)
expm1 = unary("expm1", np.expm1, complex=True)
log = unary("log", np.log, complex=True)
log2 = unary("log2", np.log2, complex=True)
log10 = unary("log10", np.log10, complex=True)
log1p = unary("log1p", np.log1p, complex=True)
sqrt = unary("sqrt", np.sqrt, complex=True)
cbrt = unary("cbrt", np.cbrt)
square = unary("square", np.square, complex=True)
reciprocal = unary("reciprocal", np.reciprocal, complex=True)
sin = unary("sin", np.sin, complex=True)
cos = unary("cos", np.cos, complex=True)
tan = unary("tan", np.tan, complex=True)
# Complex inverse trigonometric functions call the C library's casin family,
# as NumPy does, on the platforms whose C complex ABI lower/libm_complex.py
# knows (x86-64 System V: two doubles in and out).
C_COMPLEX_CALLS = sys.platform.startswith("linux") and platform.machine() == "x86_64"
arcsin = unary("arcsin", np.arcsin, complex=C_COMPLEX_CALLS)
arccos = unary("arccos", np.arccos, complex=C_COMPLEX_CALLS)
arctan = unary("arctan", np.arctan, complex=C_COMPLEX_CALLS)
sinh = unary("sinh", np.sinh, complex=True)
cosh = unary("cosh", np.cosh, complex=True)
tanh = unary("tanh", np.tanh, complex=True)
arcsinh = unary("arcsinh", np.arcsinh, complex=C_COMPLEX_CALLS)
arccosh = unary("arccosh", np.arccosh, complex=C_COMPLEX_CALLS)
arctanh = unary("arctanh", np.arctanh, complex=C_COMPLEX_CALLS)
deg2rad = unary("deg2rad", np.deg2rad)
rad2deg = unary("rad2deg", np.rad2deg)
fabs = unary("fabs", np.fabs)
# Unary elementwise: rounding, sign and predicates
floor = unary("floor", np.floor)
ceil = unary("ceil", np.ceil)
trunc = unary("trunc", np.trunc)
rint = unary("rint", np.rint, complex=True)
sign = unary("sign", np.sign, complex=True)
isnan = unary("isnan", np.isnan, complex=True)
isinf = unary("isinf", np.isinf, complex=True)
isfinite = unary("isfinite", np.isfinite, complex=True)
signbit = unary("signbit", np.signbit)
spacing = unary("spacing", np.spacing)
bitwise_count = unary("bitwise_count", np.bitwise_count)
logical_not = unary("logical_not", np.logical_not, complex=True)
invert = unary("invert", np.invert)

# Binary elementwise
add = binary("add", np.add, COMMUTATIVE, complex=True)
subtract = binary("subtract", np.subtract, complex=True)
multiply = binary("multiply", np.multiply, COMMUTATIVE, complex=True)
true_divide = binary("true_divide", np.true_divide, complex=True)
floor_divide = binary("floor_divide", np.floor_divide)
mod = binary("mod", np.remainder)
power = binary("power", np.power, complex=True)
maximum = binary("maximum", np.maximum, COMMUTATIVE, complex=True)
minimum = binary("minimum", np.minimum, COMMUTATIVE, complex=True)
fmax = binary("fmax", np.fmax, COMMUTATIVE, complex=True)
fmin = binary("fmin", np.fmin, COMMUTATIVE, complex=True)
arctan2 = binary("arctan2", np.arctan2)
hypot = binary("hypot", np.hypot, COMMUTATIVE)
copysign = binary("copysign", np.copysign)
fmod = binary("fmod", np.fmod)
ldexp = binary("ldexp", np.ldexp)
nextafter = binary("nextafter", np.nextafter)
gcd = binary("gcd", np.gcd, COMMUTATIVE)
lcm = binary("lcm", np.lcm, COMMUTATIVE)
equal = binary("equal", np.equal, COMMUTATIVE, complex=True)
not_equal = binary("not_equal", np.not_equal, COMMUTATIVE, complex=True)
less = binary("less", np.less, complex=True)
less_equal = binary("less_equal", np.less_equal, complex=True)
greater = binary("greater", np.greater, complex=True)
greater_equal = binary("greater_equal", np.greater_equal, complex=True)
logical_and = binary("logical_and", np.logical_and, COMMUTATIVE, complex=True)
logical_or = binary("logical_or", np.logical_or, COMMUTATIVE, complex=True)
logical_xor = binary("logical_xor", np.logical_xor, COMMUTATIVE, complex=True)
bitwise_and = binary("bitwise_and", np.bitwise_and, COMMUTATIVE)
bitwise_or = binary("bitwise_or", np.bitwise_or, COMMUTATIVE)
bitwise_xor = binary("bitwise_xor", np.bitwise_xor, COMMUTATIVE)
left_shift = binary("left_shift", np.left_shift)
conjugate = unary("conjugate", np.conjugate, complex=True)


def _part_infer(in_types, attrs, regions):
    (x,) = in_types
    part = np.real(np.ones((), x.dtype)).dtype  # complex64 -> float32; others stay
    return [TensorType(x.shape, part, x.weak)]


# The real and imaginary parts of complex values (of others: the value, and 0).
real = define("real", _part_infer, lambda x: np.array(np.real(x)), (ELEMENTWISE,),
              complex=True)
imag = define("imag", _part_infer, lambda x: np.array(np.imag(x)), (ELEMENTWISE,),
              complex=True)


def _make_complex_infer(in_types, attrs, regions):
    re, im = in_types
    if re.dtype != im.dtype or re.dtype not in (np.float32, np.float64):
        raise TypeError(f"make_complex takes float32 or float64 parts of one dtype, got "
                        f"{re.dtype} and {im.dtype}")
    dtype = np.dtype(np.complex64 if re.dtype == np.float32 else np.complex128)
    return [TensorType(broadcast_shapes(re.shape, im.shape), dtype, re.weak and im.weak)]


def _make_complex_reference(re, im):
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)),
                   np.complex64 if np.asarray(re).dtype == np.float32 else np.complex128)
    out.real, out.imag = re, im
    return out


# A complex value from its parts (np.round of complex values rounds each);
# not re + 1j * im, which is NaN where im is infinite.
make_complex = define("make_complex", _make_complex_infer, _make_complex_reference,
                      (ELEMENTWISE,), complex=True)
right_shift = binary("right_shift", np.right_shift)

UFUNC_OPS: dict[np.ufunc, Op] = {op.ufunc: op for op in OPS.values() if op.ufunc}
# ufuncs that are other objects with the same loops as an op's ufunc
UFUNC_ALIASES = {np.radians: deg2rad, np.degrees: rad2deg}
UFUNC_OPS.update(UFUNC_ALIASES)


def _where_infer(in_types, attrs, regions):
    cond, a, b = in_types
    shape = broadcast_shapes(cond.shape, a.shape, b.shape)
    dtype = np.where(True, example_value(a), example_value(b)).dtype
    return [TensorType(shape, check_dtype(dtype, "where"), a.weak and b.weak)]


where = define("where", _where_infer, np.where, (ELEMENTWISE,), complex=True)


def _astype_infer(in_types, attrs, regions):
    """The cast, strong; ``weak``: a Python scalar of that dtype (a loop
    variable an iteration makes a Python number, NEP 50)."""
    (x,) = in_types
    return [TensorType(x.shape, check_dtype(attrs["dtype"], "astype"), attrs.get("weak", False))]


astype = define("astype", _astype_infer,
                lambda x, dtype, weak=False: np.asarray(x).astype(dtype),
                (ELEMENTWISE,), complex=True)


# What one element of these ops costs next to a simple add or multiply (~0.3 ns
# a lane here), measured in vectorised loops (vecmath) or libm calls. The
# parallel threshold weighs a loop's elements by them (a tanh chain of 1e5
# elements is 0.5 ms of work on one core, far above a thread launch), and a
# loop's gradient saves their results rather than computing them again.
ELEMENT_COST = {exp: 6, expm1: 6, log: 8, log1p: 8, tanh: 9, power: 25, sin: 15, cos: 15,
                tan: 20, arcsin: 15, arccos: 15, arctan: 15, arctan2: 20, sinh: 15, cosh: 15,
                arcsinh: 20, arccosh: 20, arctanh: 20, exp2: 15, log2: 15, log10: 15, cbrt: 15}
