"""NumPy functions written as compositions of jitaic's ops, each checked
native (``callbacks=False``: none of these may go to NumPy) against NumPy's
values, dtypes and errors: set routines, the nan* functions, NumPy 2's
array-API spellings, the indexing routines, polynomials, and the rest of
the mathematical, creation and rearranging functions that went to the
callback before.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import assert_same, finite_difference

import jitaic


def check_native(fn, *args, zero_signs: bool = True) -> None:
    """fn compiled without callbacks gives NumPy's results, signs of zeros
    included (unless which of -0.0 and 0.0 NumPy's sort keeps decides them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = fn(*(a.copy() for a in args))
        got = jitaic.jit(fn, callbacks=False)(*(a.copy() for a in args))
    assert_same(got, expected)
    for g, e in zip(_leaves(got), _leaves(expected) if zero_signs else (), strict=False):
        if np.asarray(e).dtype.kind == "f":  # (a NaN's sign means nothing)
            numbers = ~np.isnan(e)
            np.testing.assert_array_equal(np.signbit(g)[numbers], np.signbit(e)[numbers])


def check_raises_natively(fn, *args) -> None:
    """NumPy's exception type and message (its start), at this file's line."""
    with pytest.raises(Exception) as numpy_error, np.errstate(all="ignore"):
        fn(*(a.copy() for a in args))
    builtin = next(c for c in type(numpy_error.value).__mro__ if c.__module__ == "builtins")
    with pytest.raises(builtin) as ours:
        jitaic.jit(fn, callbacks=False)(*args)
    assert "test_numpy_breadth.py:" in str(ours.value)
    assert str(numpy_error.value)[:30] in str(ours.value)


def _leaves(x):
    if isinstance(x, (tuple, list)):
        for item in x:
            yield from _leaves(item)
    else:
        yield x


A = np.array([0.0, 0.0, 3.0, 1.0, 2.0, 2.0, np.nan, 0.0, -0.0, 5.0, np.nan, 0.0, 0.0])
B = np.array([2.0, 5.0, 7.0, 1.0, np.nan, -0.0, 9.0, 7.0])


def set_routines(a, b):
    unique_a, unique_b = np.unique(a), np.unique(b)
    return (np.union1d(a, b), np.intersect1d(a, b, return_indices=True),
            np.intersect1d(unique_a, unique_b, assume_unique=True), np.setdiff1d(a, b),
            np.setdiff1d(unique_a, unique_b, assume_unique=True), np.setxor1d(a, b),
            np.setxor1d(a[:0], b[:0]), np.sort(np.unique_values(a)), np.unique_all(a),
            np.isin(unique_b, a[:5], invert=True))


def trimmed(a, b):
    return (np.trim_zeros(a), np.trim_zeros(a, "b"), np.trim_zeros(a[::-1], trim="F"),
            np.trim_zeros(a * 0), np.trim_zeros(np.outer(a, b)[1:, :3]),
            np.trim_zeros(np.outer(a, b), axis=1))


def test_set_routines_are_numpys() -> None:
    """NaNs stay apart, -0.0 equals 0.0 (which of them NumPy's sort keeps is
    its own); the assume_unique forms take np.unique's run-time lengths."""
    check_native(set_routines, A, B, zero_signs=False)
    check_native(lambda a, b: (np.union1d(a, b), np.intersect1d(a, b), np.setdiff1d(a, b)),
                 np.array([4, 0, 2, 2, 9, 0]), np.array([2, 3, 4, 4]))
    check_native(trimmed, A, B)


def test_unique_all_is_numpys_named_tuple() -> None:
    result = jitaic.jit(np.unique_all, callbacks=False)(A)
    assert type(result) is type(np.unique_all(A))
    assert_same(result.counts, np.unique_all(A).counts)


def test_a_trimmed_array_is_a_view() -> None:
    def zero_the_inside(a):
        np.trim_zeros(a)[:] = 0.0
        return a

    check_native(zero_the_inside, np.array([0.0, 1.0, 2.0, 0.0]))


M = np.array([[0.0, 3.0, np.nan, 1.0], [2.0, 2.0, -1.0, np.nan], [np.nan, 0.0, 5.0, 7.5]])


def nan_functions(m):
    return (np.nanprod(m), np.nanprod(m, axis=0), np.nancumsum(m), np.nancumsum(m, axis=1),
            np.nancumprod(m, axis=0), np.nanvar(m),
            np.nanvar(m, axis=0, ddof=1), np.nanstd(m, axis=1, keepdims=True),
            np.nanvar(m[:, :2], axis=0, ddof=2), np.nanstd(m.astype(np.float32), axis=1),
            np.nanvar(m + 1j * m[::-1], axis=0), np.nanmedian(m), np.nanmedian(m, axis=0),
            np.nanmedian(m, axis=1, keepdims=True), np.nanmedian(m.astype(np.float32), axis=1),
            np.nanmedian(m[:, 2:], axis=(0, 1)), np.nanpercentile(m, 30),
            np.nanpercentile(m, [10, 90], axis=1), np.nanquantile(m, 0.5, axis=0),
            np.nanquantile(m.astype(np.float32), 0.25, axis=1, keepdims=True),
            np.nanquantile(m, [0.0, 1.0], axis=(0, 1)), np.nanmedian(np.arange(6).reshape(2, 3)),
            np.nanquantile(np.arange(6), 0.4))


def test_nan_functions_are_numpys() -> None:
    """Statistics of each lane's numbers; NaN where a lane has none (NumPy
    warns there); integers as the functions without nan."""
    check_native(nan_functions, np.concatenate([M, np.full((1, 4), np.nan)]))
    check_native(lambda m: (np.nanargmax(m, axis=1), np.nanargmin(m), np.nanargmin(m[0] > 0)), M)


def test_an_all_nan_slice_has_no_nanargmax() -> None:
    f = jitaic.jit(lambda m: np.nanargmax(m, axis=0), callbacks=False)
    assert_same(f(M), np.nanargmax(M, axis=0))
    with pytest.raises(ValueError, match=r"All-NaN slice encountered at test_numpy_breadth"):
        f(np.where(np.arange(4) == 1, np.nan, M))


def array_api(a, b, c):
    m = np.outer(b, b) + np.eye(4)
    return (np.vecdot(a, b), np.vecdot(a, a, axis=0), np.vecdot(a, b, keepdims=True),
            np.vecdot(c, c), np.vecdot(a > 0, b > 0),
            np.vecdot(a.astype(np.int8), (b * 40).astype(np.int8)), np.matvec(np.stack([m, m]), b),
            np.vecmat(c[:4], m.astype(complex)), np.linalg.vecdot(a, a, axis=-1),
            np.matrix_transpose(a), np.linalg.matrix_transpose(c.reshape(2, 2, 2)),
            np.linalg.matmul(m, b), np.linalg.tensordot(m, m, axes=1),
            np.linalg.outer(b, b[:2]), np.linalg.cross(a[:, :3], a[::-1, :3]),
            np.linalg.diagonal(m, offset=1), np.linalg.trace(m),
            np.linalg.trace(np.stack([m, m]), offset=-1, dtype=np.float32),
            np.linalg.matrix_norm(m), np.linalg.matrix_norm(np.stack([m, m]), ord=1, keepdims=True),
            np.linalg.vector_norm(a), np.linalg.vector_norm(a, axis=1, ord=1),
            np.linalg.vector_norm(a, axis=(0, 1), keepdims=True),
            np.linalg.vector_norm(a, ord=np.inf, keepdims=True), np.unstack(a),
            np.unstack(a, axis=1), np.astype(a, np.float32), np.astype(a, np.int32, copy=False),
            np.cumulative_sum(b), np.cumulative_sum(a, axis=1, include_initial=True),
            np.cumulative_prod(a, axis=0, include_initial=True, dtype=np.float32),
            np.cumulative_sum(b[0]), np.cumulative_sum(b > 0, include_initial=True),
            np.linalg.matrix_power(m, -2), np.linalg.matrix_power(np.stack([m, m]), -1))


def test_array_api_spellings_are_numpys() -> None:
    check_native(array_api, np.array([[0, 3.0, 2, 1], [2, 2, -1, 0.5], [1, 0, 5, 7.5]]),
                 np.array([2.0, -1, 0.5, 1]), np.array([1 + 2j, 3, -1j, 2, 1, 1, 0, 1j]))


def index_routines(a, b, m, i):
    np.put(a, [0, -1, 2], [9.0, 8.0])
    a.put(np.array([1, 100]), -5.0, mode="clip")
    np.put(b, i, 3.5, mode="wrap")
    np.put_along_axis(m, np.argmax(m, axis=1, keepdims=True), -1.0, axis=1)
    np.put_along_axis(b, np.array([0, 1]), np.array([4.0, 5.0]), axis=None)
    c = m.copy()
    np.place(c, c > 0.5, [10.0, 20.0])
    d = m.copy()
    np.copyto(d, b[:4], where=m > 0)
    np.copyto(d[0], 1)
    e, g, h = np.zeros((4, 4)), np.zeros((7, 3)), np.zeros((3, 3, 3))
    np.fill_diagonal(e, [1.0, 2.0, 3.0])
    np.fill_diagonal(g, 5, wrap=True)
    np.fill_diagonal(h, 2.0)
    return (a, b, m, c, d, e, g, h, np.extract(m > 0.3, m),
            np.compress([True, False, True], m, axis=0), m.compress([False, True], axis=1),
            np.compress(b > 0, b), np.choose(i % 3, [b[:4], -b[:4], b[:4] * 10]),
            np.choose(np.array([[0, 1, 0, 1]]), [m, 7.0], mode="wrap"),
            np.unravel_index(i, (2, 3)), np.unravel_index(5, (2, 3), order="F"),
            np.ravel_multi_index((i % 2, i % 3), (2, 3)),
            np.ravel_multi_index((i, i + 1), (2, 3), mode=("clip", "wrap")),
            np.tril_indices_from(m), np.triu_indices_from(m, k=1), np.diag_indices_from(e))


def test_indexing_routines_are_numpys() -> None:
    """In-place ones write through to the arguments."""
    check_native(index_routines, np.arange(6.0), np.array([1.0, -2.0, 0.5, 3.0, 0.0]),
                 np.array([[0.2, 0.9, 0.4, 0.6], [0.1, 0.0, 0.7, 0.3], [0.8, 0.5, 0.6, 0.2],
                           [0.3, 0.9, 0.1, 0.4]]), np.array([0, 3, 5, 4]))


def writes_through_strided_views(a, i):
    np.put(a.T, [1, -2], 9.0)
    np.put(a.T, i, [5.0, 6.0], mode="wrap")
    np.fill_diagonal(a[:, ::2], -1.0)
    np.place(a[::2], a[::2] > 4, [7.0, 8.0])
    np.put_along_axis(a[1], np.array([0, 2]), -3.0, axis=None)
    np.fill_diagonal(a.T, 2.5, wrap=True)
    return a


def test_in_place_routines_write_through_strided_views() -> None:
    """Writes address the array in its own shape: a flattened strided view
    would be a copy, and they would be lost."""
    check_native(writes_through_strided_views, np.arange(12.0).reshape(3, 4),
                 np.array([3, 14, -1]))


@pytest.mark.parametrize("call", [
    lambda a, i: np.put(a, [10], 1.0), lambda a, i: np.choose(i, [a[:4], a[:4]]),
    lambda a, i: np.ravel_multi_index((i, i), (2, 3)), lambda a, i: np.place(a, a > 2, []),
    lambda a, i: np.copyto(i, 1.5), lambda a, i: np.copyto(i, a[:4]),
    lambda a, i: np.copyto(i.astype(np.uint8), -1), lambda a, i: np.compress(a > 0, a[:3]),
    lambda a, i: np.insert(i, 9, 1), lambda a, i: np.delete(i, [9]),
    lambda a, i: np.block([[i], i]), lambda a, i: np.geomspace(a[0], 5.0, 3),
    lambda a, i: np.linalg.outer(a, a[:2, None]), lambda a, i: np.linalg.cross(a[:2], a[:2]),
    lambda a, i: np.vecdot(a, i[:2]), lambda a, i: np.matvec(a, a),
    lambda a, i: np.cumulative_sum(a.reshape(2, 3)), lambda a, i: np.unstack(a[0]),
    lambda a, i: np.matrix_transpose(a), lambda a, i: np.nanpercentile(a, 200),
    lambda a, i: np.nanquantile(a, -0.5), lambda a, i: np.trim_zeros(a, "x"),
    lambda a, i: np.polyder(a, -1), lambda a, i: np.polyint(a, 3, k=[1.0, 2.0]),
    lambda a, i: np.isneginf(a + 1j), lambda a, i: np.modf(a + 1j),
    lambda a, i: np.piecewise(a, [a > 0, a > 1], [1.0]),
    lambda a, i: np.histogramdd(np.stack([a, a], 1), bins=(2, 3, 4)),
    lambda a, i: np.histogram2d(a, a, bins=(0, 2)),
    lambda a, i: np.asarray_chkfinite(a / (a - 1)), lambda a, i: np.common_type(a > 0),
    lambda a, i: np.convolve(a.reshape(2, 3), a), lambda a, i: np.correlate(a, a[0]),
    lambda a, i: np.convolve(a[:0], a), lambda a, i: np.correlate(a, a[:0]),
    lambda a, i: np.correlate(a, a, "wide"),
    lambda a, i: np.sort(a, kind="x"), lambda a, i: np.sort(a, kind="stable", stable=True),
    lambda a, i: np.sort(a[0]), lambda a, i: np.gcd(i.astype(np.int16), i.astype(np.uint64)),
    lambda a, i: np.quantile(a > 1, 0.5), lambda a, i: np.nanpercentile(a > 1, 50),
    lambda a, i: np.histogram(a[:1] + 1e300, bins=3),
    lambda a, i: np.histogram(a, bins=3, range=(1e17, 1e17)),
    lambda a, i: np.apply_along_axis(np.sum, 1, a[:0, None]),
    lambda a, i: np.apply_along_axis(np.sum, 2, a.reshape(2, 3)),
    lambda a, i: np.apply_along_axis(np.sum, 0, a[0]),
], ids=["put", "choose", "ravel_multi_index", "place", "copyto scalar", "copyto array",
        "copyto overflow", "compress", "insert", "delete", "block depths", "geomspace zero",
        "linalg.outer", "linalg.cross", "vecdot", "matvec", "cumulative_sum axis", "unstack",
        "matrix_transpose", "nanpercentile", "nanquantile", "trim_zeros", "polyder",
        "polyint", "isneginf", "modf", "piecewise", "histogramdd bins", "histogram2d bins",
        "asarray_chkfinite", "common_type", "convolve 2-d", "correlate 0-d", "convolve empty",
        "correlate empty", "correlate mode", "sort kind", "sort kind and stable", "sort 0-d",
        "gcd without a loop", "quantile of bools", "nanpercentile of bools",
        "histogram of a range too narrow", "histogram of a given range too narrow",
        "apply_along_axis empty",
        "apply_along_axis axis", "apply_along_axis 0-d"])
def test_numpys_errors(call) -> None:
    check_raises_natively(call, np.arange(6.0), np.array([0, 3, 5, 4]))


def test_a_run_time_index_error_names_the_line() -> None:
    f = jitaic.jit(lambda i: np.unravel_index(i, (2, 3)), callbacks=False)
    with pytest.raises(ValueError, match=r"index out of bounds for array with size 6 at "
                                         r"test_numpy_breadth.py:\d+"):
        f(np.array([1, 6]))


def mathematical(a, i, c):
    return (np.fix(a), np.fix(i), np.float_power(a, 2), np.float_power(i, 3),
            np.float_power(c, 2), np.divmod(a, 1.5), np.divmod(i, 3), np.modf(a), np.modf(i),
            np.isneginf(a), np.isposinf(a), np.iscomplexobj(c),
            np.isrealobj(a), np.array_equal(a, a), np.array_equal(a, a, equal_nan=True),
            np.ones(2, np.common_type(a, i)), np.ones(1, np.common_type(c, a.astype(np.float32))),
            np.asarray_chkfinite(i), np.asarray_chkfinite(c, dtype=np.complex64),
            np.array_equal(a, i[:1]), np.array_equal(a, a[:2]),
            np.array_equiv(i[:2], i[:2].reshape(1, 2)), np.array_equiv(a, a[:2]),
            np.unwrap(a * 3), np.unwrap(a.reshape(2, 4), axis=0),
            np.unwrap(a.astype(np.float32), discont=4.0), np.unwrap(i, period=6), np.i0(a),
            np.i0(i), np.i0(a.astype(np.float32)), np.sort_complex(a),
            np.sort_complex(i.astype(np.int8)), np.sort_complex(a + 1j * a[::-1]),
            np.convolve(a[0], a[:3]), np.convolve(i[:2], i[1]))


def test_mathematical_compositions_are_numpys() -> None:
    check_native(mathematical, np.array([-0.5, 0.5, -2.5, np.nan, np.inf, -np.inf, 3.0, -0.0]),
                 np.array([7, -7, 3, 0, 2, 5, 1, 4]), np.array([1 + 2j, -1j]))
    check_native(lambda x: np.i0(x), np.array([0.0, 8.0, 8.5, 700.0, -20.0, 1e-300]))


def polynomials(a, i):
    x = np.arange(6.0)
    return (np.polyadd(a[:3], i), np.polysub(i[:2], a), np.polymul(a[:3], i[:2]), np.polyder(i),
            np.polyder(a[:4], 2), np.polyder(a[:2], 3), np.polyint(i),
            np.polyint(a[:3], 2, k=[1.0, 2.0]), np.polyint(a[:3], 3, k=5.0), np.poly(i[:3]),
            np.poly(a[:3].astype(np.float32)),
            np.polyval(a[:3], x))


def test_polynomials_are_numpys() -> None:
    check_native(polynomials, np.array([-0.5, 0.5, -2.5, 1.0, 3.0]), np.array([7, -7, 3, 0]))


def test_polyfit_fits_as_numpys() -> None:
    """Least squares through LAPACK: NumPy's coefficients to rounding."""
    def fit(x, y):
        return (np.polyfit(x, y, 2), np.polyfit(x, np.stack([y, 2 * y], 1), 1, w=x + 1),
                np.polyfit(x, y, 1, full=True))

    x, y = np.linspace(0, 2, 9), np.cos(np.linspace(0, 2, 9))
    got, expected = jitaic.jit(fit, callbacks=False)(x, y), fit(x, y)
    for g, e in zip(_leaves(got), _leaves(expected), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


def creation_and_rearranging(a, i, s):
    m = a[:6].reshape(2, 3)
    return (np.logspace(0, s, 5), np.logspace(s, 2.0, 4, base=2, endpoint=False),
            np.linspace(0.0, 1.0, 5, retstep=True),
            np.logspace(s, s * 2, 3, dtype=np.float32), np.geomspace(1, s * 100, 5),
            np.geomspace(-s, -1000.0, 4, endpoint=False), np.geomspace(s, 8.0, 3, dtype=np.float32),
            np.diagflat(m), np.diagflat(i[:3], -1), np.insert(m, 1, 5),
            np.insert(m, 1, [7, 8], axis=1), np.insert(m, [1], [[7], [8]], axis=1),
            np.insert(m, [0, 2, 2], 9, axis=1), np.insert(i, slice(1, 3), [10, 20]),
            np.insert(m, 1, [1, 2, 3], axis=0), np.insert(i, -1, 2.7), np.insert(i, 6, s),
            np.delete(m, 1, axis=1), np.delete(i, [0, -1]), np.delete(i, slice(None, None, 2)),
            np.delete(m, [True, False], axis=0), np.block([[m, m], [m * 2, m]]),
            np.block([a[:2], i[:3]]), np.block([[s]]), np.block(m), np.block([[m], [m[:1]]]),
            np.histogram_bin_edges(a, 4), np.histogram_bin_edges(a, 3, range=(0, 10)),
            np.histogram(a, 3, density=True), np.histogram(a, 2, weights=a.astype(np.float32),
                                                           density=True))


def test_creation_and_rearranging_are_numpys() -> None:
    check_native(creation_and_rearranging, np.array([0.5, 3.0, -2.0, 7.0, 1.0, 4.0, -1.0, 2.5]),
                 np.array([7, -7, 3, 0, 2, 5]), np.array(3.0))


def piecewise_and_histograms(x, y, w, s):
    return (np.piecewise(x, [x < 0, x > 1], [-1.0, lambda v: v * 2]),
            np.piecewise(x, x > 0.5, [lambda v: v ** 2, lambda v: -v]),
            np.piecewise(x, [x < 0, x >= 0], [lambda v, k: v * k, lambda v, k: v + k], 3.0),
            np.piecewise(x[:5], [True, False, True, False, True], [7.0]),
            np.piecewise(s, [s > 0], [lambda v: v + 1, 5.0]),
            np.histogram2d(x, y, bins=3), np.histogram2d(x, y, (2, 4), [(-1, 1), None], weights=w),
            np.histogram2d(x, y, 3, density=True),
            np.histogramdd(np.stack([x, y, w], 1), (2, 3, 2)), np.histogramdd(x, bins=4),
            np.histogramdd([x, y], 2, [(0, 2), (-1, 0.5)], density=True, weights=w))


def test_piecewise_and_histograms_are_numpys() -> None:
    """piecewise's functions see the selected elements only; histogram2d and
    histogramdd count as float64, NumPy's edges and bins per axis."""
    x, y, w = np.random.default_rng(0).normal(size=(3, 30))
    check_native(piecewise_and_histograms, x, y, w, np.array(2.0))


@pytest.mark.parametrize("loss", [
    lambda x: np.apply_along_axis(lambda r: np.sin(r).prod() * r, 1, x.reshape(2, 3)).sum(),
    lambda x: np.nanvar(np.where(x > 1.5, np.nan, x)) + np.nanstd(x[:3]),
    lambda x: np.nanmedian(np.where(x > 1.5, np.nan, x)) + np.nanquantile(x, 0.3),
    lambda x: (np.i0(x) * np.arange(6)).sum() + np.i0(x * 6).sum(),
    lambda x: (np.unwrap(x * 4) ** 2).sum(),
    lambda x: np.vecdot(x, x[::-1]) + np.linalg.vector_norm(x, ord=3),
    lambda x: np.polyval(np.polyint(x[:3]), x).sum() + np.polyfit(np.arange(6.0), x, 2)[0],
    lambda x: np.float_power(np.abs(x) + 1, 1.5).sum() + np.geomspace(1.0, x[0] + 3, 4).sum(),
], ids=["apply_along_axis", "nanvar", "nanmedian", "i0", "unwrap", "vecdot", "polynomials",
        "float_power"])
def test_gradients_match_finite_differences(loss) -> None:
    x = np.array([0.3, -1.2, 2.0, 0.7, 1.1, -0.4])
    got = jitaic.jit(jitaic.grad(loss), callbacks=False)(x)
    np.testing.assert_allclose(got, finite_difference(loss, (x,), 0), rtol=1e-6, atol=1e-8)


def float_ufuncs(x, y, n, m):
    return (np.fmod(x, y), np.fmod(n, m), np.fmod(n.astype(np.uint8), m.astype(np.uint8)),
            np.ldexp(x, n), np.ldexp(x.astype(np.float32), n), np.nextafter(x, y),
            np.nextafter(x.astype(np.float32), np.float32(0)), np.spacing(x),
            np.spacing(x.astype(np.float32)), np.gcd(n, m), np.lcm(n, m), np.bitwise_count(n),
            np.bitwise_count(m.astype(np.int8)), np.frexp(x), np.frexp(x.astype(np.float32)),
            np.frexp(m))


def sorts(x, i):
    return (np.sort(x), np.sort(x, axis=0), np.sort(x, axis=None), np.sort(x, kind="stable"),
            np.sort(x, kind="heapsort"), np.sort(x, stable=True), np.sort(x, kind="Q"),
            np.sort(x.T, axis=-1), np.sort(i.astype(np.int8)), np.sort(i, axis=0),
            np.sort(x > 0, axis=0), np.sort(x + 1j * x[::-1]), np.sort(x.astype(np.float32)),
            np.unique(x), np.unique(x, return_counts=True), np.intersect1d(x, x[::-1]),
            np.union1d(x[0], x[1]), np.setxor1d(x[0], x[1]))


def test_sort_is_numpys_own_bit_for_bit() -> None:
    """Ties of 0.0 and -0.0 (and NaNs) land where NumPy's sort loop of each
    kind puts them: a stable sort differs from NumPy's quicksort there."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 300)).round(1)
    x[:, ::7], x[:, ::11], x[:, 1::13] = np.nan, -0.0, 0.0
    check_native(sorts, x, rng.integers(-9, 9, (4, 300)))


def test_sort_without_numpys_loop_is_the_stable_radix_sort(monkeypatch) -> None:
    """Where NumPy's sort loop is not found (another NumPy, a probe that
    differs), the lowering sorts stably: NumPy's kind="stable" bit for bit."""
    from jitaic.lower import numpy_sort

    monkeypatch.setattr(numpy_sort, "available", lambda dtype, kind: False)
    rng = np.random.default_rng(4)
    x = rng.normal(size=(3, 300)).round(1)
    x[:, ::7], x[:, ::11], x[:, 1::13] = np.nan, -0.0, 0.0
    check_native(lambda x: (np.sort(x, kind="stable"), np.sort(x.T, axis=0, stable=True),
                            np.sort(x.astype(np.int32), kind="stable")), x)


def test_sort_in_place_and_its_gradient() -> None:
    def in_place(x):
        x.sort(axis=0)
        return x

    check_native(in_place, np.array([[0.0, 2.0], [-0.0, np.nan], [1.0, -3.0]]))
    v = np.array([3.0, 1.0, 2.0, 1.5, 0.0])
    loss = lambda v: (np.sort(v) * np.arange(5.0)).sum() + np.sort(v ** 2)[-1]  # noqa: E731
    np.testing.assert_allclose(jitaic.jit(jitaic.grad(loss), callbacks=False)(v),
                               finite_difference(loss, (v,), 0), rtol=1e-6)


def along_axes(x, i):
    return (np.apply_along_axis(np.sum, 0, x), np.apply_along_axis(lambda r: r[::-1] * 2, 1, x),
            np.apply_along_axis(lambda r: np.outer(r, r), -1, x),
            np.apply_along_axis(np.argmax, 0, x),
            np.apply_along_axis(lambda r, s: np.sort(r) + s, 1, x, s=i[0]),
            np.apply_along_axis(lambda r: np.stack([r.min(), r.max()]), 1,
                                x.reshape(2, 2, 3)),
            np.apply_along_axis(lambda r: r.astype(np.int8)[r[:1].astype(np.int64)], 0, i),
            np.apply_along_axis(lambda r: r > 0, 0, x[0]))


def test_apply_along_axis_is_numpys() -> None:
    check_native(along_axes, np.array([[0.5, -0.0, 2.0, np.nan], [3.0, 1.0, -1.0, 0.0],
                                       [7.0, np.inf, 2.5, -2.0]]), np.array([1, 0, 2]))


def test_apply_along_axis_reads_a_run_time_index_in_its_loop() -> None:
    with pytest.raises(IndexError, match="test_numpy_breadth.py:"):
        jitaic.jit(lambda x, i: np.apply_along_axis(lambda r: r[i[0]], 1, x),
                   callbacks=False)(np.ones((2, 3)), np.array([3]))


def test_the_last_ufuncs_are_numpys() -> None:
    """fmod (C's, and NumPy's 0 for an integer over 0), ldexp (exponents
    beyond C's int clamped), nextafter, spacing (of -0.0: positive), gcd,
    lcm, bitwise_count (of |x|), frexp: every NumPy ufunc on numbers."""
    i64 = np.iinfo(np.int64)
    check_native(float_ufuncs,
                 np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-310, 5e-324,
                           1.7e308, 3.5, -7.25, 0.75, 1 - 2.0**-53, 2.0, 0.5]),
                 np.array([1.0, 1.0, np.inf, 0.0, 0.0, np.nan, 1.0, -1.0, 0.0, np.inf, -0.0,
                           2.0, 0.3, 3.0, -2.0, 0.1]),
                 np.array([3, -2000, 2000, 5, 1, -1, 0, 60, 1, 10, -1080, 2**40, 7, -7, i64.min,
                           12]),
                 np.array([2, 0, 3, -2, -1, 0, 5, 9, 4, 6, 7, 3, -3, 2, -1, 8]))


def test_what_the_fuzzer_found_with_numpy_functions() -> None:
    """setdiff1d keeps ar1's dtype (the sort of both ran in their common one),
    np.histogram of no data bins (0, 1) as NumPy's, np.repeat repeats an array
    of run-time length."""
    def mixed(a, b, i):
        v = b[i[0]:]
        return (np.setdiff1d(b, a), np.setdiff1d(a, b), np.histogram(a, bins=3),
                np.histogram(a.astype(np.float32), bins=2), np.repeat(v, 2), np.repeat(v, 0),
                np.repeat(v * 1.5, 3, axis=0))

    for start in (0, 2, 3):
        check_native(mixed, np.zeros((0, 2), np.int32), np.array([0, 7, 300], np.uint16),
                     np.array([start]))
    loss = lambda x: (np.repeat(x[np.argmax(x):], 3) ** 2).sum()  # noqa: E731
    x = np.array([0.5, 2.0, 1.0, -1.0])
    np.testing.assert_allclose(jitaic.jit(jitaic.grad(loss), callbacks=False)(x),
                               finite_difference(loss, (x,), 0), rtol=1e-6)


def test_quantiles_at_integer_levels_take_elements() -> None:
    """An integer q (0 or 1) makes NumPy's virtual indices integers: it takes
    the elements, in the array's dtype (bools too); a constant q array made
    in the function is static."""
    check_native(lambda x, b, f: (np.quantile(x, 1), np.quantile(b, 0), np.quantile(x, [0, 1]),
                                  np.quantile(f, np.array([0, 1])), np.nanquantile(f, 1),
                                  np.quantile(x, 1, axis=-1, keepdims=True),
                                  np.quantile(x[x[0] - 2:], 1), np.percentile(x, 100),
                                  np.quantile(f, np.array([0.25, 0.75]))),
                 np.array([3, 1, 2]), np.array([True, False, True]),
                 np.array([3.5, np.nan, 1.0], np.float32))


def test_round_of_integers_to_tens_and_beyond() -> None:
    """NumPy's: in float64 (half to even), cast back, out of range included."""
    check_native(lambda x, u, s: (np.round(x, -1), np.round(u, -2), np.around(s, -3),
                                  x.round(-18), np.round(x[0], -1)),
                 np.array([15, 25, -15, 2**62 + 1, 2**63 - 1, -5, 5, 35]),
                 np.array([250, 150, 49, 255], np.uint8), np.array([-128, 127, 0], np.int8))


def test_a_zero_dimensional_traced_mask_makes_an_axis_of_one_or_none() -> None:
    """x[m] for a 0-d bool m is x with a new first axis of length m (NumPy's
    x[True] and x[False]), also of a 0-d x."""
    for m in (np.array(True), np.array(False)):
        check_native(lambda x, m: (x[m], x[x > 1], (x * np.arange(3.0))[m], x[m].sum()),
                     np.array(2.5), m)
    grad = jitaic.grad(lambda x, m: (x[m] ** 2).sum())
    assert grad(np.array(3.0), np.array(True)) == 6.0
    assert grad(np.array(3.0), np.array(False)) == 0.0


def test_signbit_of_small_integers_and_bools() -> None:
    """NumPy's loop for them is float16's (a dtype jitaic has not): the signs
    are the same in float32."""
    check_native(lambda i, b: (np.signbit(i), np.signbit(i.astype(np.uint8)), np.signbit(b)),
                 np.array([0, 1, -1, -128, 127], np.int8), np.array([True, False]))


def test_log2_exp2_and_spacing_of_both_float_widths_in_one_function() -> None:
    """numba's versions of these for float32 and float64 clash in one function."""
    check_native(lambda x: (np.log2(x), np.log2(x.astype(np.float32)), np.exp2(x),
                            np.exp2(x.astype(np.float32)), np.spacing(x),
                            np.spacing(x.astype(np.float32))), np.array([0.5, 3.0, 1e-3]))
