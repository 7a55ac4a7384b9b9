"""Scalar rules: the expression of one element of each elementwise op.

``rule(args, in_dtypes, node) -> expression``; the args are already cast to
the op's loop dtypes (NumPy's, from ``ufunc.resolve_dtypes``) and the caller
casts the expression to the output dtype. Vectorisable math (exp, log,
tanh, ...) calls jitaic's own kernels unless ``exact_math`` asks for libm.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from jitaic import config
from jitaic.ir import ops
from jitaic.ir.graph import Node
from jitaic.ir.ops import Op, ufunc_loop_dtypes
from jitaic.lower.codegen import cast, literal, np_type
from jitaic.lower.vecmath import VECTOR_MATH

ScalarRule = Callable[[Sequence[str], Sequence[np.dtype], Node], str]


SCALAR_RULES: dict[Op, ScalarRule] = {}


scalar_rule = ops.registrar(SCALAR_RULES, "scalar rule")


def _infix(symbol: str) -> ScalarRule:
    return lambda a, dt, node: f"({a[0]} {symbol} {a[1]})"


def _call(fn: str) -> ScalarRule:
    return lambda a, dt, node: f"{fn}({', '.join(a)})"


def _is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f"


for _op, _sym in [(ops.mod, "%"),
                  (ops.equal, "=="), (ops.not_equal, "!="), (ops.bitwise_and, "&"),
                  (ops.bitwise_or, "|"), (ops.bitwise_xor, "^")]:
    scalar_rule(_op)(_infix(_sym))


def _wrapping(symbol: str, name: str) -> ScalarRule:
    """``a symbol b``; for signed integers through runtime's wrapping
    arithmetic (numba's lets LLVM assume no overflow, NumPy's wraps)."""
    def rule(a, dt, node):
        if np.dtype(dt[0]).kind != "i":
            return f"({a[0]} {symbol} {a[1]})"
        t = np_type(dt[0])
        return f"rt.wrapping_{name}({t}({a[0]}), {t}({a[1]}))"

    return rule


scalar_rule(ops.add)(_wrapping("+", "add"))
scalar_rule(ops.subtract)(_wrapping("-", "sub"))
_multiply = _wrapping("*", "mul")


@scalar_rule(ops.multiply)
def _multiply_rule(a, dt, node):
    """Complex products as NumPy's loops compute them (complexmath.multiply)."""
    return f"cm.multiply({a[0]}, {a[1]})" if _is_complex(node.output.dtype) \
        else _multiply(a, dt, node)


def _ordered(symbol: str, helper: str, swapped: bool) -> ScalarRule:
    """An order comparison; complex values in NumPy's order (cm.less, ...)."""
    def rule(a, dt, node):
        if _is_complex(dt[0]):
            x, y = (a[1], a[0]) if swapped else (a[0], a[1])
            return f"cm.{helper}({x}, {y})"
        return f"({a[0]} {symbol} {a[1]})"

    return rule


scalar_rule(ops.less)(_ordered("<", "less", False))
scalar_rule(ops.less_equal)(_ordered("<=", "less_equal", False))
scalar_rule(ops.greater)(_ordered(">", "less", True))
scalar_rule(ops.greater_equal)(_ordered(">=", "less_equal", True))


@scalar_rule(ops.true_divide)
def _true_divide(a, dt, node):
    if np.dtype(dt[0]).kind == "c":
        return f"cm.divide({a[0]}, {a[1]})"
    return f"({a[0]} / {a[1]})"


@scalar_rule(ops.floor_divide)
def _floor_divide(a, dt, node):
    # NumPy: the smallest integer // -1 wraps to itself (numba returns 0).
    if np.dtype(dt[0]).kind == "i":
        return f"((-{a[0]}) if {a[1]} == -1 else ({a[0]} // {a[1]}))"
    return f"({a[0]} // {a[1]})"


def _shift(symbol: str) -> ScalarRule:
    """NumPy's shifts by a count outside [0, bits): 0, or -1 shifting a negative
    number right (C leaves them undefined; LLVM makes them poison). The
    fallbacks are written in the operand's own type (numba unifies uint64
    with an int literal to float64)."""
    def rule(a, dt, node):
        x, count = a
        bits = np.dtype(dt[0]).itemsize * 8
        if symbol == ">>" and np.dtype(dt[0]).kind == "i":
            beyond = f"({x} >> {bits - 1})"  # -1 for negative x, else 0
        else:
            beyond = f"({x} ^ {x})"
        return f"(({x} {symbol} {count}) if 0 <= {count} < {bits} else {beyond})"

    return rule


scalar_rule(ops.left_shift)(_shift("<<"))


scalar_rule(ops.right_shift)(_shift(">>"))


def _vector_math(name: str, libm: ScalarRule) -> ScalarRule:
    """exp/log/pow/... through jitaic.lower.vecmath (LLVM vectorises loops calling
    it; scalar libm calls stop vectorisation) for float loops, else the libm
    rule; config exact_math asks for libm everywhere."""
    def rule(a, dt, node):
        fn = VECTOR_MATH[name].get(np.dtype(dt[0]))
        if fn is None or config.get("exact_math"):
            return libm(a, dt, node)
        return f"vm.{fn.__name__}({', '.join(a)})"

    return rule


def _complex_special_values(name: str, rule: ScalarRule) -> ScalarRule:
    """``rule``, except complex values call complexmath's version: the C
    library's, as NumPy's (lower/complexmath.py)."""
    return lambda a, dt, node: f"cm.{name}({a[0]})" if _is_complex(dt[0]) \
        else rule(a, dt, node)


scalar_rule(ops.arctan2)(_vector_math("arctan2", _call("np.arctan2")))
for _op in (ops.sin, ops.cos, ops.arcsin, ops.arccos, ops.arctan):  # complex: cm's
    scalar_rule(_op)(_complex_special_values(
        _op.name, _vector_math(_op.name, _call(f"np.{_op.name}"))))
for _op in (ops.sqrt, ops.tan, ops.arcsinh, ops.arccosh, ops.arctanh):
    scalar_rule(_op)(_complex_special_values(_op.name, _call(f"np.{_op.name}")))


def _complex_with_constant(name: str, constant: float) -> ScalarRule:
    """Complex values through complexmath's ``name`` (NumPy's formula), given
    ``constant`` in the parts' type; others through vector math or libm."""
    real = _vector_math(name, _call(f"np.{name}"))

    def rule(a, dt, node):
        if _is_complex(dt[0]):
            return f"cm.{name}({a[0]}, {literal(constant, np.finfo(dt[0]).dtype)})"
        return real(a, dt, node)

    return rule


scalar_rule(ops.log1p)(_complex_with_constant("log1p", 1.0))
scalar_rule(ops.expm1)(_complex_with_constant("expm1", 2.0))


def _complex_log(z: str, dtype: np.dtype) -> str:
    """glibc's clog (NumPy's), in the parts' precision: lower/complexmath.py."""
    return f"cm.logf({z})" if np.dtype(dtype) == np.complex64 else f"cm.log({z})"


_real_log = _vector_math("log", _call("np.log"))
scalar_rule(ops.log)(lambda a, dt, node: _complex_log(a[0], dt[0]) if _is_complex(dt[0])
                     else _real_log(a, dt, node))


scalar_rule(ops.exp)(_complex_special_values("exp", _vector_math("exp", _call("np.exp"))))


# Where cosh overflows: (max exponent - 1) * ln 2 / 2, as the C library's ctanh.
_TANH_LIMIT = {np.dtype(np.complex64): 44.0, np.dtype(np.complex128): 354.0}


def _part(dtype: np.dtype) -> np.dtype:
    return np.real(np.ones((), dtype)).dtype


def _complex_tanh(z: str, dtype: np.dtype) -> str:
    part = _part(dtype)
    limits = (_TANH_LIMIT[np.dtype(dtype)], np.finfo(part).eps, np.finfo(part).tiny)
    return f"cm.tanh({z}, {', '.join(literal(v, part) for v in limits)})"


scalar_rule(ops.tanh)(_vector_math("tanh", lambda a, dt, node: (
    _complex_tanh(a[0], dt[0]) if _is_complex(dt[0]) else f"np.tanh({a[0]})")))


_power = _vector_math("power", _infix("**"))


@scalar_rule(ops.power)
def _power_of_array(a, dt, node):
    """NumPy's power loop takes the square root for an exponent of 0.5 that is
    the same for every element of an array (sqrt and pow differ at -0.0 and
    -inf); a NumPy scalar base goes through C's pow."""
    x, exponent = node.inputs
    if _is_float(dt[0]) and exponent.type.ndim == 0 and node.output.type.ndim:
        known = exponent.producer is not None and exponent.producer.op is ops.constant
        if not known:
            return f"(np.sqrt({a[0]}) if {a[1]} == 0.5 else {_power(a, dt, node)})"
        if exponent.producer.attrs["value"] == 0.5:  # (typing both costs numba's time)
            return f"np.sqrt({a[0]})"
    if np.dtype(dt[0]).kind in "iu" and not _small_constant(exponent):
        # squaring in uint64 wraps as NumPy's power does in the loop's dtype
        return f"{np_type(dt[0])}(rt.uint64_power({a[0]}, {a[1]}))"
    if _is_complex(dt[0]):  # (z ** 0.5 and z ** -1: the tracer's power operator)
        return f"cm.power({a[0]}, {a[1]})"
    return _power(a, dt, node)


def _small_constant(exponent) -> bool:
    """numba's integer ** is exact for exponents up to 2**16; beyond, it goes
    through float pow ((2**31 - 1) ** (2**31 - 1) gave 0 in int32)."""
    return exponent.producer is not None and exponent.producer.op is ops.constant and \
        0 <= exponent.producer.attrs["value"] <= 0x10000


def _log_to_base(fn: str, log_e: float) -> ScalarRule:
    """log2/log10; of complex values NumPy's log times log2(e) (log10(e)), part
    by part in the parts' precision (bit for bit with NumPy's, given log)."""
    def rule(a, dt, node):
        if _is_complex(dt[0]):
            part = np.finfo(dt[0]).dtype
            return f"cm.scaled({_complex_log(a[0], dt[0])}, {literal(log_e, part)})"
        return f"{fn}({a[0]})"

    return rule


scalar_rule(ops.log2)(_log_to_base("rt.log2", np.log2(np.e)))
scalar_rule(ops.log10)(_log_to_base("np.log10", np.log10(np.e)))

@scalar_rule(ops.exp2)
def _exp2(a, dt, node):
    """Of a complex value NumPy's exp of both parts times ln 2 (in the parts'
    precision), given exp (the C library's cexp, as NumPy's)."""
    if not _is_complex(dt[0]):
        return f"rt.exp2({a[0]})"
    return f"cm.exp(cm.scaled({a[0]}, {literal(np.log(2.0), _part(dt[0]))}))"


scalar_rule(ops.rint)(_complex_special_values("rint", _call("np.rint")))
for _op, _fn in [(ops.cbrt, "rt.cbrt"),
                 (ops.floor, "np.floor"), (ops.ceil, "np.ceil"), (ops.trunc, "np.trunc"),
                 (ops.hypot, "np.hypot"), (ops.copysign, "np.copysign"),
                 (ops.signbit, "np.signbit"), (ops.fabs, "abs"),
                 (ops.nextafter, "np.nextafter"), (ops.gcd, "np.gcd"), (ops.lcm, "np.lcm"),
                 (ops.bitwise_count, "rt.bitwise_count"), (ops.ldexp, "rt.ldexp")]:
    scalar_rule(_op)(_call(_fn))


@scalar_rule(ops.fmod)
def _fmod(a, dt, node):
    """C's fmod; of integers NumPy's: truncated, 0 for a zero divisor."""
    if np.dtype(dt[0]).kind in "iu":
        return f"rt.fmod_int({a[0]}, {a[1]})"
    return f"np.fmod({a[0]}, {a[1]})"


@scalar_rule(ops.spacing)
def _spacing(a, dt, node):
    # NumPy's spacing of -0.0 is positive, as of 0.0 (x + 0.0 is x but for -0.0)
    return f"rt.spacing({a[0]} + {literal(0.0, dt[0])})"


@scalar_rule(ops.absolute)
def _absolute(a, dt, node):
    if not _is_complex(dt[0]):
        return f"abs({a[0]})"
    part = _part(dt[0])  # NumPy's vectorised loop's formula: lower/complexmath.py
    return f"cm.absolute({a[0]}, {literal(1.0, part)}, {literal(np.inf, part)})"


# |z| compared with a constant c, for complex z: decided by re**2 + im**2
# outside a band around c**2 (cm.magnitude_compare). The band's half-width,
# relative: the squares' sum in float64 is within 2**-52 of its exact value,
# NumPy's |z| within a few ulp of its part type, so a sum outside the band
# puts |z| on the side of c it shows. c**2 stays far from float64's overflow
# and underflow (c within 2**-450 .. 2**450).
_MAGNITUDE_ORDERS = {ops.less: 0, ops.less_equal: 1, ops.greater: 2, ops.greater_equal: 3}
_MAGNITUDE_BAND = {np.dtype(np.float64): 2.0 ** -40, np.dtype(np.float32): 2.0 ** -16}


def magnitude_comparison(node: Node) -> tuple[Node, int, np.floating] | None:
    """``(absolute node, order, c)`` where ``node`` compares the magnitude of
    a complex value with a constant ``c`` (``order``: 0 for <, 1 <=, 2 >,
    3 >= with |z| on the left; ``c`` a scalar of the type the comparison
    uses); None otherwise."""
    order = _MAGNITUDE_ORDERS.get(node.op)
    if order is None:
        return None
    for side, (magnitude, bound) in enumerate((node.inputs, node.inputs[::-1])):
        absolute, constant = magnitude.producer, bound.producer
        if absolute is None or absolute.op is not ops.absolute \
                or not _is_complex(absolute.inputs[0].dtype) or constant is None \
                or constant.op is not ops.constant or bound.type.ndim:
            continue
        compared = loop_dtypes(node)[1 - side]
        if compared.kind != "f":
            continue
        c = np.asarray(constant.attrs["value"]).astype(compared)[()]
        if 2.0 ** -450 <= float(c) <= 2.0 ** 450:
            return absolute, order if side == 0 else order ^ 2, c
    return None


def magnitude_expression(absolute: Node, order: int, c: np.floating, z: str) -> str:
    """The element of a ``magnitude_comparison`` from ``z``, the element of
    the complex value: |z| and c in the comparison's types."""
    part, square = absolute.output.dtype, float(c) ** 2
    below, above = (literal(square * (1 + side * _MAGNITUDE_BAND[part]), np.float64)
                    for side in (-1, 1))
    return (f"cm.magnitude_compare({z}, {below}, {above}, {literal(c, c.dtype)}, "
            f"{literal(1.0, part)}, {literal(np.inf, part)}, {order})")


def _times_ones_value(op: Op) -> ScalarRule:
    """deg2rad and rad2deg multiply by a constant: NumPy's own, its value at 1
    in the loop dtype (pi/180 rounded once, as NumPy's C does)."""
    def rule(a, dt, node):
        return f"({a[0]} * {literal(op.ufunc(np.ones((), dt[0])), dt[0])})"

    return rule


for _op in (ops.sinh, ops.cosh):
    scalar_rule(_op)(_complex_special_values(_op.name, _call(f"np.{_op.name}")))


for _op in (ops.deg2rad, ops.rad2deg):
    scalar_rule(_op)(_times_ones_value(_op))


scalar_rule(ops.negative)(lambda a, dt, node: f"(-{a[0]})")


scalar_rule(ops.positive)(lambda a, dt, node: a[0])


scalar_rule(ops.square)(lambda a, dt, node: f"cm.multiply({a[0]}, {a[0]})"
                        if _is_complex(dt[0]) else f"({a[0]} * {a[0]})")


def _truth(expr: str, dtype: np.dtype) -> str:
    """NumPy's logical ops loop over numbers too: non-zero (and NaN) is true."""
    return expr if dtype == np.bool_ else f"({expr} != 0)"


scalar_rule(ops.logical_not)(lambda a, dt, node: f"(not {_truth(a[0], dt[0])})")


scalar_rule(ops.logical_and)(
    lambda a, dt, node: f"({_truth(a[0], dt[0])} and {_truth(a[1], dt[1])})")


scalar_rule(ops.logical_or)(
    lambda a, dt, node: f"({_truth(a[0], dt[0])} or {_truth(a[1], dt[1])})")


scalar_rule(ops.logical_xor)(
    lambda a, dt, node: f"({_truth(a[0], dt[0])} != {_truth(a[1], dt[1])})")


scalar_rule(ops.invert)(
    lambda a, dt, node: f"(not {a[0]})" if dt[0] == np.bool_ else f"(~{a[0]})")


@scalar_rule(ops.reciprocal)
def _reciprocal(a, dt, node):
    if _is_complex(dt[0]):
        return f"cm.reciprocal({a[0]})"
    # Integer reciprocal truncates toward zero like C (NumPy's int loop).
    return f"(1.0 / {a[0]})" if _is_float(dt[0]) else f"np.int64(1.0 / {a[0]})"


def _select(better: str, nan_wins: int, name: str) -> ScalarRule:
    """``a if (a better b, or operand nan_wins is NaN) else b``; complex values
    through complexmath's version (NumPy's order, ties to the first)."""
    def rule(a, dt, node):
        if _is_complex(dt[0]):
            return f"cm.{name}({a[0]}, {a[1]})"
        n = a[nan_wins]
        return f"({a[0]} if ({a[0]} {better} {a[1]} or {n} != {n}) else {a[1]})"

    return rule


# NumPy's maximum/minimum propagate NaN and return the second operand on ties
# (so maximum(-0.0, 0.0) is 0.0); fmax/fmin prefer the non-NaN operand.
scalar_rule(ops.maximum)(_select(">", 0, "maximum"))


scalar_rule(ops.minimum)(_select("<", 0, "minimum"))


scalar_rule(ops.fmax)(_select(">", 1, "fmax"))


scalar_rule(ops.fmin)(_select("<", 1, "fmin"))


@scalar_rule(ops.sign)
def _sign(a, dt, node):
    if _is_complex(dt[0]):
        return f"cm.sign({a[0]})"
    x = a[0]
    zero = "0.0" if _is_float(dt[0]) else "0"
    nan_or_zero = f"({zero} if {x} == 0 else {x})"  # NaN stays NaN, -0.0 becomes 0.0
    return f"(1 if {x} > 0 else (-1 if {x} < 0 else {nan_or_zero}))"


def _is_complex(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "c"


@scalar_rule(ops.isnan)
def _isnan(a, dt, node):
    if _is_complex(dt[0]):
        return f"(np.isnan({a[0]}.real) or np.isnan({a[0]}.imag))"
    return f"({a[0]} != {a[0]})" if _is_float(dt[0]) else "False"


@scalar_rule(ops.isinf)
def _isinf(a, dt, node):
    if _is_complex(dt[0]):
        return f"(np.isinf({a[0]}.real) or np.isinf({a[0]}.imag))"
    return f"np.isinf({a[0]})" if _is_float(dt[0]) else "False"


@scalar_rule(ops.isfinite)
def _isfinite(a, dt, node):
    if _is_complex(dt[0]):
        return f"(np.isfinite({a[0]}.real) and np.isfinite({a[0]}.imag))"
    return f"np.isfinite({a[0]})" if _is_float(dt[0]) else "True"


scalar_rule(ops.real)(lambda a, dt, node: f"{a[0]}.real" if _is_complex(dt[0]) else a[0])


scalar_rule(ops.imag)(
    lambda a, dt, node: f"{a[0]}.imag" if _is_complex(dt[0]) else literal(0, dt[0]))


scalar_rule(ops.make_complex)(  # exact: the parts are stored as they are
    lambda a, dt, node: f"{np_type(node.output.dtype)}(complex({a[0]}, {a[1]}))")


scalar_rule(ops.conjugate)(
    lambda a, dt, node: f"{a[0]}.conjugate()" if _is_complex(dt[0]) else a[0])


scalar_rule(ops.where)(lambda a, dt, node: f"({a[1]} if {a[0]} else {a[2]})")


scalar_rule(ops.broadcast_like)(lambda a, dt, node: a[0])


scalar_rule(ops.astype)(lambda a, dt, node: cast(a[0], dt[0], node.output.dtype))


def loop_dtypes(node: Node) -> tuple[np.dtype, ...]:
    """The dtypes an elementwise op computes in, one per input. NumPy's
    float16 loop of a 1-byte operand (``np.signbit`` of int8 or bool, whose
    result is a bool: a float16 result is refused while tracing) runs in
    float32, which holds every float16 value."""
    op = node.op
    if op.ufunc is not None:
        loop = ufunc_loop_dtypes(op.ufunc, [v.type for v in node.inputs])[:-1]
        return tuple(np.dtype(np.float32) if d == np.float16 else d for d in loop)
    if op is ops.where:
        out = node.output.dtype
        return (np.dtype(bool), out, out)
    return tuple(v.dtype for v in node.inputs)  # astype casts on the way out


def scalar_expression(node: Node, args: Sequence[str]) -> str:
    """One element of an elementwise node, cast to its output dtype (unless
    numba types the expression so already)."""
    in_dtypes = loop_dtypes(node)
    cast_args = [cast(a, v.dtype, d) for a, v, d in zip(args, node.inputs, in_dtypes,
                                                          strict=True)]
    expr = SCALAR_RULES[node.op](cast_args, in_dtypes, node)
    if _typed_as_output(node, in_dtypes):
        return expr
    return f"{np_type(node.output.dtype)}({expr})"


# Ops whose expression numba types as the output dtype when every operand is
# of one real float dtype (+, -, *, /, unary -, where's choice), or as bool
# (comparisons of two operands of one real dtype). Their cast is left out:
# every call in generated code costs numba typing and lowering time.
_KEEPS_FLOAT_TYPE = frozenset({ops.add, ops.subtract, ops.multiply, ops.true_divide,
                               ops.negative, ops.where})
_COMPARISONS = frozenset({ops.less, ops.less_equal, ops.greater, ops.greater_equal,
                          ops.equal, ops.not_equal})


def _typed_as_output(node: Node, in_dtypes: Sequence[np.dtype]) -> bool:
    out = node.output.dtype
    values = in_dtypes[1:] if node.op is ops.where else in_dtypes
    if node.op in _KEEPS_FLOAT_TYPE:
        return out.kind == "f" and all(np.dtype(d) == out for d in values)
    if node.op in _COMPARISONS:
        first = np.dtype(in_dtypes[0])
        return first.kind in "fiu" and all(np.dtype(d) == first for d in in_dtypes)
    return False
