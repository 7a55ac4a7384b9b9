"""Complex numbers end to end: arguments and results, NumPy's promotion,
Python complex scalars, control flow on complex values, and clear refusals
where jitaic does not compute complex values yet. The op table
(``complex_*`` rows) checks each operation's values against NumPy, and
test_autodiff.py their gradients."""

from __future__ import annotations

import operator
import re

import numpy as np
import pytest
from helpers import assert_same, copy_tree, finite_difference

import jitaic
from jitaic.ir import ops
from jitaic.ir.types import TensorType


def _same_as_numpy(fn, *args, **options):
    with np.errstate(all="ignore"):
        want = fn(*args)
        got = jitaic.jit(fn, **options)(*args)
    assert_same(got, want)
    return got


def promotions(z64, x64, x32, n):
    return (z64 + x64, x32 * 1j, x32 * (2 - 1j), z64 * 2.0, n * 1j, z64 + (1 + 1j), x64 + 0j)


def test_promotion_follows_numpy():
    z64 = np.array([1 + 2j, -3j], np.complex64)
    x64, x32 = np.array([0.5, 2.0]), np.array([1.5, -2.0], np.float32)
    got = _same_as_numpy(promotions, z64, x64, x32, np.array([1, 2], np.int32))
    assert [g.dtype for g in got] == [np.complex128, np.complex64, np.complex64,
                                      np.complex64, np.complex128, np.complex64,
                                      np.complex128]


def scale(z, c):
    return z * c, (z * c).sum(), z[0]


def test_python_complex_arguments_and_scalar_results():
    z = np.array([1 + 2j, 3 - 1j, -0.5j])
    got = _same_as_numpy(scale, z, 2 - 3j)
    assert type(got[1]) is np.complex128 and type(got[2]) is np.complex128


def test_division_by_zero_and_special_values_are_numpys_bit_for_bit():
    values = np.array([0, -0.0, 1, np.inf, -np.inf, np.nan, 1e-310, 3.5])
    a = np.vectorize(complex)(values[:, None], values[None, :]).ravel()
    z, w = np.meshgrid(a, a)
    with np.errstate(all="ignore"):
        want = z / w
    got = jitaic.jit(lambda z, w: z / w)(z, w)
    np.testing.assert_array_equal(got.view(np.float64), want.view(np.float64))


def moments(z):
    return z.sum(), z.sum(axis=-1), z.mean(axis=0), np.var(z), (z * 2).sum(), z[1:].sum()


@pytest.mark.parametrize("shape", [(70,), (3, 5000), (4, 50, 30), (70_000,)])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_sums_means_and_variances_are_numpys_bit_for_bit(shape, dtype, rng):
    """NumPy sums complex values pairwise, splitting them as a float sum of
    their 2n parts; long rows go through several chunks (subtrees)."""
    parts = rng.standard_normal((2, *shape)) * 10.0 ** rng.integers(-6, 6, (2, *shape))
    z = (parts[0] + 1j * parts[1]).astype(dtype)
    for got, want in zip(jitaic.jit(moments)(z), moments(z), strict=True):
        np.testing.assert_array_equal(got, want)


def escape_times(c, limit):
    """A Mandelbrot set, as public benchmark suites write it."""
    counts = np.zeros(c.shape, np.int64)
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            z = 0j
            k = 0
            while k < limit and abs(z) <= 2.0:
                z = z * z + c[i, j]
                k += 1
            counts[i, j] = k
    return counts


def test_an_escape_time_loop_over_complex_values():
    x, y = np.linspace(-2.0, 0.6, 13), np.linspace(-1.2, 1.2, 9)
    c = x[None, :] + 1j * y[:, None]
    got = _same_as_numpy(escape_times, c, 40, mode="ast")
    assert got.max() == 40 and got.min() < 5


def _near_magnitude(c: float, dtype: np.dtype) -> np.ndarray:
    """Complex values of magnitude c, within a few ulp of it and on either
    side, on several angles; and the special values."""
    part = np.finfo(np.dtype(dtype).char.lower())
    rng = np.random.default_rng(7)
    radii = c * (1.0 + part.eps * rng.uniform(-3.0, 3.0, 5000))
    z = radii * np.exp(2j * np.pi * rng.random(5000))
    specials = [complex(c, 0), complex(0, -c), np.nan, complex(np.nan, 1), np.inf,
                complex(np.inf, np.nan), complex(np.nan, -np.inf), complex(-np.inf, 0), 0,
                1e-300, complex(0, 1e300), complex(3e38, 3e38), complex(1e-45, -1e-45)]
    with np.errstate(over="ignore"):
        return np.concatenate([z, np.array(specials)]).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("c", [2.0, 0.1, 1e-30, 1e30, 2.0 ** -460, np.float32(0.1)],
                         ids=["2", "0.1", "1e-30", "1e30", "2**-460", "float32 0.1"])
def test_comparisons_of_a_magnitude_with_a_constant_are_numpys(dtype, c):
    """|z| < c and friends test re**2 + im**2 first (cm.magnitude_compare):
    on each side of c, at c and a few ulp from it, at NaN and inf, the
    decision is NumPy's."""
    def compare(z1, z2, z3, z4, z5, z6):  # a magnitude each: no CSE between them
        return (np.abs(z1) < c, np.abs(z2) <= c, np.abs(z3) > c, np.abs(z4) >= c,
                c < np.abs(z5), c >= np.abs(z6))

    z = [_near_magnitude(float(c), dtype) for _ in range(6)]  # (one object: one argument)
    jitted = jitaic.jit(compare)
    if 2.0 ** -450 <= c:  # (a square that underflows: |z| decides alone)
        assert jitted.lower(*z).source().count("cm.magnitude_compare(") == 6
    got, want = jitted(*z), compare(*z)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_an_escape_time_test_computes_no_magnitude_away_from_its_bound():
    source = jitaic.jit(lambda z: np.abs(z) < 2.0).lower(np.ones(5, complex)).source()
    assert "cm.magnitude_compare(" in source and "cm.absolute(" not in source


def escape_count(c, maxiter):
    z = 0j
    n = 0
    while abs(z) <= 2.0 and n < maxiter:
        z = z * z + c
        n += 1
    return n


def escape_count_of_the_ufunc(c, maxiter):
    z = 0j
    n = 0
    while np.abs(z) <= 2.0 and n < maxiter:
        z = z * z + c
        n += 1
    return n


ESCAPING = [0.25 + 0j, -2 + 0j, 2 + 0j, 0.3 + 0.5j, complex(1.2, 1.6),
            complex(np.sqrt(2), np.sqrt(2)), np.complex64(complex(np.sqrt(2), np.sqrt(2))),
            complex(np.nan, 0), complex(np.inf, np.nan)]


@pytest.mark.parametrize("c", ESCAPING)
@pytest.mark.parametrize("fn", [escape_count, escape_count_of_the_ufunc])
def test_scalar_escape_loops_take_the_magnitude_python_and_numpy_take(fn, c):
    """abs() of a complex scalar is the C library's hypot (CPython's and
    NumPy's scalar math: abs(sqrt(2) * (1+1j)) is 2.0); np.abs is NumPy's loop
    formula (2.0000000000000004)."""
    jitted = jitaic.jit(fn, mode="ast")
    assert jitted(c, 60) == fn(c, 60)
    if fn is escape_count:
        assert "cm.absolute(" not in jitted.lower(c, 60).source()


@pytest.mark.parametrize("c", ESCAPING)
def test_a_scalar_magnitude_compared_with_a_constant_is_numpys(c):
    """A 0-d np.abs compared with a constant tests re**2 + im**2 first."""
    def compare(z):
        return np.abs(z) <= 2.0, 2.0 < np.abs(z)

    z = np.complex128(c) if type(c) is complex else c
    jitted = jitaic.jit(compare)
    assert jitted(z) == compare(z)
    assert jitted.lower(z).source().count("cm.magnitude_compare(") == 2


def test_the_reference_interpreter_computes_complex_values_too():
    z = np.array([1 + 2j, 3 - 1j])
    with jitaic.config.override(backend="reference"):
        _same_as_numpy(lambda z: (np.exp(z) / z, np.angle(z), z.real * z.imag), z)


def test_ops_without_complex_support_refuse_complex_operands():
    """The guard behind every op (no NumPy function reaches one with complex
    values today: NumPy's own TypeError comes first)."""
    assert not ops.floor.complex
    with pytest.raises(jitaic.UnsupportedError, match="^floor of complex values is not "
                                                      "supported yet"):
        ops.floor.check_complex([TensorType((2,), np.dtype(np.complex128))])
    ops.floor.check_complex([TensorType((2,), np.dtype(np.float64))])


def linear_algebra(a, b, h):
    return (np.linalg.inv(a), np.linalg.solve(a, b), np.linalg.solve(a, b.real),
            np.linalg.det(a), np.linalg.inv(np.stack([a, a.T])), np.linalg.cholesky(h),
            *np.linalg.slogdet(a), *np.linalg.slogdet(np.stack([a, 2j * a])))


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_lapack_routines_take_complex_matrices(dtype, rng):
    """inv, solve (mixed with real operands too), det, slogdet (a complex
    sign, a real logarithm) and cholesky of a Hermitian matrix, single and
    stacked, through LAPACK as NumPy's."""
    a = (rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4)) + 4 * np.eye(4)).astype(dtype)
    b = (rng.normal(size=4) + 1j * rng.normal(size=4)).astype(dtype)
    h = (a @ a.conj().T + 4 * np.eye(4)).astype(dtype)
    tolerance = 1e-4 if dtype == np.complex64 else 1e-12
    for got, want in zip(jitaic.jit(linear_algebra)(a, b, h), linear_algebra(a, b, h),
                         strict=True):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)


def clip_real_parts(z):
    z.real[z.real < 0] = 0.0  # a write through a view of z
    return z


def set_parts(z):
    z.imag = 2.0
    z.real = np.arange(z.shape[0])
    return z.sum()


def parts_of_views(z):
    w = z.copy()
    r = w.real
    r[1:] += 10
    z[::2].imag *= -1
    z.reshape(2, 2).T.imag[0] = 5
    return w, r


def parts_in_a_loop(z, n):
    for i in range(n):
        z.real[i] = z.imag[i] * 2
    return z


@pytest.mark.parametrize("fn, args", [
    (clip_real_parts, (np.array([1 - 2j, -3 + 1j]),)),
    (set_parts, (np.array([1 - 2j, -3 + 1j, 2j], np.complex64),)),
    (parts_of_views, (np.array([1 - 2j, -3 + 1j, 2 + 2j, -1 - 1j]),)),
    (parts_in_a_loop, (np.array([1 - 2j, -3 + 1j, 2 + 2j]), 2)),
])
@pytest.mark.parametrize("mode", ["trace", "ast"])
def test_writes_through_real_and_imag_reach_the_array(fn, args, mode):
    numpy_args, jitaic_args = copy_tree(args), copy_tree(args)
    want = fn(*numpy_args)
    assert_same(jitaic.jit(fn, mode=mode)(*jitaic_args), want)
    assert_same(jitaic_args, numpy_args)  # what the writes changed in the arguments


def write_imaginary_part_of_real(x):
    x.imag[0] = 5.0
    return x


def set_imaginary_part_of_real(x):
    x.imag = 5.0
    return x


def test_the_imaginary_part_of_a_real_array_is_read_only():
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        write_imaginary_part_of_real(np.array([1.0]))  # NumPy's own
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        jitaic.jit(write_imaginary_part_of_real)(np.array([1.0]))
    with pytest.raises(TypeError, match="array does not have imaginary part to set"):
        jitaic.jit(set_imaginary_part_of_real)(np.array([1.0]))


def real_part_of_real(x):
    y = x.real  # NumPy: x itself, so the write reaches x
    y[0] = 7.0
    return x


def test_the_real_part_of_a_real_array_is_the_array():
    _same_as_numpy(real_part_of_real, np.array([1.0, 2.0]))


def replace_non_finite(z):
    return np.nan_to_num(z, nan=-1.0, neginf=-7.0), np.round(z, 1), np.round(z, -1)


def test_nan_to_num_and_round_treat_each_part_as_numpy_does():
    _same_as_numpy(replace_non_finite, np.array([complex(np.nan, 1.25), complex(-np.inf, np.nan),
                                                 complex(2.25, np.inf), -0.0 - 0.05j]))


@pytest.mark.parametrize("exponent", [1, 2, 3, 4, 5, 7, 16, 99, -1, -2, -3, -8])
def test_integer_powers_are_numpys_bit_for_bit(exponent, rng):
    """NumPy multiplies for integer exponents below 100 (z ** 2 is z * z) and
    divides 1 by the product for negative ones."""
    parts = rng.standard_normal((2, 200)) * 10.0 ** rng.integers(-2, 2, (2, 200))
    z = parts[0] + 1j * parts[1]
    z[:2] = [0, complex(np.inf, 1.0)]
    with np.errstate(all="ignore"):
        want = z ** complex(exponent)
        got = jitaic.jit(lambda z, p: z ** p)(z, complex(exponent))
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- a review's findings
# Compositions and rules whose NumPy semantics differ for complex values:
# each case once gave a silently different result (or crashed).

SPECIAL = np.array([complex(np.inf, 0.0), complex(1.0, np.inf), complex(-0.0, -0.0),
                    complex(np.nan, 1.0), 1 + 2j, -3 + 0.5j])


def _store_nan_into_int(x, z):
    x[0] = z[3]
    return x


@pytest.mark.parametrize("fn, args", [
    (lambda z: (z * 1, z / 1, z - 0, z - 0j, np.mean(z[:1])), (SPECIAL,)),
    (lambda z: (np.nansum(z), np.nanmean(z)), (SPECIAL,)),
    (lambda c: np.linspace(0, c, 3), (1 + 2j,)),
    (lambda x, z: np.cov(x, z), (np.arange(2.0), SPECIAL[4:])),
    (lambda z: (np.linalg.norm(z, 0), np.var(z, dtype=np.complex128)), (SPECIAL[4:],)),
    (lambda x: (np.var(x, dtype=np.complex128), np.select([x > 1], [x.astype(np.float32)], 1j)),
     (np.arange(4.0),)),
    (lambda x, i: (np.sqrt(x, dtype=complex), np.log(x, dtype=complex),
                   np.add(i, i, dtype=np.float64), np.multiply.reduce(x + 1j, dtype=np.float64)),
     (np.array([-1.0, 4.0]), np.array([100, 100], np.int8))),
    (lambda z: (np.tanh(z), np.exp(z)),
     (np.array([400 + 0j, 356 + 1j, -800 + 0j, 710 + 0j, complex(3, -0.0), complex(np.inf, 1),
                complex(np.nan, 0.0), complex(0.0, np.inf)]),)),
    (lambda z: (np.sinh(z), np.cosh(z)),  # (cosh near overflow: the C library's last bit)
     (np.array([-800 + 0j, 800 + 0j, complex(3, -0.0), complex(0.0, np.inf)]),)),
    (lambda z: (np.tanh(z),), (np.array([50 + 0j, complex(3, -0.0)], np.complex64),)),
    (lambda z: (z ** 0.5, z ** -1), (SPECIAL,)),
])
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # NumPy's, for NumPy
def test_numpys_semantics_for_complex_values(fn, args):
    with np.errstate(all="ignore"):
        want = fn(*[np.copy(a) for a in args])
        got = jitaic.jit(fn)(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,), strict=True):
        g, w = np.atleast_1d(g), np.atleast_1d(w)
        assert g.dtype == w.dtype
        if g.dtype.kind == "c":  # both parts, signed zeros included
            g, w = g.view(np.real(g).dtype), w.view(np.real(w).dtype)
        np.testing.assert_array_equal(g, w)


def _store_python_complex(x):
    x[0] = 1 + 2j
    return x


@pytest.mark.parametrize("fn, args, error", [
    (_store_python_complex, (np.zeros(3),), TypeError),
    (_store_python_complex, (np.zeros(3, np.int64),), TypeError),
    (_store_nan_into_int, (np.zeros(3, np.int64), SPECIAL), ValueError),
    (lambda z: np.add(z, z, dtype=np.float64), (SPECIAL,), TypeError),
])
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_complex_stores_and_casts_raise_numpys_errors(fn, args, error):
    with pytest.raises(error) as numpy_error:
        fn(*[np.copy(a) for a in args])
    with pytest.raises(error, match=re.escape(str(numpy_error.value)[:40])):
        jitaic.jit(fn)(*args)


_XP = np.array([0.0, 1.0, 2.0, 4.0])
_FP = np.array([1 + 2j, 3 - 1j, complex(np.inf, 1.0), complex(2.0, np.nan)])
# between points, at them, outside, NaN (NaN + 0j in NumPy's complex loop)
_AT = np.array([0.5, 1.5, -1.0, 3.0, 2.0, 4.0, 5.0, np.nan])


@pytest.mark.parametrize("fn", [
    lambda x, xp, fp: np.interp(x, xp, fp),
    lambda x, xp, fp: np.interp(x, xp, fp, left=5j, right=2),
    lambda x, xp, fp: np.interp(x[3], xp, fp.astype(np.complex64), right=np.complex128(1 - 1j)),
    lambda x, xp, fp: np.interp(x.reshape(2, 4), xp, fp[::-1]),
    lambda x, xp, fp: np.interp(x, xp[:1], fp[1:2], left=-1j),
    # real fp: the x == xp[j] and NaN-x rules (an inf slope; a flat segment)
    lambda x, xp, fp: np.interp(x, xp, np.array([1.0, np.inf, 2.0, 2.0])),
])
def test_interp_of_complex_values_is_numpys_part_by_part(fn):
    _same_as_numpy(fn, _AT, _XP, _FP)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("fn", [
    lambda x, xp, fp: np.interp(x * 1j, xp, fp),
    lambda x, xp, fp: np.interp(x, xp + 0j, fp),
    lambda x, xp, fp: np.interp(x, xp, fp.real, left=1j),
    lambda x, xp, fp: np.interp(x, xp, fp, right=np.array(1j)),
    lambda x, xp, fp: np.interp(x, xp[:0], fp[:0]),
    lambda x, xp, fp: np.interp(x, xp, fp[:3]),
])
def test_interp_raises_numpys_errors(fn):
    with pytest.raises((TypeError, ValueError)) as numpy_error:
        fn(_AT, _XP, _FP)
    with pytest.raises(numpy_error.type, match=re.escape(str(numpy_error.value))):
        jitaic.jit(fn)(_AT, _XP, _FP)


def test_interp_drops_the_imaginary_part_of_a_complex64_bound_with_numpys_warning():
    def fn(x, xp, fp):
        return np.interp(x, xp, fp, left=np.complex64(1 + 1j))

    with pytest.warns(np.exceptions.ComplexWarning) as caught:
        got = jitaic.jit(fn)(_AT, _XP, _FP)
    assert len(caught) == 1 and caught[0].filename == __file__  # traced twice, shown once
    with pytest.warns(np.exceptions.ComplexWarning):
        assert_same(got, fn(_AT, _XP, _FP))


def to_float(z):
    return z.astype(np.float64) * 2


def test_a_cast_dropping_imaginary_parts_warns_at_the_users_line():
    z = np.array([1 + 2j, 3 - 1j])
    with pytest.warns(np.exceptions.ComplexWarning, match="discards the imaginary part") as caught:
        got = jitaic.jit(to_float)(z)
    assert caught[0].filename.endswith("test_complex.py")
    with pytest.warns(np.exceptions.ComplexWarning):
        np.testing.assert_array_equal(got, to_float(z))


_SPECIALS = [np.nan, -np.inf, -1.0, -0.0, 0.0, 1.0, np.inf]
_EVERY_PAIR = np.array([complex(a, b) for a in _SPECIALS for b in _SPECIALS])


def ordered(z, w):
    return (z < w, z <= w, z > w, z >= w, np.maximum(z, w), np.minimum(z, w),
            np.fmax(z, w), np.fmin(z, w))


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_order_follows_numpy_at_every_pair_of_special_values(dtype):
    """NumPy orders complex values by real part, then imaginary part; a NaN
    imaginary part makes the real-part test false; maximum/minimum keep the
    first operand on ties (signed zeros) and propagate NaN."""
    z = np.repeat(_EVERY_PAIR, len(_EVERY_PAIR)).astype(dtype)
    w = np.tile(_EVERY_PAIR, len(_EVERY_PAIR)).astype(dtype)
    _same_as_numpy(ordered, z, w)


def extremes(z):
    return (z.max(), z.min(), z.max(axis=1), np.min(z, axis=0), np.argmax(z),
            np.argmin(z, axis=1), np.clip(z, 0.2, 1.5 + 1j))


def test_max_min_and_their_positions_follow_numpy():
    """The first NaN wins, ties keep the first occurrence, and a reduction
    starting from -inf-infj is below every value."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        _same_as_numpy(extremes, rng.choice(_EVERY_PAIR, size=(3, 11)))
    big = rng.standard_normal((40, 3000)) + 1j * rng.standard_normal((40, 3000))
    big[7, 900] = complex(np.nan, 1.0)
    _same_as_numpy(extremes, big)
    _same_as_numpy(extremes, big.astype(np.complex64))


def sorts(z):
    return np.sort(z, kind="stable"), np.argsort(z, axis=0, kind="stable"), np.sort(z[0])


def test_sorting_follows_numpys_order_nan_last():
    """Stable sorts order by real part, then imaginary part; values with a
    NaN part go last, in NumPy's order of them."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        _same_as_numpy(sorts, rng.choice(_EVERY_PAIR, size=(6, 9)))


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_sign_follows_numpy_at_special_and_overflowing_values(dtype):
    """The parts over their hypot; an infinite hypot (an infinite part, or an
    overflow) gives the direction of the infinite or the imaginary part."""
    big = [1.7e308, -1.7e308, 3e38, -3e38, 2e38, 1e-310, 1e-40]
    parts = [*_SPECIALS, *big]
    rng = np.random.default_rng(11)
    scale = 10.0 ** rng.integers(-300, 300, (2, 2000))
    random = rng.standard_normal(2000) * scale[0] + 1j * rng.standard_normal(2000) * scale[1]
    with np.errstate(over="ignore"):  # complex64 parts overflow to inf: on purpose
        z = np.array([complex(a, b) for a in parts for b in parts]).astype(dtype)
        z = np.concatenate([z, random.astype(dtype)])
    _same_as_numpy(np.sign, z)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_absolute_values_are_numpys_bit_for_bit(dtype):
    """NumPy's vectorised loop's formula (the larger part times sqrt(1 +
    ratio ** 2), one multiply-add), not the C library's hypot: equal in every
    bit, at infinite, NaN, overflowing and subnormal parts too."""
    big = [1.7e308, -1.7e308, 3e38, -3e38, 1e-310, 1e-40, 5e-324]
    parts = [*_SPECIALS, *big]
    rng = np.random.default_rng(12)
    scale = 10.0 ** rng.integers(-300, 300, (2, 4000))
    random = rng.standard_normal(4000) * scale[0] + 1j * rng.standard_normal(4000) * scale[1]
    with np.errstate(over="ignore", under="ignore"):
        z = np.array([complex(a, b) for a in parts for b in parts]).astype(dtype)
        z = np.concatenate([z, random.astype(dtype)])
    got = jitaic.jit(np.abs)(z)
    assert got.dtype == np.abs(z).dtype
    np.testing.assert_array_equal(got, np.abs(z))


def logarithms_to_every_base(z):
    return np.log(z), np.log2(z), np.log10(z), np.log1p(z), np.expm1(z)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_log_is_the_c_librarys_bit_for_bit(dtype):
    """Near |z| = 1 the real part log|z| is small: it comes from log1p of
    |z|^2 - 1 (its squares' rounding errors kept), as glibc's clog computes
    it; numba's log of the hypot differed there in half the values. log1p
    and expm1 are NumPy's own formulas, in the parts' precision."""
    rng = np.random.default_rng(13)
    n = 3000
    near_one = np.exp(1j * rng.uniform(-4, 4, n)) * (
        1 + rng.standard_normal(n) * 10.0 ** rng.integers(-16, -1, n))
    parts = [*_SPECIALS, 1e-310, 1e-40, 3e38, 1.7e308, 0.5, 0.75]
    special = np.array([complex(a, b) for a in parts for b in parts])
    with np.errstate(over="ignore"):  # overflows to inf, complex64 parts too: on purpose
        magnitudes = 10.0 ** rng.integers(-320, 309, (2, n))
        wide = rng.standard_normal(n) * magnitudes[0] + 1j * rng.standard_normal(n) * magnitudes[1]
        z = np.concatenate([near_one, wide, special]).astype(dtype)
    _same_as_numpy(logarithms_to_every_base, z)


def c_library_functions(z, w):
    return (np.sqrt(z), np.exp(z), np.sin(z), np.cos(z), np.tan(z), np.sinh(z), np.cosh(z),
            np.arcsin(z), np.arccos(z), np.arctan(z), np.arcsinh(z), np.arccosh(z),
            np.arctanh(z), z ** w, z ** 0.7, z ** 0.5)


@pytest.mark.skipif(not ops.C_COMPLEX_CALLS, reason="the C complex ABI of x86-64 Linux")
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_functions_numpy_takes_from_the_c_library_are_its_bit_for_bit(dtype):
    """NumPy calls the C library's csqrt, cexp, csin ... catanh and cpow:
    branch cuts, signed zeros, infinities, NaNs and overflow are its
    algorithms', and so are jitaic's (it calls them too; numba's formulas
    differed at sin(800j), 1j ** 0.5, tan of most values, ...)."""
    rng = np.random.default_rng(17)
    parts = [*_SPECIALS, 1e-310, 1e-20, 3e38, 1.7e308, 0.5, 2.0, 710.0, 800.0]
    special = np.array([complex(a, b) for a in parts for b in parts])
    wide = rng.standard_normal(2000) * 10.0 ** rng.integers(-8, 8, 2000) \
        + 1j * rng.standard_normal(2000)
    with np.errstate(over="ignore"):  # complex64 parts overflow to inf: on purpose
        z = np.concatenate([special, wide]).astype(dtype)
    w = (rng.standard_normal(z.size) * 3 + 1j * rng.standard_normal(z.size)).astype(dtype)
    _same_as_numpy(c_library_functions, z, w)


def inverse_trigonometric_loss(x):
    z = x * (0.5 + 0.25j)
    return np.abs(np.arcsin(z) + np.arccos(z * 0.5) * np.arctan(z) + np.arcsinh(z)
                  - np.arccosh(z + 2.0) * np.arctanh(z * 0.3)).sum()


@pytest.mark.skipif(not ops.C_COMPLEX_CALLS, reason="the C complex ABI of x86-64 Linux")
def test_gradients_through_complex_inverse_trigonometric_functions():
    x = np.array([0.3, -0.7, 1.4])
    np.testing.assert_allclose(jitaic.grad(inverse_trigonometric_loss)(x),
                               finite_difference(inverse_trigonometric_loss, (x,), 0),
                               rtol=1e-6)


def _real_part_then_count(z, n):
    x = z.astype(np.float64)  # ComplexWarning
    for _ in range(int(n)):  # int() of a Python float: traced again with n static
        x = x + 1
    return x


def test_a_function_traced_again_with_a_static_argument_warns_once():
    with pytest.warns(np.exceptions.ComplexWarning) as caught:
        jitaic.jit(_real_part_then_count)(np.array([1 + 2j]), 2.0)
    assert len(caught) == 1


_PARTS = (1.0, 2.0, np.nan, np.inf)
_ORDERED = [complex(a, b) for a in _PARTS for b in (0.0, 2.0, np.nan)]


@pytest.mark.parametrize("op", [operator.lt, operator.le, operator.gt, operator.ge])
def test_complex_scalars_compare_as_numpys_scalars_arrays_as_its_arrays(op) -> None:
    """NumPy orders complex scalars lexicographically ((1+nanj) > 0j) and
    complex arrays with NaN parts not at all: each kind keeps its own rule."""
    scalars = jitaic.jit(lambda x, y: op(x.max(), y.min()))
    arrays = jitaic.jit(lambda x, y: op(x, y))
    with np.errstate(invalid="ignore"):
        for a in _ORDERED:
            for b in _ORDERED:
                x, y = np.array([a]), np.array([b])
                assert_same(scalars(x, y), op(x.max(), y.min()))
                assert_same(arrays(x, y), op(x, y))


def products(a, b):
    c = a.copy()
    c *= b
    return a * b, np.square(a), a ** 2, c, np.multiply(a[0], b[0]), a[1:2] * b[1]


def scalar_products(a, b):
    return a[0] * b[0], b[1] * a[1], a[2] * 1j, (0.5 + 2j) * a[3]


@pytest.mark.parametrize("da, db", [("c16", "c16"), ("c8", "c8"), ("c16", "f8"), ("c8", "f4"),
                                    ("c8", "c16")])
def test_products_are_numpys_bit_for_bit(da, db, rng) -> None:
    """NumPy's loops (arrays, np.multiply, np.square) round each part of a
    complex product once (a fused multiply-add where the CPU has FMA), its
    scalar operator each of the two products: the last bit differed for
    about 40% of values, and the sign of an underflowing zero part."""
    def draw(dtype):
        parts = rng.standard_normal((2, 500))
        return (parts[0] + 1j * parts[1] if dtype[0] == "c" else parts[0]).astype(dtype)

    a, b = draw(da), draw(db)
    if np.result_type(a, b) != a.dtype:
        a, b = b, a
    for fn in (products, scalar_products):
        got, want = jitaic.jit(fn)(a, b), fn(a, b)
        for g, w in zip(got, want, strict=True):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(g, w)
    tiny = np.array([7.085817960689889e-210 + 0j])  # its product's real part underflows
    other = np.array([-1.10631621e-209 - 1.19903733j])
    assert np.signbit(jitaic.jit(operator.mul)(tiny, other).real) == np.signbit((tiny * other).real)


def python_complex_in_control_flow(x, k):
    s = 0j
    for i in range(k):
        s = s + i * (0.5 + 1j) + i * np.complex64(0.5j)
    t = 1.0
    for _ in range(k):
        t = 2j
    u = 1j if x.real.sum() > 2 else 2j
    return x * s, x * t, x * u


@pytest.mark.parametrize("mode", ["ast", "auto"])
@pytest.mark.parametrize("k", [0, 3])
def test_python_complex_numbers_in_control_flow_stay_python_numbers(mode, k) -> None:
    """A loop-carried 0j stayed complex128 (a complex64 array times it
    became complex128); an if joining 1j and 2j was refused, and a loop
    assigning 2j to a float crashed (zip() argument 2 is shorter ...), and
    so did a loop index times a NumPy complex scalar (AttributeError)."""
    x = np.array([1 + 2j, 3 - 1j], np.complex64)
    for args in ((x, k), (-x, k)):
        got, want = jitaic.jit(python_complex_in_control_flow, mode=mode)(*args), \
            python_complex_in_control_flow(*args)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
