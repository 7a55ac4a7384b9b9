"""jitaic.lower.vecmath: special values bit for bit, ulp error, vectorisation."""

from __future__ import annotations

import functools
import os
import subprocess
import sys

import llvmlite.binding as llvm
import numba
import numpy as np
import pytest

from jitaic.lower.vecmath import VECTOR_MATH

NAMES = ("exp", "expm1", "log", "log1p", "tanh")
DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
CASES = [(n, d) for n in NAMES for d in DTYPES]
IDS = [f"{n}-{d.name}" for n, d in CASES]
WIDE_LONGDOUBLE = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant


@functools.cache
def loop(name: str, dtype: np.dtype):
    """One compiled ``out[i] = f(x[i])`` loop per function and dtype."""
    f = VECTOR_MATH[name][dtype]

    @numba.njit(error_model="numpy")
    def run(x, out):
        for i in range(x.size):
            out[i] = f(x[i])
    return run


def apply(name: str, x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    loop(name, x.dtype)(x, out)
    return out


def numpy_ref(name: str, x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return getattr(np, name)(x)


def exact_ref(name: str, x: np.ndarray) -> np.ndarray | None:
    """The result rounded from higher precision (None where none is available)."""
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            return getattr(np, name)(x.astype(np.float64)).astype(np.float32)
        if WIDE_LONGDOUBLE:
            return getattr(np, name)(x.astype(np.longdouble)).astype(np.float64)
    return None


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    it = np.int64 if a.dtype == np.float64 else np.int32

    def ordered(v):
        i = v.view(it).astype(np.int64)
        return np.where(i < 0, np.int64(np.iinfo(it).min) - i, i)

    d = np.abs(ordered(a) - ordered(b)).astype(np.float64)
    d[np.isnan(a) & np.isnan(b)] = 0.0
    d[np.isnan(a) != np.isnan(b)] = np.inf
    return d


def kind(a: np.ndarray) -> np.ndarray:
    """NaN 0, inf 1, zero 2, subnormal 3, normal 4; negated for a set sign bit."""
    k = np.select([np.isnan(a), np.isinf(a), a == 0, np.abs(a) < np.finfo(a.dtype).tiny],
                  [0, 1, 2, 3], 4)
    return np.where(np.isnan(a), 0, np.where(np.signbit(a), -k, k))


def assert_bitwise(got: np.ndarray, want: np.ndarray, x: np.ndarray) -> None:
    u = f"u{got.dtype.itemsize}"
    same = (got.view(u) == want.view(u)) | (np.isnan(got) & np.isnan(want))
    bad = [(float(a), float(b), float(c)) for a, b, c, ok in zip(x, got, want, same) if not ok]
    assert not bad, f"(x, got, NumPy) differ: {bad[:10]}"


def assert_ulp_bounds(got: np.ndarray, want: np.ndarray, ref: np.ndarray | None,
                      x: np.ndarray, vs_numpy: int, vs_exact: int) -> None:
    """Same kinds of result as NumPy, within ``vs_numpy`` ulp of NumPy and
    ``vs_exact`` of the correctly rounded result (where one is available)."""
    np.testing.assert_array_equal(kind(got), kind(want))
    d = ulp_distance(got, want)
    assert d.max() <= vs_numpy, f"max {d.max()} ulp at x={x[np.argmax(d)]!r}"
    if ref is not None:
        d = ulp_distance(got, ref)
        assert d.max() <= vs_exact, f"max {d.max()} ulp from exact at x={x[np.argmax(d)]!r}"


# Inputs whose results are exact (0, -0, +-inf, NaN, 1, -1, x itself) and
# so must agree with NumPy bit for bit, for both dtypes.
def special_inputs(name: str, dtype: np.dtype) -> np.ndarray:
    fi = np.finfo(dtype)
    sub = [float(fi.smallest_subnormal), float(fi.tiny) / 3, float(fi.tiny) * (1 - fi.eps)]
    common = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan]
    table = {
        "exp": common + [1000.0, -1000.0, 710.0, -746.0, 1e-30, -1e-30]
        + sub + [-v for v in sub],
        "expm1": common + [1000.0, 710.0, -40.0, -1000.0, 1e-30, -1e-30]
        + sub + [-v for v in sub],
        "log": common + [1.0, -1.0, -1e-30, -float(fi.max)] + [-v for v in sub],
        "log1p": common + [-1.0, -2.0, -1.5, -float(fi.max), 1e-30, -1e-30]
        + sub + [-v for v in sub],
        "tanh": common + [20.0, -20.0, 1000.0, -1000.0, 19.1, -19.1, 1e-30,
                          -1e-30, float(fi.max), -float(fi.max)] + sub + [-v for v in sub],
    }
    if dtype == np.float32:   # float32 overflow / saturation points
        table["exp"] += [89.0, -104.0]
        table["expm1"] += [89.0, -18.0]
        table["tanh"] += [10.0, -10.0]
    return np.array(table[name], dtype=dtype)


@pytest.mark.parametrize("name, dtype", CASES, ids=IDS)
def test_special_values_bitwise(name, dtype):
    x = special_inputs(name, dtype)
    assert_bitwise(apply(name, x), numpy_ref(name, x), x)


# Overflow/underflow edges: within +-4 ulp of each input the kind of result
# (inf, 0, subnormal, normal, sign) must match NumPy and values be within 1 ulp
# of the correctly rounded result.
EDGES = {
    "exp": {np.float64: [709.782712893384, -708.3964185322641, -745.1332191019411,
                         -744.4400719213812, 0.0],
            np.float32: [88.72283, -87.33654, -103.97208, -103.27893, 0.0]},
    "expm1": {np.float64: [709.782712893384, -37.42994775023705, 0.0],
              np.float32: [88.72283, -17.32868, 0.0]},
    "log": {np.float64: [2.2250738585072014e-308, 1.0, 0.0],
            np.float32: [1.1754944e-38, 1.0, 0.0]},
    "log1p": {np.float64: [-1.0, 0.0, 1e300], np.float32: [-1.0, 0.0, 1e30]},
    "tanh": {np.float64: [19.061547465398498, -19.061547465398498, 0.0],
             np.float32: [9.010913, -9.010913, 0.0]},
}


def around(values, dtype, k=4) -> np.ndarray:
    xs = np.array(values, dtype=dtype)
    out = [xs]
    up, down = xs.copy(), xs.copy()
    for _ in range(k):
        up = np.nextafter(up, np.array(np.inf, dtype))
        down = np.nextafter(down, np.array(-np.inf, dtype))
        out += [up, down]
    return np.concatenate(out)


@pytest.mark.parametrize("name, dtype", CASES, ids=IDS)
def test_edges(name, dtype):
    x = around(EDGES[name][dtype.type], dtype)
    got, want = apply(name, x), numpy_ref(name, x)
    np.testing.assert_array_equal(kind(got), kind(want), err_msg=f"{name} {dtype} {x}")
    ref = exact_ref(name, x)
    if ref is not None:
        assert ulp_distance(got, ref).max() <= 1


def random_inputs(name: str, dtype: np.dtype, n: int, seed: int) -> np.ndarray:
    """Random bit patterns, log-uniform magnitudes over the whole range, the
    region near 0, and where the function is delicate."""
    rng = np.random.default_rng(seed)
    q = n // 4
    ut = np.uint64 if dtype == np.float64 else np.uint32
    bits = rng.integers(0, np.iinfo(ut).max, q, dtype=ut, endpoint=True).view(dtype)
    fi = np.finfo(dtype)
    mag = np.exp2(rng.uniform(np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max)),
                              q)).astype(dtype)
    logu = np.where(rng.random(q) < 0.5, -mag, mag)
    near0 = (rng.uniform(-1, 1, q) * 2.0 ** rng.uniform(-40, 0, q)).astype(dtype)
    lo, hi = {"exp": (-750, 712), "expm1": (-3, 3), "log": (0.5, 2), "log1p": (-1, 1),
              "tanh": (-3, 3)}[name]
    return np.concatenate([bits, logu, near0, rng.uniform(lo, hi, n - 3 * q).astype(dtype)])


# Measured maxima (benchmarks/vecmath_accuracy.py, 1e7 points) are 1 ulp from
# the correctly rounded result (2 for tanh where llvm.fmuladd does not fuse);
# against NumPy 2 (float64: NumPy's own error adds) and 4 (float32: NumPy's
# SIMD exp/log are 2-3 ulp off themselves). The bounds leave an ulp of slack.
@pytest.mark.parametrize("name, dtype", CASES, ids=IDS)
def test_ulp_error(name, dtype):
    x = random_inputs(name, dtype, 100_000, seed=NAMES.index(name) * 2 + (dtype == np.float32))
    assert_ulp_bounds(apply(name, x), numpy_ref(name, x), exact_ref(name, x), x,
                      vs_numpy=3 if dtype == np.float64 else 4, vs_exact=2)


@pytest.mark.parametrize("name, dtype", CASES, ids=IDS)
def test_loop_vectorises(name, dtype):
    run = loop(name, dtype)
    run(np.ones(4, dtype), np.empty(4, dtype))
    ir = run.inspect_llvm(run.signatures[0])
    lane = "double" if dtype == np.float64 else "float"
    assert f"x {lane}>" in ir, "the loop was not vectorised"


_LOG1P64, _EXP64 = VECTOR_MATH["log1p"][DTYPES[0]], VECTOR_MATH["exp"][DTYPES[0]]


@numba.njit  # default error model ("python"), two composed calls
def _softplus_loop(x, out):
    for i in range(x.size):
        out[i] = _LOG1P64(_EXP64(x[i])) / 2.0


def test_nested_call_under_python_error_model_vectorises():
    x = np.linspace(-30.0, 30.0, 1001)
    out = np.empty_like(x)
    _softplus_loop(x, out)
    np.testing.assert_allclose(out, np.log1p(np.exp(x)) / 2.0, rtol=5e-16, atol=0)
    assert "x double>" in _softplus_loop.inspect_llvm(_softplus_loop.signatures[0])


def test_callable_from_python_and_table():
    assert set(VECTOR_MATH) == set(NAMES) | {"power", "sin", "cos", *ARC}
    for name in (*NAMES, "power", *ARC):
        assert set(VECTOR_MATH[name]) == set(DTYPES)
    assert set(VECTOR_MATH["sin"]) == set(VECTOR_MATH["cos"]) == {DTYPES[1]}
    exp64, exp32 = VECTOR_MATH["exp"][DTYPES[0]], VECTOR_MATH["exp"][DTYPES[1]]
    assert exp64(1.0) == np.exp(1.0)
    # Correctly rounded; NumPy's float32 SIMD exp(1) is an ulp above.
    assert np.float32(exp32(np.float32(1.0))) == np.float32(np.exp(1.0))


# --- pow ----------------------------------------------------------------------------


@functools.cache
def loop2(name: str, dtype: np.dtype):
    """One compiled ``out[i] = f(a[i], b[i])`` loop per function of two arguments."""
    f = VECTOR_MATH[name][dtype]

    @numba.njit(error_model="numpy")
    def run(a, b, out):
        for i in range(a.size):
            out[i] = f(a[i], b[i])
    return run


def apply2(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty_like(a)
    loop2(name, a.dtype)(a, b, out)
    return out


def apply_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return apply2("power", x, y)


@pytest.mark.parametrize("dtype", DTYPES, ids=[d.name for d in DTYPES])
def test_pow_special_values_bitwise(dtype):
    """Every pair of C99 Annex F's special operands (signed zeros, infinities,
    NaN, +-1, odd/even/non-integer and huge y, subnormal and huge x)."""
    fi = np.finfo(dtype)
    v = [0.0, np.inf, np.nan, 1.0, 0.5, 2.0, 3.0, 0.25, 2.5, 1e-30, 1e30,
         2.0 ** (fi.nmant + 1), 2.0 ** (fi.nmant + 1) + 2, 2.0 ** fi.nmant + 1,
         float(fi.smallest_subnormal), float(fi.max), float(fi.tiny), 1024.0, 1075.0, -1074.0]
    v = np.array(v + [-a for a in v], dtype=dtype)
    x, y = (a.ravel() for a in np.meshgrid(v, v))
    got = apply_pow(x, y)
    with np.errstate(all="ignore"):
        want = np.power(x, y)
    np.testing.assert_array_equal(kind(got), kind(want))
    exact = np.isnan(want) | np.isinf(want) | (want == 0) | (np.abs(want) == 1)
    assert_bitwise(got[exact], want[exact], x[exact])
    assert ulp_distance(got, want).max() <= 1


def pow_inputs(n: int, dtype: np.dtype, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Ordinary operands, the whole exponent range, results near overflow and
    underflow (where a one-word log would be hundreds of ulp off), bases near
    1 with huge exponents, negative bases with integer exponents, bit patterns."""
    rng = np.random.default_rng(seed)
    q = n // 6
    fi = np.finfo(dtype)
    top = np.log(float(fi.max))
    ut = np.uint64 if dtype == np.float64 else np.uint32
    near = rng.uniform(1.5, 3.0, q)
    sets = [
        (rng.uniform(0, 10, q), rng.uniform(-10, 10, q)),
        (np.exp2(rng.uniform(np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max)), q)),
         rng.uniform(-1, 1, q)),
        (near, (1 + rng.uniform(-0.01, 0.01, q)) * top / np.log(near)
         * rng.choice([-1.05, 1.0], q)),
        (1 + rng.uniform(-1e-3, 1e-3, q), rng.uniform(-1e4, 1e4, q)),
        (-rng.uniform(0, 10, q), rng.integers(-30, 30, q).astype(np.float64)),
        tuple(rng.integers(0, np.iinfo(ut).max, q, dtype=ut).view(dtype) for _ in range(2)),
    ]
    with np.errstate(invalid="ignore", over="ignore"):   # NaN bit patterns round-trip
        return tuple(np.concatenate(parts).astype(dtype) for parts in zip(*sets))


# Measured (benchmarks/vecmath_accuracy.py, 1e7 pairs): 1 ulp from NumPy and
# from the exact result; the bounds leave an ulp of slack.
@pytest.mark.parametrize("dtype", DTYPES, ids=[d.name for d in DTYPES])
def test_pow_ulp_error(dtype):
    x, y = pow_inputs(120_000, dtype, seed=11)
    got = apply_pow(x, y)
    with np.errstate(all="ignore"):
        want = np.power(x, y)
        wide = np.float64 if dtype == np.float32 else np.longdouble
        ref = np.power(x.astype(wide), y.astype(wide)).astype(dtype)
    np.testing.assert_array_equal(kind(got), kind(want))
    d = ulp_distance(got, want)
    assert d.max() <= 2, f"max {d.max()} ulp at x={x[np.argmax(d)]!r}, y={y[np.argmax(d)]!r}"
    if dtype == np.float32 or WIDE_LONGDOUBLE:
        assert ulp_distance(got, ref).max() <= 2


@pytest.mark.parametrize("dtype", DTYPES, ids=[d.name for d in DTYPES])
def test_pow_loop_vectorises(dtype):
    run = loop2("power", dtype)
    x = np.ones(4, dtype)
    run(x, x, np.empty(4, dtype))
    assert "x double>" in run.inspect_llvm(run.signatures[0])


# --- sin / cos (float32) -------------------------------------------------------------

TRIG = ("sin", "cos")


@pytest.mark.parametrize("name", TRIG)
def test_trig_special_values_bitwise(name):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754944e-38,
                  3.4028235e38, -3.4028235e38], np.float32)
    assert_bitwise(apply(name, x), numpy_ref(name, x), x)


def trig_inputs(n: int, seed: int) -> np.ndarray:
    """Ordinary arguments, every binade up to float32's largest (the reduction
    uses 2/pi to hundreds of bits there), multiples of pi/2 (where the
    reduction cancels), and random bit patterns."""
    rng = np.random.default_rng(seed)
    q = n // 4
    with np.errstate(over="ignore", invalid="ignore"):
        return np.concatenate([
            rng.uniform(-10, 10, q),
            np.exp2(rng.uniform(-149, 128, q)) * rng.choice([-1.0, 1.0], q),
            np.arange(1, q + 1) * (np.pi / 2),
            rng.integers(0, 2 ** 32 - 1, n - 3 * q, dtype=np.uint32).view(np.float32),
        ]).astype(np.float32)


# Measured (benchmarks/vecmath_accuracy.py, 1e7 points): 1 ulp from the
# correctly rounded result and from NumPy's SIMD versions.
@pytest.mark.parametrize("name", TRIG)
def test_trig_ulp_error_over_the_whole_range(name):
    x = trig_inputs(120_000, seed=TRIG.index(name) + 40)
    got = apply(name, x)
    np.testing.assert_array_equal(kind(got), kind(numpy_ref(name, x)))
    d = ulp_distance(got, exact_ref(name, x))
    assert d.max() <= 1, f"max {d.max()} ulp at x={x[np.argmax(d)]!r}"
    assert ulp_distance(got, numpy_ref(name, x)).max() <= 2


@pytest.mark.parametrize("name", TRIG)
def test_trig_loop_vectorises(name):
    run = loop(name, DTYPES[1])
    run(np.ones(4, np.float32), np.empty(4, np.float32))
    assert "x double>" in run.inspect_llvm(run.signatures[0])


# --- arctan, arcsin, arccos, arctan2 -------------------------------------------------

ARC = ("arctan", "arcsin", "arccos", "arctan2")
ARC_CASES = [(n, d) for n in ARC[:3] for d in DTYPES]
ARC_IDS = [f"{n}-{d.name}" for n, d in ARC_CASES]


def apply_atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    return apply2("arctan2", y, x)


@pytest.mark.parametrize("name, dtype", ARC_CASES, ids=ARC_IDS)
def test_arc_special_values_bitwise(name, dtype):
    """Signed zeros, +-1 (arcsin/arccos's ends: +-pi/2, 0, pi), outside [-1, 1]
    (NaN), infinities, subnormals (arctan and arcsin return them)."""
    fi = np.finfo(dtype)
    v = [0.0, np.inf, np.nan, 1.0, float(fi.smallest_subnormal), float(fi.tiny),
         float(fi.max)] + ([] if name == "arctan" else [1.5, np.nextafter(1.0, 2.0)])
    x = np.array(v + [-a for a in v], dtype=dtype)
    assert_bitwise(apply(name, x), numpy_ref(name, x), x)


@pytest.mark.parametrize("dtype", DTYPES, ids=[d.name for d in DTYPES])
def test_arctan2_special_pairs_bitwise(dtype):
    """C99 Annex F: every pair of signed zeros, infinities and NaN with each
    other and with ordinary, subnormal and huge values (+-0, +-pi/4, +-pi/2,
    +-3pi/4, +-pi or NaN, all correctly rounded)."""
    fi = np.finfo(dtype)
    v = [0.0, np.inf, np.nan, 1.0, 2.5, float(fi.smallest_subnormal), float(fi.max)]
    v = np.array(v + [-a for a in v], dtype=dtype)
    y, x = (a.ravel() for a in np.meshgrid(v, v))
    special = ~np.isfinite(y) | ~np.isfinite(x) | (y == 0) | (x == 0)
    got = apply_atan2(y, x)
    want = np.arctan2(y, x)
    assert_bitwise(got[special], want[special], np.stack([y, x], 1)[special].tolist())
    assert ulp_distance(got, want).max() <= 1


def arc_inputs(name: str, n: int, dtype: np.dtype, seed: int) -> np.ndarray:
    """Random bit patterns, every binade, the interval arcsin/arccos are
    defined on, and the neighbourhood of +-1 (where 1 - x*x cancels)."""
    rng = np.random.default_rng(seed)
    q = n // 4
    fi = np.finfo(dtype)
    ut = np.uint64 if dtype == np.float64 else np.uint32
    with np.errstate(over="ignore", invalid="ignore"):
        return np.concatenate([
            rng.integers(0, np.iinfo(ut).max, q, dtype=ut).view(dtype),
            np.exp2(rng.uniform(np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max)),
                                q)) * rng.choice([-1.0, 1.0], q),
            rng.uniform(-1, 1, q),
            rng.choice([-1.0, 1.0], n - 3 * q)
            * (1 - np.exp2(rng.uniform(-fi.nmant, -1, n - 3 * q))),
        ]).astype(dtype)


# Measured (benchmarks/vecmath_accuracy.py, 1e7 points): float64 within 2 ulp
# of NumPy and of the correctly rounded result (the ratio and sqrt round
# before the polynomial); float32 1 ulp from the correctly rounded result and
# 3 from NumPy's SIMD versions (2 ulp off themselves). An ulp of slack.
@pytest.mark.parametrize("name, dtype", ARC_CASES, ids=ARC_IDS)
def test_arc_ulp_error(name, dtype):
    x = arc_inputs(name, 120_000, dtype, seed=ARC.index(name) + 50)
    assert_ulp_bounds(apply(name, x), numpy_ref(name, x), exact_ref(name, x), x,
                      vs_numpy=3 if dtype == np.float64 else 4,
                      vs_exact=3 if dtype == np.float64 else 2)


@pytest.mark.parametrize("dtype", DTYPES, ids=[d.name for d in DTYPES])
def test_arctan2_ulp_error(dtype):
    rng = np.random.default_rng(60)
    y = np.concatenate([arc_inputs("arctan2", 60_000, dtype, 61),
                        rng.standard_normal(60_000).astype(dtype)])
    x = np.concatenate([arc_inputs("arctan2", 60_000, dtype, 62),
                        rng.standard_normal(60_000).astype(dtype)])
    got = apply_atan2(y, x)
    with np.errstate(all="ignore"):
        want = np.arctan2(y, x)
        wide = np.float64 if dtype == np.float32 else np.longdouble
        ref = np.arctan2(y.astype(wide), x.astype(wide)).astype(dtype)
    assert_ulp_bounds(got, want, ref if dtype == np.float32 or WIDE_LONGDOUBLE else None,
                      np.stack([y, x], 1), vs_numpy=3 if dtype == np.float64 else 4,
                      vs_exact=3 if dtype == np.float64 else 2)


@pytest.mark.parametrize("name, dtype", ARC_CASES, ids=ARC_IDS)
def test_arc_loop_vectorises(name, dtype):
    run = loop(name, dtype)
    run(np.ones(4, dtype), np.empty(4, dtype))
    assert "x double>" in run.inspect_llvm(run.signatures[0])


# Older x86-64 targets for the test below: LLVM picks the vector width per
# CPU (AVX-512 here, 256-bit AVX2 or 128-bit SSE elsewhere), and the
# algorithms must keep their accuracy and special values at each width (and
# without FMA).
_TARGETS = {
    "haswell": "+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+f16c,+fma,+fsgsbase,+lzcnt,+mmx,"
               "+movbe,+popcnt,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave",
    "nehalem": "+64bit,+cmov,+cx16,+mmx,+popcnt,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3",
}
_ON_TARGET = "JITAIC_TEST_VECMATH_TARGET"


@pytest.mark.skipif(bool(os.environ.get(_ON_TARGET)), reason="already on a chosen target")
@pytest.mark.parametrize("cpu", sorted(_TARGETS))
def test_this_module_passes_compiled_for_an_older_cpu(cpu):
    host = llvm.get_host_cpu_features()
    needed = [f[1:] for f in _TARGETS[cpu].split(",") if f not in ("+64bit", "+mmx")]
    if not all(host.get(feature) for feature in needed):
        pytest.skip(f"this CPU cannot run code compiled for {cpu}")
    env = {**os.environ, "NUMBA_CPU_NAME": cpu, "NUMBA_CPU_FEATURES": _TARGETS[cpu],
           _ON_TARGET: cpu, "JITAIC_CACHE_DIR": "off"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           __file__], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]


def test_the_chosen_target_is_compiled_for():
    cpu = os.environ.get(_ON_TARGET)
    if not cpu:
        pytest.skip("runs on the targets of the test above")
    run = loop("exp", np.dtype(np.float64))
    run(np.ones(4), np.empty(4))
    asm = run.inspect_asm(run.signatures[0])
    assert "zmm" not in asm and (("ymm" in asm) == (cpu == "haswell"))
