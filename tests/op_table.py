"""The op table: one record per user-facing NumPy operation (STYLE.md 1.7).

Each ``OpRow`` holds a plain NumPy function, the argument specs it is run on
(``Case``: dtype, shape and whether NaN/inf/±0 are mixed into float inputs),
an input domain per argument, a tolerance factor and whether the function is
differentiable. ``tests/test_ops.py`` runs every row × case through
``jitaic.jit`` and compares with NumPy, and checks that the rows together
exercise every op of ``jitaic.ir.ops.OPS``.

Argument specs are short strings: ``"f64[3,4]"``, ``"i32[]"`` (0-d),
``"bool[0,3]"`` (empty). Every distinct (row, case) is one numba compile, so
cases are chosen to cover promotion, broadcasting, 0-d and empty inputs
without crossing every row with every dtype (see ``n_compiles``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

DTYPES = {
    "f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32,
    "i16": np.int16, "i8": np.int8, "u8": np.uint8, "u32": np.uint32, "bool": np.bool_,
    "c128": np.complex128, "c64": np.complex64,
}

_SPEC = re.compile(r"^(\w+)\[([\d,]*)\]$")


def parse_spec(spec: str) -> tuple[np.dtype, tuple[int, ...]]:
    """'f64[3,4]' -> (float64, (3, 4))."""
    m = _SPEC.match(spec)
    if m is None:
        raise ValueError(f"bad argument spec {spec!r}")
    dims = tuple(int(d) for d in m.group(2).split(",") if d)
    return np.dtype(DTYPES[m.group(1)]), dims


@dataclass(frozen=True)
class Case:
    """The arguments of one call: a spec per argument; special mixes in NaN/inf/±0."""

    args: tuple[str, ...]
    special: bool = False

    @property
    def id(self) -> str:
        return "-".join(self.args) + ("-nan" if self.special else "")


def C(*args: str, special: bool = False) -> Case:
    return Case(tuple(args), special)


@dataclass(frozen=True)
class OpRow:
    """One user-facing operation and the calls it is tested with."""

    name: str
    fn: Callable
    cases: tuple[Case, ...]
    domain: tuple[str, ...] | str = "real"  # one name per argument, or one for all
    tol: float = 1.0  # multiplies the default (rtol, atol) of the result dtype
    check_values: bool = True  # False: compare dtype and shape only (np.empty)
    differentiable: bool = True

    def domain_of(self, i: int) -> str:
        return self.domain if isinstance(self.domain, str) else self.domain[i]


# ---------------------------------------------------------------- input generation

SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0])


def _floats(rng: np.random.Generator, domain: str, n: int) -> np.ndarray:
    if domain == "real":
        return rng.normal(0.0, 2.0, n)
    if domain == "pos":
        return rng.uniform(0.1, 4.0, n)
    if domain == "unit":
        return rng.uniform(-0.95, 0.95, n)
    if domain == "ge1":
        return rng.uniform(1.05, 4.0, n)
    if domain == "nonzero":
        return rng.choice([-1.0, 1.0], n) * rng.uniform(0.5, 3.0, n)
    if domain == "small":
        return rng.uniform(-2.0, 2.0, n)
    if domain == "sparse":
        return np.where(rng.random(n) < 0.7, 0.0, rng.normal(0.0, 2.0, n))
    if domain == "nearint":  # halves and near-halves stress rounding modes
        return rng.integers(-6, 7, n) / 2.0 + rng.choice([0.0, 1e-9, -1e-9], n)
    raise ValueError(f"unknown domain {domain!r}")


_INT_RANGES = {
    "real": (-5, 6), "pos": (1, 7), "unit": (-1, 2), "ge1": (1, 6), "small": (0, 4),
    "sparse": (0, 1), "nearint": (-5, 6), "shift": (0, 5), "nonneg": (0, 10),
}


def _ints(rng: np.random.Generator, domain: str, n: int) -> np.ndarray:
    if domain == "nonzero":
        return rng.choice([-5, -4, -3, -2, -1, 1, 2, 3, 4, 5], n)
    if domain == "sparse":
        return np.where(rng.random(n) < 0.7, 0, rng.integers(-5, 6, n))
    lo, hi = _INT_RANGES[domain]
    return rng.integers(lo, hi, n)


def _bools(rng: np.random.Generator, domain: str, n: int) -> np.ndarray:
    p = {"mostly_true": 0.85, "sparse": 0.2}.get(domain, 0.5)
    return rng.random(n) < p


def make_array(rng: np.random.Generator, spec: str, domain: str = "real",
               special: bool = False) -> np.ndarray:
    """A C-contiguous array for one argument spec, values drawn from the domain."""
    dtype, shape = parse_spec(spec)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "b":
        flat = _bools(rng, domain, n)
    elif dtype.kind in "iu":
        if domain in ("mostly_true",):
            domain = "real"
        flat = _ints(rng, domain, n)
        if dtype.kind == "u":
            flat = np.abs(flat)
    else:
        parts = 2 if dtype.kind == "c" else 1  # real and imaginary parts, drawn alike
        flat = [_floats(rng, "real" if domain == "mostly_true" else domain, n)
                for _ in range(parts)]
        for part in flat:
            if special and n:
                k = min(n, len(SPECIALS))
                where = rng.choice(n, size=k, replace=False)
                part[where] = rng.permutation(SPECIALS)[:k]
        if parts == 2:  # (re + 1j * im would turn an infinite im into a NaN re)
            flat = np.vectorize(complex)(*flat) if n else np.zeros(0, complex)
        else:
            flat = flat[0]
    return np.asarray(flat.reshape(shape), dtype=dtype)


def make_args(row: OpRow, case: Case, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    return tuple(make_array(rng, spec, row.domain_of(i), case.special)
                 for i, spec in enumerate(case.args))


# ---------------------------------------------------------------- common case sets

UNARY_FULL = (C("f64[3,4]", special=True), C("f32[5]"), C("i32[2,3]"), C("f64[]"),
              C("f64[0,3]"))
UNARY = (C("f64[3,4]", special=True), C("f32[5]"), C("i32[2,3]"))
UNARY_FLOAT = (C("f64[3,4]", special=True), C("f32[2,3]"))
PREDICATE = (C("f64[3,4]", special=True), C("f32[5]", special=True), C("i32[4]"), C("f64[]"))

BINARY_FULL = (
    C("f64[3,4]", "f64[3,4]", special=True),
    C("f32[3,1]", "f32[1,4]"),
    C("i32[4]", "i32[2,3,4]"),
    C("i64[]", "f32[3]"),
    C("f64[]", "f64[]"),
    C("f64[0,3]", "f64[3]"),
)
BINARY = BINARY_FULL[:4]
BINARY_FLOAT = (
    C("f64[3,4]", "f64[3,4]", special=True),
    C("f32[3,1]", "f32[1,4]"),
    C("i32[4]", "f64[2,4]"),
    C("f64[]", "f64[]"),
)
COMPARE = (
    C("f64[3,4]", "f64[3,4]", special=True),
    C("i32[3,1]", "f32[1,4]"),
    C("bool[4]", "bool[4]"),
    C("i64[]", "i64[]"),
)
LOGICAL = (C("bool[3,4]", "bool[3,4]"), C("f64[3,4]", "f64[4]", special=True),
           C("i32[3,1]", "bool[1,4]"))
BITWISE = (C("i32[3,4]", "i32[4]"), C("bool[3]", "bool[3]"))

ROWS: list[OpRow] = []


def row(name: str, fn: Callable, cases, **kw) -> OpRow:
    r = OpRow(name, fn, tuple(cases), **kw)
    ROWS.append(r)
    return r


# ---------------------------------------------------------------- unary ufuncs

row("negative", lambda x: np.negative(x), (C("f64[3,4]", special=True), C("i32[2,3]"), C("f64[]")))
row("abs", lambda x: np.abs(x), UNARY)
row("absolute", lambda x: np.absolute(x), (C("i64[3]"),))
row("positive", lambda x: np.positive(x), (C("f64[3]", special=True), C("i32[3]")))
row("exp", lambda x: np.exp(x), UNARY_FULL)
row("expm1", lambda x: np.expm1(x), UNARY_FLOAT, domain="small")
row("exp2", lambda x: np.exp2(x), UNARY_FLOAT[:1])
row("log", lambda x: np.log(x), UNARY, domain="pos")
row("log1p", lambda x: np.log1p(x), UNARY, domain="pos")
row("log2", lambda x: np.log2(x), UNARY_FLOAT[:1], domain="pos")
row("log10", lambda x: np.log10(x), UNARY_FLOAT[:1], domain="pos")
row("sqrt", lambda x: np.sqrt(x), UNARY, domain="pos")
row("cbrt", lambda x: np.cbrt(x), UNARY_FLOAT[:1])
row("square", lambda x: np.square(x), UNARY)
row("reciprocal", lambda x: np.reciprocal(x), UNARY, domain="nonzero")
row("sin", lambda x: np.sin(x), UNARY)
row("cos", lambda x: np.cos(x), UNARY_FLOAT)
row("tan", lambda x: np.tan(x), UNARY, domain="small")
row("arcsin", lambda x: np.arcsin(x), UNARY, domain="unit")
row("arccos", lambda x: np.arccos(x), UNARY_FLOAT, domain="unit")
row("arctan", lambda x: np.arctan(x), UNARY)
row("sinh", lambda x: np.sinh(x), UNARY_FLOAT, domain="small")
row("cosh", lambda x: np.cosh(x), UNARY_FLOAT, domain="small")
row("tanh", lambda x: np.tanh(x), UNARY)
row("arcsinh", lambda x: np.arcsinh(x), UNARY_FLOAT[:1])
row("arccosh", lambda x: np.arccosh(x), UNARY_FLOAT[:1], domain="ge1")
row("arctanh", lambda x: np.arctanh(x), UNARY_FLOAT[:1], domain="unit")
row("deg2rad", lambda x: (np.deg2rad(x), np.radians(x)), UNARY)
row("rad2deg", lambda x: (np.rad2deg(x), np.degrees(x)), (C("f32[2,3]"),))
row("fabs", lambda x: np.fabs(x), (C("i32[2,3]"),))  # ints: a float64 loop
row("floor", lambda x: np.floor(x), UNARY, domain="nearint", differentiable=False)
row("ceil", lambda x: np.ceil(x), UNARY_FLOAT, domain="nearint", differentiable=False)
row("trunc", lambda x: np.trunc(x), UNARY_FLOAT[:1], domain="nearint", differentiable=False)
row("rint", lambda x: np.rint(x), UNARY_FLOAT[:1], domain="nearint", differentiable=False)
row("round", lambda x: np.round(x), (C("f64[7]"),), domain="nearint", differentiable=False)
# (differentiable: 0 for real x; the complex z / |z| has a gradient)
row("sign", lambda x: np.sign(x), (C("f64[3,4]", special=True), C("i32[2,3]"), C("i64[]")))
row("isnan", lambda x: np.isnan(x), PREDICATE[:2] + PREDICATE[3:], differentiable=False)
row("isinf", lambda x: np.isinf(x), PREDICATE[:2], differentiable=False)
row("isfinite", lambda x: np.isfinite(x), PREDICATE[:3], differentiable=False)
row("logical_not", lambda x: np.logical_not(x),
    (C("bool[3,4]"), C("f64[3,4]", special=True), C("bool[]")),
    domain="sparse", differentiable=False)
row("invert", lambda x: np.invert(x), (C("bool[3,4]"), C("u8[4]")),
    differentiable=False)

# ---------------------------------------------------------------- binary ufuncs

row("add", lambda x, y: np.add(x, y), BINARY_FULL + (C("bool[3]", "bool[3]"),))
row("subtract", lambda x, y: np.subtract(x, y), BINARY)
row("multiply", lambda x, y: np.multiply(x, y), BINARY + (C("bool[3]", "i32[3]"),))
row("true_divide", lambda x, y: np.true_divide(x, y), BINARY,
    domain=("real", "nonzero"))
row("divide_operator", lambda x, y: x / y, (C("i32[3,4]", "i64[4]"),),
    domain=("real", "nonzero"))
row("floor_divide", lambda x, y: np.floor_divide(x, y), BINARY,
    domain=("real", "nonzero"), differentiable=False)
row("mod", lambda x, y: np.mod(x, y), BINARY, domain=("real", "nonzero"))
row("remainder_operator", lambda x, y: x % y, (C("i64[3,4]", "i64[3,4]"),),
    domain=("real", "nonzero"))
row("power", lambda x, y: np.power(x, y),
    (C("f64[3,4]", "f64[3,4]", special=True), C("f32[3,1]", "f32[1,4]"),
     C("i32[4]", "i32[2,3,4]"), C("i64[]", "f32[3]")),
    domain=("pos", "small"))
row("power_int_base", lambda x, y: np.power(x, y), (C("i64[6]", "i64[6]"),),
    domain=("real", "small"))
row("maximum", lambda x, y: np.maximum(x, y), BINARY)
row("minimum", lambda x, y: np.minimum(x, y), BINARY)
row("fmax", lambda x, y: np.fmax(x, y), BINARY_FLOAT[:2])
row("fmin", lambda x, y: np.fmin(x, y), BINARY_FLOAT[:2])
row("arctan2", lambda y, x: np.arctan2(y, x), BINARY_FLOAT[:3])
row("hypot", lambda x, y: np.hypot(x, y), BINARY_FLOAT[:2])
row("fmod_ldexp_and_bits",
    lambda x, n: (np.fmod(x, 0.7), np.fmod(x, x[::-1]), np.fmod(n, n[::-1]), np.fmod(n, -3),
                  np.ldexp(x, n % 9 - 4), np.ldexp(x.astype(np.float32), 2), np.frexp(x),
                  np.nextafter(x, 0.0), np.spacing(x), np.spacing(x.astype(np.float32)),
                  np.gcd(n, 12), np.lcm(n, n[::-1]), np.bitwise_count(n),
                  np.log2(np.abs(x).astype(np.float32)), np.exp2(x.astype(np.float32))),
    (C("f64[3,4]", "i64[3,4]", special=True),), differentiable=False)
row("copysign", lambda x, y: np.copysign(x, y), BINARY_FLOAT[:2])
row("signbit", lambda x: (np.signbit(x), np.heaviside(x, 0.5), np.heaviside(x, x[::-1])),
    (C("f64[3,4]", special=True),), differentiable=False)
row("equal", lambda x, y: np.equal(x, y), COMPARE, differentiable=False)
row("not_equal", lambda x, y: np.not_equal(x, y), COMPARE[:2], differentiable=False)
row("less", lambda x, y: np.less(x, y), COMPARE[:2], differentiable=False)
row("less_equal", lambda x, y: np.less_equal(x, y), COMPARE[:2], differentiable=False)
row("greater", lambda x, y: np.greater(x, y), COMPARE[:2], differentiable=False)
row("greater_equal", lambda x, y: np.greater_equal(x, y), COMPARE[:2], differentiable=False)
row("logical_and", lambda x, y: np.logical_and(x, y), LOGICAL, domain="sparse",
    differentiable=False)
row("logical_or", lambda x, y: np.logical_or(x, y), LOGICAL[:2], domain="sparse",
    differentiable=False)
row("logical_xor", lambda x, y: np.logical_xor(x, y), LOGICAL[:2], domain="sparse",
    differentiable=False)
row("bitwise_and", lambda x, y: np.bitwise_and(x, y), BITWISE, differentiable=False)
row("bitwise_or", lambda x, y: np.bitwise_or(x, y), BITWISE[:1], differentiable=False)
row("bitwise_xor", lambda x, y: np.bitwise_xor(x, y), BITWISE[:1], differentiable=False)
row("left_shift", lambda x, y: np.left_shift(x, y), (C("i32[3,4]", "i32[4]"),),
    domain=("real", "shift"), differentiable=False)
row("right_shift", lambda x, y: np.right_shift(x, y), (C("i64[3,4]", "i64[4]"),),
    domain=("real", "shift"), differentiable=False)

# ---------------------------------------------------------------- where, clip, astype

row("where", lambda c, a, b: np.where(c, a, b),
    (C("bool[3,4]", "f64[3,4]", "f64[3,4]", special=True),
     C("bool[3,1]", "i32[1,4]", "f32[]"),
     C("bool[]", "f64[]", "f64[]")))
row("where_nonbool_cond", lambda c, a, b: np.where(c, a, b),
    (C("f64[4]", "i64[4]", "i64[4]", special=True),), domain=("sparse", "real", "real"))
row("where_python_scalar", lambda x: np.where(x > 0, x, 0.0),
    (C("f32[3,4]"), C("i32[5]")))
row("where_python_ints", lambda x: np.where(x > 0, 1, -1), (C("f64[3,4]"),),
    differentiable=False)
row("clip_scalars", lambda x: np.clip(x, -0.5, 0.5),
    (C("f64[3,4]", special=True), C("f32[5]"), C("i32[5]")))
row("clip_arrays", lambda x, lo, hi: np.clip(x, lo, hi),
    (C("f64[3,4]", "f64[4]", "f64[3,1]"),), domain=("real", "small", "pos"))
row("clip_none", lambda x: np.clip(x, 0, None), (C("i64[6]"), C("f64[6]", special=True)))
row("astype_f64_i32", lambda x: x.astype(np.int32), (C("f64[3,4]"),), differentiable=False)
row("astype_f64_f32", lambda x: x.astype(np.float32), (C("f64[3,4]", special=True),))
row("astype_i32_f64", lambda x: x.astype(np.float64), (C("i32[5]"), C("bool[4]")))
row("astype_to_bool", lambda x: x.astype(bool), (C("f64[6]", special=True), C("i64[6]")),
    domain="sparse", differentiable=False)
row("astype_string_dtype", lambda x: x.astype("float32"), (C("i64[4]"),))
row("astype_python_int", lambda x: x.astype(int), (C("f32[5]"), C("bool[3]")),
    differentiable=False)

# ---------------------------------------------------------------- reductions

R = 10.0  # summation order differs from NumPy's pairwise sums
row("sum", lambda x: np.sum(x),
    (C("f64[2,3,4]"), C("i32[2,3,4]"), C("bool[5]"), C("f64[0,3]"), C("f64[]")), tol=R)
row("sum_axis1", lambda x: np.sum(x, axis=1), (C("f64[2,3,4]"), C("i32[3,4]")), tol=R)
row("sum_axis_neg", lambda x: x.sum(axis=-1), (C("f32[2,3,4]"), C("f64[5]")), tol=R)
row("sum_axes_keepdims", lambda x: x.sum(axis=(0, 2), keepdims=True),
    (C("f64[2,3,4]"), C("i64[2,3,4]")), tol=R)
row("sum_axes_tuple", lambda x: np.sum(x, axis=(0, -2)), (C("f64[2,3,4]"),), tol=R)
row("sum_axis0", lambda x: np.sum(x, axis=0), (C("f64[0,3]"), C("bool[3,2]")), tol=R)
row("sum_nan", lambda x: np.sum(x, axis=0), (C("f64[4,3]", special=True),), tol=R)
row("sum_keepdims_all", lambda x: np.sum(x, keepdims=True), (C("f64[3,4]"),), tol=R)
row("sum_dtype", lambda x: (np.sum(x, dtype=np.float32), x.mean(axis=0, dtype=np.float64)),
    (C("f32[3,4]"),), tol=R)
row("sum_int_dtype", lambda x: x.sum(axis=1, dtype=np.int32), (C("i64[3,4]"),))
row("prod", lambda x: np.prod(x), (C("f64[2,3]"), C("i64[2,3]"), C("f64[0]")),
    domain="small", tol=R)
row("prod_axis", lambda x: np.prod(x, axis=0), (C("f64[3,4]"), C("i32[3,2]")),
    domain="small", tol=R)
row("max", lambda x: np.max(x), (C("f64[3,4]", special=True), C("i32[2,3,4]"), C("f32[5]")),
    differentiable=False)
row("max_axis", lambda x: np.max(x, axis=1), (C("f64[3,4]", special=True), C("i64[3,4]")))
row("amax_keepdims", lambda x: np.amax(x, axis=(0, 2), keepdims=True), (C("f64[2,3,4]"),))
row("min", lambda x: np.min(x), (C("f64[3,4]", special=True), C("i32[6]"), C("bool[4]")))
row("min_axis", lambda x: np.min(x, axis=-1), (C("f32[3,4]"), C("f64[3,4]", special=True)))
row("mean", lambda x: np.mean(x), (C("f64[2,3,4]"), C("i32[3,4]"), C("f32[6]")), tol=R)
row("mean_axes", lambda x: np.mean(x, axis=(0, 2)), (C("f64[2,3,4]"), C("i64[2,3,4]")),
    tol=R)
row("mean_keepdims", lambda x: np.mean(x, axis=-1, keepdims=True),
    (C("f64[3,4]"), C("f32[3,4]")), tol=R)
row("var", lambda x: np.var(x), (C("f64[3,4]"), C("i32[3,4]")), tol=R)
row("var_ddof_axis", lambda x: np.var(x, axis=0, ddof=1), (C("f64[4,3]"), C("f32[4,3]")),
    tol=R)
row("std", lambda x: np.std(x), (C("f64[3,4]"), C("i64[5]")), tol=R)
row("std_ddof_keepdims", lambda x: np.std(x, axis=-1, ddof=1, keepdims=True),
    (C("f64[3,4]"), C("f32[2,3,4]")), tol=R)
row("argmax", lambda x: np.argmax(x), (C("f64[3,4]", special=True), C("i32[12]"),
                                       C("f32[2,3,4]")), differentiable=False)
row("argmax_axis", lambda x: np.argmax(x, axis=1), (C("f64[3,4]"), C("i64[2,5,3]")),
    differentiable=False)
row("argmax_keepdims", lambda x: np.argmax(x, axis=0, keepdims=True), (C("f64[3,4]"),),
    differentiable=False)
row("argmin", lambda x: np.argmin(x), (C("f64[3,4]", special=True), C("i32[12]")),
    differentiable=False)
row("argmin_axis_neg", lambda x: x.argmin(axis=-1),
    (C("f64[3,4]", special=True), C("bool[2,3]")), differentiable=False)
row("any", lambda x: np.any(x), (C("bool[3,4]"), C("f64[3,4]", special=True), C("bool[0]")),
    domain="sparse", differentiable=False)
row("any_axis_keepdims", lambda x: x.any(axis=(0, 1), keepdims=True), (C("bool[2,3,4]"),),
    domain="sparse", differentiable=False)
row("all", lambda x: np.all(x), (C("bool[3,4]"), C("f64[6]"), C("bool[0]")),
    domain="mostly_true", differentiable=False)
row("all_axis", lambda x: np.all(x, axis=1), (C("bool[3,4]"), C("i32[4,3]")),
    domain="mostly_true", differentiable=False)

# ---------------------------------------------------------------- linear algebra

row("matmul_operator", lambda a, b: a @ b,
    (C("f64[4]", "f64[4]"), C("f64[3,4]", "f64[4]"), C("f64[4]", "f64[4,5]"),
     C("f64[3,4]", "f64[4,5]"), C("f64[2,3,4]", "f64[2,4,5]"),
     C("f32[2,3,4]", "f32[4,5]"), C("i64[3,4]", "i64[4,2]"), C("i32[3,4]", "f32[4]"),
     C("f64[3,0]", "f64[0,2]")), tol=R)
row("np_matmul", lambda a, b: np.matmul(a, b), (C("f64[3,4]", "f64[4,5]"),), tol=R)
row("np_dot", lambda a, b: np.dot(a, b),
    (C("f64[4]", "f64[4]"), C("f64[3,4]", "f64[4,5]"), C("f32[3,4]", "f32[4]")), tol=R)
row("dot_method", lambda a, b: a.dot(b), (C("f64[3,4]", "f64[4]"),), tol=R)
row("outer", lambda a, b: np.outer(a, b), (C("f64[3]", "f64[4]"), C("i32[2,2]", "f64[3]")))

# ---------------------------------------------------------------- shape manipulation

row("reshape", lambda x: x.reshape(4, 3), (C("f64[3,4]"), C("i32[2,6]")))
row("reshape_minus1", lambda x: x.reshape(-1), (C("f64[3,4]"),))
row("np_reshape_minus1", lambda x: np.reshape(x, (2, -1, 2)), (C("f64[3,4]"),))
row("reshape_0d", lambda x: x.reshape(()), (C("f64[1,1]"),))
row("reshape_after_transpose", lambda x: x.T.reshape(-1) * 1.0, (C("f64[3,4]"),))
row("transpose_T", lambda x: x.T, (C("f64[3,4]"), C("f32[2,3,4]")))
row("np_transpose", lambda x: (np.transpose(x), np.transpose(x, (1, 2, 0))), (C("f64[2,3,4]"),))
row("transpose_method_neg_axes", lambda x: x.transpose(0, -1, 1) + 1, (C("i32[2,3,4]"),))
row("transpose_then_add", lambda x, y: x.T + y, (C("f64[3,4]", "f64[4,3]"),))
row("expand_dims", lambda x: (np.expand_dims(x, 0), np.expand_dims(x, -1),
                              np.expand_dims(x, (0, 2))), (C("f64[3,4]"), C("i64[3]")))
row("squeeze", lambda x: np.squeeze(x), (C("f64[1,3,1]"), C("f64[1,1]")))
row("squeeze_axis", lambda x: (x.squeeze(axis=0) * 2, np.squeeze(x, axis=(0, 2))),
    (C("f32[1,3,1,2]"),))
row("broadcast_to", lambda x: np.broadcast_to(x, (2, 3)), (C("f64[3]"), C("f64[]")))
row("broadcast_to_then_op", lambda x: np.broadcast_to(x, (3, 4)) * 2, (C("i32[3,1]"),))
row("concatenate", lambda a, b: np.concatenate([a, b]), (C("f64[2,3]", "f64[4,3]"),
                                                         C("i32[2]", "f32[3]")))
row("concatenate_axis1", lambda a, b: np.concatenate((a, b), axis=1),
    (C("f32[2,3]", "f32[2,1]"),))
row("concatenate_three_neg", lambda a, b, c: np.concatenate([a, b, c], axis=-1),
    (C("f64[2,2]", "f64[2,3]", "f64[2,1]"),))
row("stack", lambda a, b: np.stack([a, b]), (C("f64[3]", "f64[3]"), C("f64[2,3]", "i64[2,3]")))
row("stack_axis1", lambda a, b: np.stack((a, b), axis=1), (C("f64[2,3]", "f64[2,3]"),))
row("stack_axis_neg", lambda a, b, c: np.stack([a, b, c], axis=-1),
    (C("f32[4]", "f32[4]", "f32[4]"),))

# ---------------------------------------------------------------- basic indexing (reads)

IDX = (C("f64[4,5,6]"),)
row("index_int", lambda x: (x[1], x[-1]), IDX + (C("i32[4,5]"),))
row("index_ints", lambda x: (x[1, -2], x[1, -2, 3], x[-4, 0, -6]), IDX)
row("index_1d_scalar", lambda x: (x[2], x[-1]), (C("f64[5]"),))
row("index_slices", lambda x: (x[1:3], x[-3:-1, ::2], x[:, 1:-1, 4:]), IDX)
row("index_negative_steps", lambda x: (x[::-1], x[:, ::-2], x[3:0:-1, -1::-2]), IDX)
row("index_none", lambda x: (x[None], x[:, None, 1], x[..., None]), IDX)
row("index_ellipsis", lambda x: (x[..., 1], x[1, ..., None], x[..., 1:, ::-1]), IDX)
row("index_out_of_range_slices", lambda x: (x[2:100, -100:2], x[3:1], x[:, 5:]), IDX)
row("index_0d", lambda x: x[()], (C("f64[]"),))
row("index_then_math", lambda x: x[1:, 0] * x[:-1, -1], (C("f64[4,5]"),))
# A view of a view read inside a kernel: x[::2][1:] reads x[2 * (1 + i)]
row("index_views_of_views", lambda x: (x[::2][1:] * 2, x[1:][::2] + 1, x[::-1][2:, ::3] - 1,
                                       x[1:, ::-2][::2, 1:] * 3), (C("f64[7,6]"),))


# A traced integer (here from argmax) as an index: dyn_getitem / dyn_setitem.
def _index_by_traced_int(x):
    i = np.argmax(x[:, 0])
    return x[i], x[i, 1:3], x[-1, i % 3]


def _assign_at_traced_int(x):
    y = x.copy()
    i = np.argmin(x[:, 0])
    y[i] = 0.5
    y[i, 1:3] += x[0, :2]
    return y


# A slice bound from a traced integer: a length known at run time only (dim_size
# gives mean its count).
def _run_time_slices(x):
    i = np.argmax(x[:, 0])
    y = x.copy()
    y[:i] = 0.5
    return (x[:i + 1].mean(axis=0), x[i:, 1].sum(), x[:i + 1, 2].max(), y,
            x[i::-1].min(axis=0), x[-i - 1:, ::-1] @ x[0], x[:i + 1])


row("index_traced_int", _index_by_traced_int, (C("f64[4,5]"),))
row("index_run_time_length", _run_time_slices, (C("f64[4,5]"),))
row("setitem_traced_int", _assign_at_traced_int, (C("f64[4,5]"),))

# ---------------------------------------------------------------- advanced indexing

def _gathers(x):
    rows = np.array([2, 0, -1, 2])
    best = np.argmax(x, axis=2)  # traced integer array (4, 5)
    return (x[rows], x[:, [4, 0]], x[[1, 2], [0, -3]], x[1, :, [0, 5]], x[..., [5, 0, 1]],
            x[np.array([True, False, True, True])], x[np.arange(4)[:, None], np.arange(5), best])


def _scatters(x):
    y = x.copy()
    y[[0, 2]] = 3
    y[:, [1, 3]] += x[:, [0, 0]]
    np.add.at(y, ([0, 0, 3], [1, 1, 2]), 2)  # repeated (0, 1): adds twice
    y[x[:, 0, 0] > 0] = -1  # a traced mask over the leading axis
    return y


# A traced boolean mask: x[mask] has a run-time length (compress); x[mask] = v
# fills the selected rows from v in order (mask_scatter).
def _mask_reads(x):
    rows = x[:, 0, 0] > 0
    return x[x > 0.5], x[rows].sum(axis=0), x[x > 0].mean(), x[rows][:, 1].max(axis=0)


def _mask_writes(x):
    y = x.copy()
    rows = x[:, 0, 0] > 0
    y[rows] = x[rows] * 2
    y[y < -0.5] = x[y < -0.5] ** 2
    return y


# Index arrays of run-time length (CSR rows: cols = col_index[start:stop]).
def _run_time_gathers(x):
    k = np.argmax(x[:, 0, 0])
    rows = np.array([3, 0, -1, 2, 2, 1])[:k + 1]
    y = x.copy()
    y[rows[:k]] += 1.0
    return x[rows], x[rows, 1:3, rows[0]].sum(), x[:, rows[-1], rows], y


row("gather", _gathers, (C("f64[4,5,6]"), C("i32[4,5,6]")))
row("gather_run_time_length", _run_time_gathers, (C("f64[4,5,6]"),))
row("mask_read", _mask_reads, (C("f64[4,5,6]"), C("f32[4,5,6]")))
row("mask_write", _mask_writes, (C("f64[4,5,6]"), C("f32[4,5,6]")))
row("scatter", _scatters, (C("f64[4,5,6]"), C("i64[4,5,6]")))

row("cumsum", lambda x: (np.cumsum(x), np.cumsum(x, axis=0), x.cumsum(axis=-1),
                         np.cumulative_sum(x, axis=0, include_initial=True), np.nancumsum(x),
                         np.cumulative_prod(x.ravel()), np.nancumprod(x, axis=-1)),
    (C("f64[3,4]", special=True), C("bool[5]")))
row("running_extremes", lambda x: (np.maximum.accumulate(x), np.minimum.accumulate(x, axis=1),
                                   np.maximum.accumulate(x.ravel())),
    (C("f64[3,4]", special=True), C("i16[2,5]")))
row("searchsorted_digitize",
    lambda a, v: (np.searchsorted(np.sort(a), v), np.sort(a).searchsorted(v, side="right"),
                  np.digitize(v, np.sort(a)), np.digitize(v, np.sort(a), right=True),
                  np.digitize(v, np.sort(np.nan_to_num(a))[::-1]),
                  np.digitize(np.round(v), np.array([2.0, 1.0, 1.0, 0.0]), right=True),
                  np.digitize(v, np.array([-1.0, 0.0, 0.5]))),
    (C("f64[6]", "f64[3,4]", special=True),), differentiable=False)
row("convolve_sinc_polyval",
    lambda x, k: (np.convolve(x, k), np.convolve(k, x, mode="same"), np.correlate(x, k),
                  np.convolve(x, np.concatenate([k] * 9), mode="valid"),  # 36 taps: a product
                  np.sinc(x), np.polyval(k, x), np.polyadd(k, x[:2]), np.polysub(x[:2], k),
                  np.polymul(k, k), np.polyder(k), np.polyint(k, 2, k=1.5), np.poly(k[:3]),
                  np.polyfit(np.arange(40.0), x, 2)),
    (C("f64[40]", "f64[4]"), C("i32[40]", "f32[4]")))
row("apply_along_axis",
    lambda x: (np.apply_along_axis(lambda r: np.cumsum(r) * r[0], 1, x),
               np.apply_along_axis(np.linalg.norm, 0, x)),
    (C("f64[3,4]"),))


def _lengths_the_data_decides(x):
    return (*np.nonzero(x > 0), x.nonzero(), np.argwhere(x), np.where(x < 0),
            *np.unique(x, return_index=True, return_inverse=True, return_counts=True),
            np.unique(x, equal_nan=False),
            *np.unique(np.sign(x), axis=0, return_index=True, return_inverse=True,
                       return_counts=True), np.unique(x > 0, axis=1),
            np.array([v * (i + 2 * j) for (i, j), v in np.ndenumerate(x[:2, :3])]))


row("nonzero_unique", _lengths_the_data_decides, (C("f64[4,5]", special=True), C("i16[3,4]")),
    differentiable=False)
def _set_routines(x, w):
    return (np.union1d(x, x[:4]), np.intersect1d(w, w[::2], return_indices=True),
            np.setdiff1d(x, x[:3]), np.setxor1d(w, w[:4]), np.trim_zeros(x),
            np.sort(np.unique_values(w)), np.unique_counts(x), np.unique_inverse(x),
            np.unique_all(w))


row("bincount", lambda x, w: (np.bincount(x), np.bincount(x, weights=w),
                              np.bincount(x, minlength=40), np.isin(x, x[:4]),
                              np.isin(w, w[::2], invert=True), np.isin(x[0], w),
                              _set_routines(x, w)),
    (C("u8[9]", "f32[9]"),), differentiable=False)
def _seeded_draws(x):
    np.random.seed(7)  # np.random's global stream, drawn from when the code runs
    rng = np.random.default_rng(7)  # a Generator made when the code runs
    return (x * np.random.normal(size=x.shape), x + rng.normal(1.0, 2.0, x.shape),
            rng.permutation(x, axis=1), rng.choice(x.shape[0], 2, replace=False),
            rng.choice(x.shape[1], 3, replace=False, p=np.abs(x[0]) / np.abs(x[0]).sum()))


# (np.packbits has no lowering: NumPy computes it, called back)
def _index_routines(x):
    a, b, c, d = x.copy(), x.copy(), x.copy(), x.copy()
    np.put(a, [0, -1, 7], [9.0, 8.0])
    a.put([1, 99], -5.0, mode="clip")
    np.put_along_axis(b, np.argmax(b, axis=1, keepdims=True), -1.0, axis=1)
    np.place(c, c > 0.5, [10.0, 20.0])
    np.copyto(d, x[0], where=x > 0)
    np.fill_diagonal(d, 3.0)
    i = np.argsort(x[0])
    return (a, b, c, d, np.extract(x > 0.3, x), np.compress([True, False, True], x, axis=0),
            x.compress([False, True], axis=1), np.choose(i % 3, [x[0], -x[1], x[2] * 10]),
            np.unravel_index(i, (2, 3)), np.ravel_multi_index((i % 2, i % 3), (2, 3)),
            np.tril_indices_from(x), np.triu_indices_from(x, k=1), np.diag_indices_from(x[:4, :4]),
            np.astype(x, np.float32))


row("argsort", lambda x: (np.argsort(x), np.argsort(x, axis=0), x.argsort(axis=None),
                          np.lexsort((x[0], np.round(x[1]))), np.lexsort(np.round(x)),
                          np.packbits(x > 0), _seeded_draws(x), _index_routines(x)),
    (C("f64[4,5]"),), differentiable=False)


def _partitioned(x):
    """What np.partition defines: the kth elements (the order around them is
    each implementation's own)."""
    return (np.partition(x, (1, 2))[..., 1:3], np.partition(x, -1, axis=None)[-1],
            np.take_along_axis(x, np.argpartition(x, 1, axis=0), 0)[1])


row("sort_median", lambda x: (np.sort(x), np.sort(x, axis=0), np.median(x), np.median(x, 1),
                              np.median(x[:3], axis=0, keepdims=True), np.percentile(x, 30),
                              np.quantile(x, [0.1, 0.5, 1.0], axis=0), np.median(np.round(x)),
                              _partitioned(x)),
    (C("f64[4,5]"), C("f32[7,9]", special=True), C("i16[6,3]")))
def _spectra(x):
    z = x * (1 + 0.5j)
    return (np.fft.fft(x), np.fft.rfft(x), np.fft.ifft(x, axis=0, norm="ortho"),
            np.fft.irfft(z, n=5), np.fft.hfft(z), np.fft.ihfft(x), np.fft.fft2(z), np.fft.ifft2(x),
            np.fft.fftn(x * 1j, s=(5, 3), axes=(1, 0)), np.fft.ifftn(z), np.fft.rfft2(x),
            np.fft.irfft2(z), np.fft.rfftn(x, axes=(0,)),
            np.fft.irfftn(z, s=(3, 4), axes=(0, 1), norm="forward"))


row("cumprod_fft", lambda x: (np.cumprod(x), np.cumprod(x, axis=1), _spectra(x),
                              np.unwrap(x * 3), np.unwrap(x, axis=0, period=4.0), np.i0(x * 5),
                              np.float_power(np.abs(x) + 1, x)),
    (C("f64[3,4]"),), domain="small", tol=R)



def _linalg(a, b):
    """LAPACK ops on matrices made well conditioned (a + 6I; a a^T + I for
    Cholesky and eigh), a stack of two included; b a vector, then matrices.
    Factors are squared where LAPACK may choose their signs."""
    n = a.shape[-1]
    m = a + 6.0 * np.eye(n, dtype=a.dtype)
    spd = m @ np.swapaxes(m, -1, -2) + np.eye(n, dtype=a.dtype)
    sign, logdet = np.linalg.slogdet(m)
    return (np.linalg.solve(m, b), np.linalg.solve(m, np.stack([b, 2 * b], axis=-1)),
            np.linalg.inv(m), np.linalg.det(m), sign, logdet, np.linalg.cholesky(spd),
            np.linalg.cholesky(spd, upper=True), *_decompositions(m, spd), *_tensors(m, b))


def _tensors(m, b):
    """multi_dot's orders (two, three, four matrices; vectors at the ends),
    tensorinv and tensorsolve of the (first) matrix viewed as a tensor."""
    n = m.shape[-1]
    first = m.reshape(-1, n)[:n]
    return (np.linalg.multi_dot([b, first]), np.linalg.multi_dot([first, first.T, first]),
            np.linalg.multi_dot([b, first, first[:, :2], first[:2]]),
            np.linalg.tensorinv(first.reshape(n, 1, n), ind=1),
            np.linalg.tensorsolve(first.reshape(n, n, 1), b))


def _decompositions(m, spd):
    tall = m[..., :-1]
    w, v = np.linalg.eigh(spd)
    u, s, vh = np.linalg.svd(tall, full_matrices=False)
    q, r = np.linalg.qr(tall)
    flat = tall.reshape(-1, tall.shape[-1])
    x, residuals, rank, singular = np.linalg.lstsq(flat, np.cos(flat[:, 0]))
    return (w, v * v, np.linalg.eigvalsh(spd, UPLO="U"), u * u, s, vh * vh, q * q, r * r,
            np.linalg.pinv(tall), x, residuals, rank, singular, np.linalg.matrix_rank(m),
            np.linalg.norm(m, 2, axis=(-2, -1)), np.linalg.norm(tall, "nuc", axis=(-1, -2)),
            np.linalg.cond(m), np.linalg.svdvals(m))


row("linalg", _linalg, (C("f64[4,4]", "f64[4]"), C("f32[2,3,3]", "f32[3]"),
                        C("i32[3,3]", "f64[3]")), domain="small", tol=R)

# eig's eigenvalues are real for a Hermitian matrix; their order and the
# eigenvectors' phases are LAPACK's choice: sorted values, |det| of the vectors
def _eig(x):
    h = x @ np.swapaxes(x, -1, -2).conj() + np.eye(x.shape[-1])
    w, v = np.linalg.eig(h)
    return np.sort(w), np.abs(np.linalg.det(v)), np.sort(np.linalg.eigvals(h))


row("eig", _eig,
    (C("f64[3,3]"), C("c128[2,3,3]")), domain="small", tol=R, differentiable=False)

# ---------------------------------------------------------------- compositions of ops

row("diff", lambda x: (np.diff(x), np.diff(x, n=2, axis=0),
                       np.diff(x, prepend=0.0, append=x[..., :1]),
                       np.ediff1d(x * 1, to_begin=x.ravel()[:2] * 1, to_end=-1)),
    (C("f64[4,5]", special=True), C("bool[6]")))
row("roll_tile_repeat",
    lambda x: (np.roll(x, 2), np.roll(x, (1, -2), axis=(0, 1)), np.roll(x, 3, axis=-1),
               np.tile(x, (2, 1, 2)), np.repeat(x, 2), np.repeat(x, [1, 0, 2, 1], axis=1),
               x.repeat(2, axis=0), np.resize(x, (5, 3)), np.resize(x, 2),
               np.insert(x, 1, 5.0), np.insert(x, [0, 2, 2], x[0, :1], axis=1),
               np.delete(x, 1, axis=1), np.delete(x, [0, -1]), np.block([[x, x], [x[:1], x[:1]]])),
    (C("f64[3,4]"),))
row("meshgrid", lambda x, y: (*np.meshgrid(x, y), *np.meshgrid(x, y, indexing="ij", sparse=True)),
    (C("f64[3]", "f64[4]"),))
row("logaddexp", lambda x, y: np.logaddexp(x, y),
    (C("f64[3,4]", "f64[4]", special=True), C("f32[3]", "f32[3]")))
row("logaddexp2", lambda x, y: np.logaddexp2(x, y), (C("f64[3,4]", "f64[4]", special=True),))

def _array_api(a, b):
    """NumPy 2's spellings: the vector gufuncs, np.linalg's forms, unstack, astype."""
    return (np.vecdot(a, b), np.vecdot(a, b, axis=0, keepdims=True), np.matvec(a, b[0]),
            np.vecmat(a[:, 0], b), np.matrix_transpose(a), np.linalg.matmul(a, b.T),
            np.linalg.tensordot(a, b, axes=2), np.linalg.outer(a[0], b[0]),
            np.linalg.cross(a[:, :3], b[:, :3]), np.linalg.diagonal(a), np.linalg.trace(a),
            np.linalg.vecdot(a, b), np.linalg.vector_norm(a, axis=1), np.linalg.matrix_norm(a),
            np.linalg.matrix_transpose(b), np.unstack(a))


row("tensordot_trapezoid_matrix_power",
    lambda a, b: (np.tensordot(a, b, axes=([0], [0])), np.tensordot(a, b[:, :, None], axes=2),
                  np.trapezoid(a), np.trapezoid(a, b[0], axis=1), np.trapezoid(a, dx=0.5, axis=0),
                  np.linalg.matrix_power(a[:, :3], 3), np.linalg.matrix_power(a[:, :3], 0),
                  np.linalg.matrix_power(a[:, :3] + 4 * np.eye(3), -2), _array_api(a, b)),
    (C("f64[3,4]", "f64[3,4]"),))
row("einsum",
    lambda a, b, c: (np.einsum("ij,jk->ik", a, b), np.einsum("ij->ji", a), np.einsum("ij", a),
                     np.einsum("i,i", a[0], a[1]), np.einsum("bij,jk->bik", c, b),
                     np.einsum("bij,bkj->bik", c, c), np.einsum("ij,ij->i", a, a),
                     np.einsum("ij,jk,kl->il", a, b, b.T), np.einsum("i,j", a[0], b[0]),
                     # ellipses, the operand-list form, diagonals
                     np.einsum("...ij,...jk", c, a.T), np.einsum("i...->...", a),
                     np.einsum("...i", a), np.einsum("b...,...->...", c[:, :1], a[0]),
                     np.einsum(a, [0, 1], a, [0, 2]), np.einsum(c, [Ellipsis, 1], [Ellipsis]),
                     np.einsum("ii", a[:, :3]), np.einsum("ii->i", a[:, 1:]),
                     np.einsum("iji->j", c[:, :, :2]), np.einsum("ii,...i", a[:, :3], b[:, :3])),
    (C("f64[3,4]", "f64[4,5]", "f64[2,3,4]"),))
row("gradient",
    lambda f, x: (*np.gradient(f), np.gradient(f, 0.5, axis=0, edge_order=2),
                  np.gradient(f, x, axis=0), np.gradient(f, x, 2.0, edge_order=2),
                  np.gradient(f, np.array([0.0, 0.5, 1.0, 1.5, 2.0]), axis=0, edge_order=2),
                  np.gradient(f[:, 0], np.array([0.0, 1.0, 3.0, 3.5, 6.0])),
                  np.gradient(np.arange(20, dtype=np.int32).reshape(5, 4) ** 2,
                              np.array([0, 1, 3, 4, 8]), axis=0)),
    (C("f64[5,4]", "f64[5]", special=True),))
row("quantile", lambda x: (np.percentile(x, 50), np.percentile(x, [5, 95], axis=1),
                           np.quantile(x, 0.33, axis=0, keepdims=True), np.quantile(x, 1.0)),
    (C("f64[5,6]", special=True),))
row("cross_interp_accumulate",
    lambda x, y: (np.cross(x, y), np.cross(x.T, y.T, axis=0),
                  np.interp(x, np.array([-1.0, 0.0, 2.0]), np.array([0.5, 1.0, -1.0])),
                  np.interp(x[0], np.array([-0.5, 0.5]), y[1, :2], left=0.0),
                  np.add.accumulate(x), np.multiply.accumulate(y, axis=1)),
    (C("f64[4,3]", "f64[4,3]"),))
row("diag_vander_norm",
    lambda x: (np.diag(x), np.diag(x, 1), np.diag(x[:, 0], -1), x.diagonal(), np.diagflat(x, 1),
               np.vander(x[:, 0], 3), np.linalg.norm(x, 1), np.linalg.norm(x, -np.inf),
               np.linalg.norm(x[0], 3), np.linalg.norm(x[0], np.inf),
               np.linalg.norm(x, np.inf, axis=1)),
    (C("f64[4,3]"),))
def _nan_and_logic(x, y):
    return (np.nanprod(x, axis=0), np.nanargmax(x), np.nanargmin(x), np.nanvar(x, axis=0),
            np.nanstd(x, axis=1, ddof=1), np.nanmedian(x, axis=1), np.nanmedian(x),
            np.nanpercentile(x, [25, 75], axis=0), np.nanquantile(x, 0.4), np.fix(x),
            np.divmod(x, 0.75), np.modf(x), np.isneginf(x), np.isposinf(y), np.iscomplexobj(x),
            np.isrealobj(y), np.array_equal(x, y), np.array_equal(x, x, equal_nan=True),
            np.array_equiv(x, x[:1]), np.sort_complex(x[0]), np.ones(2, np.common_type(x, y)),
            np.asarray_chkfinite(y[0] > 0))


row("nan_aware_and_closeness",
    lambda x, y: (np.nansum(x), np.nansum(x, axis=0), np.nanmean(x, axis=1),
                  np.nanmax(x, axis=1), np.nanmin(x), np.count_nonzero(x),
                  np.count_nonzero(x, axis=0), np.nan_to_num(x), np.nan_to_num(x, nan=-1.0,
                  posinf=9.0), np.isclose(x, y), np.isclose(x, x, equal_nan=True),
                  np.allclose(y, y), np.round(x, 2), np.round(x * 100, -1),
                  np.flatnonzero(x > 0).sum(), np.sum(x, where=x > 0),
                  x.sum(axis=0, where=x > 0), np.prod(x, axis=1, where=x > 0),
                  np.max(x, axis=1, where=x < 0.5, initial=-10.0), np.min(y, initial=-1.0),
                  np.sum(y, initial=3.0), np.mean(x, axis=0, where=x > -0.5),
                  _nan_and_logic(x, y)),
    (C("f64[3,4]", "f64[3,4]", special=True),), differentiable=False)
row("flips_and_rotations",
    lambda x: (np.flip(x), np.flip(x, 1), np.flip(x, (0, 2)), np.flipud(x), np.fliplr(x),
               *(np.rot90(x, k) for k in (-1, 1, 2, 3, 4)),
               np.rot90(x, 1, (2, 0)), np.fft.fftshift(x), np.fft.ifftshift(x, axes=(0, 2))),
    (C("f64[3,4,2]"),))
row("rollaxis_atleast_3d_append",
    lambda x: (np.rollaxis(x, 2), np.rollaxis(x, 0, 3), np.atleast_3d(x[0, 0]),
               np.atleast_3d(x[0]), np.append(x, x[0]), np.append(x[0], x[1], axis=0),
               np.atleast_1d(x[0, 0, 0], x), np.atleast_2d(x[0, 0], x[0, 0, 0]),
               np.atleast_3d(x[0, 0], x)),
    (C("f64[3,4,2]"),))
row("kron", lambda x, y: (np.kron(x, y), np.kron(x[0], y), np.kron(y, x[1]), np.kron(x, 2.0),
                          np.kron(x.reshape(2, 3, 2), y)), (C("f64[3,4]", "f64[2,2]"),))
row("select", lambda x, y: (np.select([x > 0.3, x < -0.5], [x, y * 2.0], -1.0),
                            np.select([x > 0], [y]), np.select([x > 0, y > 0], [1.5, x], y)),
    (C("f64[3,4]", "f64[3,4]"), C("f32[3,4]", "i8[3,4]")))
row("split_family",
    lambda x: (*np.split(x, 2), *np.split(x, [1, 3], axis=1), *np.array_split(x, 4, axis=1),
               *np.array_split(x, [-2, 10], axis=-1), *np.hsplit(x, 3), *np.vsplit(x, [1]),
               *np.dsplit(x.reshape(2, 3, 4), [1])), (C("f64[4,6]"),))
row("linspace_traced_endpoints",
    lambda x: (np.linspace(x.min(), x.max(), 7), np.linspace(x[0], 2.0, 4, endpoint=False),
               np.linspace(x[1], x[0], 3, retstep=True)[1], np.logspace(x[0], x[1], 4),
               np.logspace(0.5, x[2], 3, base=2.0, endpoint=False),
               np.geomspace(np.abs(x[0]) + 1, 10.0, 5)), (C("f64[5]"), C("f32[5]")))
row("triangles", lambda x: (np.triu(x), np.tril(x, -1), np.triu(x, 2), np.tril(x[0], 1)),
    (C("f64[3,4,5]"), C("i32[2,5,3]")))
row("histogram",
    lambda x, w: (*np.histogram(x, 6), np.histogram(x, 4, weights=w)[0],
                  np.histogram(x, 3, range=(-0.5, 0.5))[0],
                  np.histogram(np.where(x > 1, np.inf * x, x), 5, range=(-2, 1))[0],
                  np.histogram(x, 3, weights=w, density=True)[0], np.histogram_bin_edges(x, 5),
                  np.histogram2d(x, w, 4), np.histogramdd(np.stack([x, w], 1), bins=(2, 3)),
                  np.piecewise(x, [x < 0, x > 1], [-1.0, lambda v: v * 2])),
    (C("f64[40]", "f64[40]"), C("f32[7]", "f64[7]")))
row("average", lambda x, w: (np.average(x), np.average(x, axis=1, weights=w[0]),
                             np.average(x, weights=w, returned=True)),
    (C("f64[3,4]", "f64[3,4]"),), domain=("real", "pos"))
row("cov", lambda x: (np.cov(x), np.cov(x, rowvar=False), np.cov(x[0], x[1], bias=True),
                     np.corrcoef(x), np.corrcoef(x[0], x[1]), np.ptp(x, axis=1)),
    (C("f64[3,5]"), C("f32[2,4]")))
row("around", lambda x: np.around(x, 1), (C("f64[3,4]"),), differentiable=False)
row("amin_ravel_copy_diagonal_shape",
    lambda x: (np.amin(x, axis=0), np.ravel(x.T), np.copy(x), np.diagonal(x),
               np.shape(x)[0] * x.mT, np.diagonal(x.reshape(2, 3, 2), 1, 1, 2),
               np.diagonal(x.reshape(2, 3, 2), -1, 2, 0), x[None].diagonal(0, -1, -2),
               np.trace(x.reshape(2, 3, 2), axis1=1, axis2=2), x.trace(-1), np.diagonal(x, 9),
               np.trace(x.astype(np.int32).reshape(3, 2, 2), 1, 0, 2),
               np.trace(x.astype(np.int32)[None], 0, 1, 2, dtype=np.int16)),
    (C("f64[3,4]"),))
row("itemsize_nbytes", lambda x: x + x.itemsize + x.nbytes, (C("f32[2,3]"),))
row("pad_modes", lambda x: (np.pad(x, 1), np.pad(x, ((1, 2), (0, 3)),
                                                 constant_values=((1, 2), (3, 4))),
                             np.pad(x, 2, mode="edge"), np.pad(x, (5, 6), mode="wrap"),
                             np.pad(x, (4, 7), mode="reflect"),
                             np.pad(x, (5, 9), mode="symmetric")),
    (C("f64[3,4]"), C("i32[2,3]")))
row("dot_nd", lambda a, b: np.dot(a, b),
    (C("f64[2,3,4]", "f64[5,4,2]"), C("f64[2,3,4]", "f64[4]"), C("i32[4]", "i32[2,4,3]")))
row("take_along_axis",
    lambda x, i: (np.take_along_axis(x, i, axis=1), np.take(x, [5, -7, 2], mode="wrap"),
                  np.take(x, [[5], [-7]], axis=1, mode="clip"), x.take(i * 3, mode="wrap"),
                  np.take(x, i * 2, axis=0, mode="clip"), x.take([1, 2], 1),
                  np.real_if_close(x) * 2),
    (C("f64[3,4]", "i64[3,2]"),), domain=("real", "small"))
row("inner_vdot", lambda a, b: (np.inner(a, b), np.vdot(a, b)),
    (C("f64[5]", "f64[5]"), C("f64[2,3]", "f64[2,3]")))
row("hstack_vstack_column_stack", lambda a, b: (np.hstack([a, b]), np.vstack([a, b]),
                                                np.column_stack([a, b])),
    (C("f64[3]", "f64[3]"), C("f64[2,3]", "i32[2,3]")))
row("broadcast_arrays_moveaxis", lambda a, b: (*np.broadcast_arrays(a, b),
                                               np.moveaxis(a * b, 0, -1)),
    (C("f64[3,1]", "f64[4]"),))
row("ndim_size_result_type", lambda x: x * np.ndim(x) + np.size(x)
    + np.zeros((), np.result_type(x, np.float32)), (C("f64[3,4]"), C("i32[2]")))
row("trace_take", lambda x: (np.trace(x), np.trace(x, 1), np.trace(x, -2), x.trace(1),
                             np.take(x, [0, 3, -1], axis=1), np.take(x, [0, 7])),
    (C("f64[4,5]"), C("i32[3,4]")))

# ---------------------------------------------------------------- constructors

row("zeros", lambda x: x + np.zeros((3, 4)), (C("f32[3,4]"),))
row("zeros_dtype", lambda x: np.zeros(x.shape, dtype=x.dtype) - x, (C("i32[2,3]"),))
row("ones", lambda x: np.ones(3, dtype=np.int32) * x, (C("f32[2,3]"),))
row("full", lambda x: np.full((3, 4), 2.5) - x, (C("f64[3,4]"),))
row("full_int", lambda x: np.full(x.shape, 7, dtype=np.int64) // x, (C("i64[5]"),),
    domain="nonzero")
row("constructor_dtypes",
    lambda x: (np.zeros((2, 3), dtype=bool), np.ones(3, dtype=int) + x, np.full(2, True)),
    (C("i32[3]"),))
row("empty", lambda x: np.empty((x.shape[0], 2)), (C("f64[3,4]"),), check_values=False)
row("empty_dtype", lambda x: np.empty(x.shape, dtype=np.int32), (C("f32[2,5]"),),
    check_values=False)
row("zeros_like", lambda x: np.zeros_like(x) + 1, (C("f32[3,4]"), C("i32[4]")))
row("ones_like", lambda x: np.ones_like(x), (C("f64[3,4]"),))
row("full_like", lambda x: np.full_like(x, 2.5), (C("i32[3,4]"), C("f32[3]")))
row("arange", lambda x: x + np.arange(4), (C("f32[3,4]"), C("i32[4]")))
row("arange_float_step", lambda x: np.arange(1, 2, 0.25) * x, (C("f64[4]"),))
row("arange_column", lambda x: np.arange(x.shape[0])[:, None] * x, (C("f64[3,4]"),))
row("arange_dtype", lambda x: np.arange(5, dtype=np.float32) + x, (C("f32[5]"),))
row("eye", lambda x: np.eye(3) @ x, (C("f64[3,4]"),))
row("asarray_family", lambda x: (np.asarray(x) + 1, np.asanyarray(x) * 2,
                                 np.ascontiguousarray(x.T) - 1, np.asfortranarray(x) / 2),
    (C("f64[3,4]"),))
row("identity_tri_logspace_grids", lambda x: (
    np.identity(3) @ x, np.tri(3, 4) * x, np.logspace(0.0, 2.0, 4) + x,
    np.indices((3, 4))[0] * x, np.mgrid[0:3, 0:4][1] + x, np.ogrid[0:3, 0:4][0] * x),
    (C("f64[3,4]"),))
row("empty_like", lambda x: np.empty_like(x), (C("f64[3,4]"), C("i32[2]")), check_values=False,
    differentiable=False)
row("eye_offset", lambda x: x * np.eye(3, 4, k=1), (C("i32[3,4]"),))
row("linspace", lambda x: x * np.linspace(0, 1, 4), (C("f32[3,4]"),))
row("linspace_open", lambda x: np.linspace(-1.0, 1.0, 5, endpoint=False) + x,
    (C("f64[5]"),))

# ---------------------------------------------------------------- Python operators

row("op_add_int", lambda x: x + 1, (C("i32[3]"), C("u8[3]")))
row("op_radd_float", lambda x: 1.5 + x, (C("i64[3]"), C("f32[3]")))
row("op_rsub", lambda x: 2 - x, (C("i64[4]"),))
row("op_rtruediv", lambda x: 1.5 / x, (C("f32[4]"), C("i32[4]")), domain="nonzero")
row("op_rpow", lambda x: 2.0 ** x, (C("f64[5]"),), domain="small")
row("op_pow_int", lambda x: x ** 2, (C("f32[5]"), C("i32[5]")))
row("op_pow_half", lambda x: x ** 0.5, (C("f64[5]"),), domain="pos")
row("op_mod_int", lambda x: x % 3, (C("i32[8]"), C("f64[8]")))
row("op_rfloordiv", lambda x: 7 // x, (C("i64[8]"),), domain="nonzero")
row("op_rmod_float", lambda x: -7.5 % x, (C("f64[6]"),), domain="nonzero")
row("op_neg", lambda x: -x, (C("f64[3,4]", special=True),))
row("op_pos", lambda x: +x, (C("i32[3]"),))
row("op_abs", lambda x: abs(x), (C("f64[3,4]", special=True),))
row("op_invert", lambda x: ~x, (C("i32[4]"),), differentiable=False)
row("op_and", lambda x, y: x & y, BITWISE, differentiable=False)
row("op_or", lambda x, y: x | y, BITWISE[1:], differentiable=False)
row("op_xor", lambda x, y: x ^ y, BITWISE[:1], differentiable=False)
row("op_shifts", lambda x: (x << 2) + (x >> 1), (C("i64[5]"),), domain="nonneg",
    differentiable=False)
row("op_lt_scalar", lambda x: x < 0.5, (C("i32[5]"),), differentiable=False)
row("op_reflected_gt", lambda x: 0.5 < x, (C("f64[5]"),), differentiable=False)
row("op_compare_arrays", lambda x, y: (x == y, x != y, x >= y, x <= y, x > y),
    (C("f64[3,4]", "f64[4]", special=True),), differentiable=False)
row("op_chain", lambda x, y: 1 + x * 2 - 3 / y + x ** 2 / (1 + y * y),
    (C("f64[3,4]", "f64[4]"), C("f32[3]", "f32[3]")), domain=("real", "nonzero"))
row("op_unary_chain", lambda x: -abs(x) + +x, (C("i32[4]"),))

# ---------------------------------------------------------------- in-place on local copies

def _filled_copy(x):
    y = x.copy()
    y.fill(7)
    return y


def _iadd(x):
    y = x.copy()
    y += 1
    return y


def _imul_isub(x):
    y = x.copy()
    y *= x
    y -= 2.5
    return y


def _idiv(x):
    y = x.astype(np.float64)
    y /= 3
    return y


def _ifloordiv_imod(x):
    y = x.copy()
    y //= 2
    y %= 3
    return y


def _ipow(x):
    y = x.copy()
    y **= 2
    return y


def _islices(x):
    y = x.copy()
    y[1:] *= 2
    y[0] = -1
    y[:, -1] += y[:, 0]
    return y


def _icolumn(x):
    y = np.zeros_like(x)
    y[:, 1] = x[:, 0]
    return y


def _ibroadcast(x, y):
    z = x.copy()
    z += y
    return z


row("inplace_add", _iadd, (C("f64[3,4]"), C("i32[5]")))
row("inplace_mul_sub", _imul_isub, (C("f64[3,4]"),))
row("inplace_div_on_float_copy", _idiv, (C("i32[5]"),))
row("inplace_floordiv_mod", _ifloordiv_imod, (C("i64[6]"),),
    differentiable=False)
row("inplace_pow", _ipow, (C("f32[5]"),))
row("inplace_slices", _islices, (C("f64[3,4]"),))
row("inplace_column_from_input", _icolumn, (C("f64[3,4]"), C("i32[2,3]")))
row("inplace_broadcast_add", _ibroadcast, (C("f64[3,4]", "f64[4]"),))


# ---------------------------------------------------------------- methods

row("method_sum", lambda x: x.sum(), (C("i32[5]"),), tol=R)
row("method_mean_axis0", lambda x: x.mean(axis=0), (C("f64[3,4]"),), tol=R)
row("method_reshape_tuple", lambda x: x.reshape((2, -1)), (C("f64[3,4]"),))
row("method_astype", lambda x: x.astype(np.float32) * 2, (C("i64[4]"),))
row("method_copy", lambda x: x.copy(), (C("bool[3]"),))
row("method_fill", _filled_copy, (C("f64[3,4]"), C("i32[2]")), differentiable=False)
row("method_ravel", lambda x: x.ravel(), (C("f64[2,3,2]"),))
row("method_ravel_of_transpose", lambda x: x.T.ravel(), (C("f64[3,4]"),))
row("method_flatten", lambda x: x.flatten(), (C("i32[2,3]"),))
row("method_max", lambda x: x.max(), (C("i32[2,3]"),))
row("method_max_axis", lambda x: x.max(axis=0, keepdims=True), (C("f32[3,4]"),))
row("method_min", lambda x: x.min(), (C("f64[3,4]"),))
row("method_clip", lambda x: x.clip(-0.5, 0.5), (C("f64[3,4]"),))
row("method_clip_min_only", lambda x: x.clip(min=0), (C("i32[5]"),))
row("method_dot_2d", lambda a, b: a.dot(b), (C("f64[3,4]", "f64[4,2]"),), tol=R)
row("method_prod", lambda x: x.prod(axis=1), (C("f64[3,4]"),), domain="small", tol=R)
row("method_std_var", lambda x: (x.std(), x.var(ddof=1)), (C("f64[3,4]"),), tol=R)
row("method_argmax", lambda x: x.argmax(), (C("f64[3,4]"),), differentiable=False)
row("method_any_all", lambda x: (x.any(), x.all(axis=0)), (C("bool[3,4]"),),
    domain="mostly_true", differentiable=False)
row("method_squeeze_transpose", lambda x: x.squeeze().transpose(), (C("f64[1,3,4]"),))
row("method_chain", lambda x: x.reshape(2, 6).T.sum(axis=1).astype(np.float32),
    (C("f64[3,4]"),), tol=R)

# ---------------------------------------------------------------- complex numbers
# (gradients in JAX's convention; complex_order's ops have no complex VJP rules)

COMPLEX = (C("c128[3,4]", special=True), C("c64[5]"))
row("complex_arithmetic",
    lambda z, w: (z + w, z - w, z * w, z / w, -z, z * 2.5, z / (1 - 2j), 3 / z),
    (C("c128[3,4]", "c128[3,4]", special=True), C("c64[5]", "c64[5]"),
     C("c64[5]", "f64[5]"), C("f32[2,3]", "c64[2,3]")))
row("complex_functions",
    lambda z: (np.exp(z), np.log(z), np.log2(z), np.log10(z), np.log1p(z), np.expm1(z),
               np.sqrt(z), np.sin(z),
               np.cos(z), np.tan(z),
               np.sinh(z), np.cosh(z), np.tanh(z), np.square(z), z ** 2, np.exp2(z)),
    COMPLEX, tol=8.0)
# (a complex power at an infinite base differs from NumPy's: docs/differences.md)
row("complex_power", lambda z, w: (z ** 0.5, z ** w, z ** 3, 2.0 ** z),
    (C("c128[3,4]", "c128[3,4]"), C("c64[5]", "c64[5]")), tol=64.0)
row("complex_parts",
    lambda z: (np.abs(z), np.real(z), np.imag(z), z.real, z.imag, np.conjugate(z),
               np.conj(z), z.conj(), z.conjugate(), np.angle(z), np.angle(z, deg=True),
               np.iscomplex(z), np.isreal(z), np.round(z), np.round(z, 2), np.around(z, 1),
               z.round(1), np.nan_to_num(z), np.nan_to_num(z, nan=-1.0, posinf=7.0),
               np.rint(z)),
    (*COMPLEX, C("f64[4]"), C("i32[3]")))
row("conjugate", lambda x: np.conjugate(x), (C("f64[3,4]"), C("c128[4]", special=True)))
row("complex_predicates",
    lambda z, w: (z == w, z != w, np.isnan(z), np.isinf(z), np.isfinite(z),
                  np.logical_not(z), np.where(np.abs(z) > 1, z, w)),
    (C("c128[3,4]", "c128[3,4]", special=True),))
row("complex_order",
    lambda z, w: (z < w, z <= w, z > w, z >= w, np.maximum(z, w), np.minimum(z, w),
                  np.fmax(z, w), np.fmin(z, w), z.max(), z.min(axis=-1), np.argmax(z),
                  np.argmin(z, axis=-1), np.sort(w, kind="stable"), np.sign(z),
                  np.argsort(z, axis=0, kind="stable"), np.maximum.accumulate(z),
                  np.minimum.accumulate(w, axis=-1), np.median(z), np.median(w, axis=0),
                  np.searchsorted(np.sort(z.ravel()), w),
                  np.searchsorted(np.sort(w.ravel()), z, side="right")),
    (C("c128[3,4]", "c128[3,4]", special=True), C("c64[5]", "c64[5]")),
    differentiable=False)
row("complex_reductions",
    lambda z: (z.sum(), z.sum(axis=0), np.prod(z, axis=1), z.mean(), np.var(z),
               np.std(z, axis=0), np.linalg.norm(z), np.cumsum(z), np.cumprod(z, axis=1),
               np.any(z), np.all(z, axis=1)),
    (C("c128[3,4]"), C("c64[2,3]")), tol=64.0)
row("complex_products",
    lambda a, b, v: (a @ b, a @ v, v @ b, v @ v, np.dot(a, b), np.vdot(v, v[::-1]),
                     np.inner(v, v[::-1]), np.einsum("ij,jk->ik", a, b), np.cov(a),
                     np.correlate(v, v[:2], "full"), np.correlate(v[:2], v, "same"),
                     np.convolve(v, v[:3]), np.outer(v, v)),
    (C("c128[3,4]", "c128[4,2]", "c128[4]"), C("c64[2,4]", "c64[4,3]", "c64[4]"),
     C("c128[3,4]", "f64[4,2]", "c128[4]")), tol=8.0)
row("complex_casts",
    lambda z, x: (z.astype(np.complex64), x.astype(np.complex128), x + 1j, x * (2 + 0.5j),
                  np.full(x.shape, 1 - 1j) * x, np.zeros_like(z) + x),
    (C("c128[4]", "f32[4]"), C("c64[2,2]", "i32[2,2]")))


# ---------------------------------------------------------------- bookkeeping

_names = [r.name for r in ROWS]
assert len(_names) == len(set(_names)), "duplicate op table row names"


def n_compiles() -> int:
    """How many distinct numba specialisations the op table costs."""
    return sum(len(r.cases) for r in ROWS)
