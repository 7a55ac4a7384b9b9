"""NumPy's semantics where differential testing found jitaic silently different.

Each case is a reproducer of issue #17 (or a sibling of one): the jitted call
must give NumPy's values, dtypes and argument contents, or raise NumPy's
exception type, with the user's line in the message. Where NumPy's result
would depend on the data in a way static types cannot follow, jitaic raises
an error naming the variable instead.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import assert_same, finite_difference

import jitaic

INT64_MIN = np.iinfo(np.int64).min


def check_like_numpy(fn, *args, mode: str = "auto") -> None:
    """Result and arguments afterwards as NumPy's, on the compiling and the cached call."""
    f = jitaic.jit(fn, mode=mode)
    for _ in range(2):
        np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        jit_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        with np.errstate(all="ignore"):
            want = fn(*np_args)
        assert_same(f(*jit_args), want, path="return value")
        assert_same(jit_args, np_args, path="arguments after the call")


def check_raises_like_numpy(fn, *args) -> None:
    """NumPy's exception type, NumPy's message (or its start), and this file's name."""
    with pytest.raises(Exception) as numpy_error, np.errstate(all="ignore"):
        fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    # NumPy's own subclasses (UFuncTypeError) are matched by their builtin base
    builtin = next(c for c in type(numpy_error.value).__mro__ if c.__module__ == "builtins")
    with pytest.raises(builtin) as ours:
        jitaic.jit(fn)(*args)
    message = str(ours.value)
    assert "test_numpy_semantics.py:" in message
    if type(numpy_error.value) is not ValueError or "histogram" not in fn.__name__:
        assert str(numpy_error.value).split(" at ")[0][:30] in message


def check_as_numpy_does(fn, *args, mode: str = "auto") -> None:
    """NumPy's result or NumPy's error, whichever NumPy gives for these arguments."""
    try:
        with np.errstate(all="ignore"):
            fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    except Exception:
        check_raises_like_numpy(fn, *args)
    else:
        check_like_numpy(fn, *args, mode=mode)


# ---------------------------------------------------------------- run-time indices

def sum_to(x, n):
    s = 0.0
    i = 0
    while i < n[0]:
        s += x[i]
        i += 1
    return s


def read_at(a, idx):
    return a[idx[0]]


def write_at(a, idx):
    a[idx[0]] = 1.0
    return a


def fill_until(a, lim):
    i = 0
    while i < lim[0]:
        a[i] = 1.0
        i += 1
    return a


def row_at(a, idx):
    return a[idx[0]] * 2


@pytest.mark.parametrize("fn, args", [
    (sum_to, (np.arange(3.0), np.array([5]))),
    (read_at, (np.arange(3.0), np.array([7]))),
    (read_at, (np.arange(3.0), np.array([-7]))),
    (read_at, (np.arange(3.0), np.array([10**12]))),
    (write_at, (np.arange(3.0), np.array([7]))),
    (write_at, (np.arange(3.0), np.array([-4]))),
    (fill_until, (np.arange(3.0), np.array([5]))),
    (row_at, (np.ones((2, 3)), np.array([2]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_run_time_index_out_of_bounds_raises_numpys_index_error(fn, args) -> None:
    check_raises_like_numpy(fn, *args)


@pytest.mark.parametrize("index", [0, 2, -1, -3])
def test_run_time_indices_in_bounds_still_work(index) -> None:
    check_like_numpy(read_at, np.arange(3.0), np.array([index]))
    check_like_numpy(write_at, np.arange(3.0), np.array([index]))
    check_like_numpy(row_at, np.arange(6.0).reshape(3, 2), np.array([index]))


def store_pair_at(a, idx):
    a[idx[0]] = np.array([1.0, 2.0])
    return a


def store_nan_at(a, idx):
    a[idx[0]] = np.nan
    return a


@pytest.mark.parametrize("fn", [store_pair_at, store_nan_at])
@pytest.mark.parametrize("index", [0, 5])
def test_a_store_checks_the_index_before_the_value(fn, index) -> None:
    """Out of bounds: NumPy's IndexError, not the value's ValueError, which
    comes only when the index is in bounds (the fuzzer found the ValueError)."""
    check_raises_like_numpy(fn, np.zeros(3, np.int64), np.array([index]))


def window_at(a, idx):
    return a[idx[0]:idx[0] + 2].sum()


@pytest.mark.parametrize("fn", [np.logaddexp, np.logaddexp2])
def test_logaddexp_of_complex_values_is_numpys_type_error(fn) -> None:
    """NumPy has no complex loop for them (jitaic computed a value)."""
    check_raises_like_numpy(lambda z: fn(z, z), np.array([1j, 2.0]))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.uint64])
def test_unsigned_run_time_indices_index_like_signed_ones(dtype) -> None:
    """numba turns uint64 + int into a float: the index arithmetic must not."""
    for index in (0, 2):
        idx = np.array([index], dtype)
        check_like_numpy(read_at, np.arange(3.0), idx)
        check_like_numpy(write_at, np.arange(3.0), idx)
        check_like_numpy(row_at, np.arange(6.0).reshape(3, 2), idx)
    check_like_numpy(window_at, np.arange(4.0), np.array([1], dtype))
    check_raises_like_numpy(read_at, np.arange(3.0), np.array([3], dtype))
    check_raises_like_numpy(write_at, np.arange(3.0), np.array([200], dtype))
    if dtype == np.uint64:  # beyond int64: NumPy's C long overflows, not a negative index
        check_raises_like_numpy(read_at, np.arange(3.0), np.array([2**64 - 1], dtype))


# ---------------------------------------------------------------- values and dtypes

B = np.array([1, 2, -8, 2**62, 0], dtype=np.int64)
U8 = np.array([1, 2, 255], dtype=np.uint8)


@pytest.mark.parametrize("fn, args", [
    (lambda a: a.sum(axis=()), (np.arange(4.0),)),
    (lambda a: a.mean(axis=()), (np.arange(4, dtype=np.int8),)),
    (lambda a: np.prod(a, axis=(), keepdims=True), (np.arange(6, dtype=np.int8).reshape(2, 3),)),
    # over no axis NumPy folds each element into the identity (a fuzzer find):
    # 0.0 + -0.0 is 0.0, (1 + 0j) * (-inf + inf j) is NaN
    (lambda a: (a.sum(axis=()), a.mean(axis=()), a.prod(axis=())),
     (np.array([-0.0, np.inf, np.nan, 2.0]),)),
    (lambda c: (c.prod(axis=()), c.sum(axis=(), keepdims=True)),
     (np.array([complex(-np.inf, np.inf), complex(np.nan, 1.0), -0.0 - 0.0j]),)),
    (lambda b: b >> 64, (B,)),
    (lambda b: b << 64, (B,)),
    (lambda b: np.left_shift(b, -2), (B,)),
    (lambda b: np.right_shift(b, -1), (B,)),
    (lambda b: b >> np.full(5, 64), (B,)),
    (lambda b, c: b >> c, (B, np.array([0, 63, 64, 65, -1]))),
    (lambda u: u >> 9, (U8,)),
    (lambda u: u << np.uint8(9), (U8,)),
    (lambda u, c: u << c, (np.array([1, 2, 3], np.uint64), np.array([63, 64, 200], np.uint64))),
    (lambda b, c: b // c, (np.array([INT64_MIN, 5, -5, 7]), np.array([-1, 0, 3, -2]))),
    # numba's ** goes through float pow for exponents above 2**16 (a fuzzer find)
    (lambda b: b ** np.abs(b), (np.array([2**31 - 1, 3, -3, 0], np.int32),)),
    (lambda b: (b ** 100_001, b ** (2**40 + 1)), (np.array([3, -3, 2], np.int64),)),
    (lambda b, c: b ** c, (np.array([3, 5, 7], np.uint32),
                           np.array([70_000, 3, 2**31], np.uint32))),
    (lambda b: b // np.int64(-1), (np.array([INT64_MIN, 5]),)),
    (lambda b, c: b // c, (np.array([-128, 5], np.int8), np.array([-1, -1], np.int8))),
    (lambda x: x ** 0.5, (np.array([-np.inf, -0.0, 4.0, np.nan, np.inf]),)),
    (lambda x: np.power(x, 0.5), (np.array([-np.inf, -0.0], np.float32),)),
    (lambda x: x[0] ** 0.5, (np.array([-np.inf, -0.0]),)),  # a NumPy scalar: C's pow
    (lambda x, e: x ** e[0], (np.array([-np.inf, -0.0, 9.0]), np.array([0.5, 2.0]))),
    (lambda a: a ** 2, (np.array([True, False]),)),
    (lambda a: a ** np.int64(2), (np.array([True, False]),)),
    (lambda a: a.cumsum(dtype=np.int8), (np.array([100, 100, 100]),)),
    (lambda a: np.cumprod(a, dtype=np.int16), (np.array([100, 100, 100]),)),
    (lambda a: a.mean(dtype=np.int32), (np.array([1.5, 2.5]),)),
    (lambda a: a.var(dtype=np.int8), (np.array([1, 5, 9]),)),
    (lambda a: np.var(a, dtype=np.int64), (np.array([1.0, 5.0, 9.5]),)),
    (lambda a: np.std(a, dtype=np.int64), (np.array([1.0, 5.0, 9.5]),)),
    (lambda a: np.var(a, axis=0, dtype=np.float32), (np.arange(6.0).reshape(3, 2),)),
    (lambda a, b: a ** b, (np.array([2, 3]), np.array([3, 0]))),
    (lambda a, b: a ** b, (np.array([0, 2, 3, 2**63 + 5], np.uint64),
                           np.array([2**63, 2**63 + 1, 5, 3], np.uint64))),
    (lambda a, b: np.inner(a, b), (np.ones((2, 3, 4)), np.arange(120.0).reshape(5, 6, 4))),
    (lambda a: np.sum(a, axis=-1), (np.array(3.0),)),
    (lambda a: a.max(axis=0), (np.array(3.0),)),
    (lambda u: u == 300, (U8,)),
    (lambda u: u != -1, (U8,)),
    (lambda u: -1 < u, (U8,)),
    (lambda u: u >= 300, (U8,)),
    (lambda b: b == 2**64, (B,)),
    (lambda b: b > -(2**64), (B,)),
    (lambda a: a * 2**70, (np.array([1.0, 2.0], np.float32),)),
    (lambda a: np.argmin(a, axis=0), (np.array(3.0),)),
    (lambda a: np.repeat(a, 2, axis=0), (np.array(3.0),)),
    (lambda a: np.median(a, axis=0), (np.zeros((4, 0, 3)),)),
    (lambda a, b: np.tensordot(a, b, axes=([1, 0], [0, 1])),
     (np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2))),
    (lambda a, b: np.tensordot(a, b, 1), (np.zeros((2, 0)), np.zeros((0, 2)))),
    (lambda a, b: np.einsum("ij,jk->ik", a, b), (np.ones((2, 1)), np.arange(12.0).reshape(3, 4))),
    (lambda a: np.minimum.reduce(a, axis=0), (np.array(3.0),)),
    (lambda a: np.add.reduce(a, axis=1, keepdims=True), (np.ones((2, 3)),)),
    (lambda u: np.clip(u, -1, 3), (U8,)),
    (lambda u: np.clip(u, None, 300), (U8,)),
])
def test_values_and_dtypes_are_numpys(fn, args) -> None:
    check_like_numpy(fn, *args)


def test_a_sum_over_no_axis_makes_negative_zeros_positive_as_numpy_does() -> None:
    """0.0 + -0.0 is 0.0: NumPy folds each element into the identity
    (assert_same does not compare the signs of zeros)."""
    x = np.array([-0.0, 1.0])
    for fn in (lambda a: a.sum(axis=()), lambda a: a.mean(axis=(), keepdims=True)):
        got, want = jitaic.jit(fn)(x), fn(x)
        assert np.signbit(got).tolist() == np.signbit(want).tolist() == [False, False]


def _lanes_to_sort(dtype: np.dtype) -> np.ndarray:
    """Two lanes (axis 0, strided) long enough for the radix sort, with ties,
    both zeros, NaNs and the dtype's extremes."""
    rng = np.random.default_rng(11)
    if dtype.kind == "b":
        return rng.random((600, 2)) > 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = np.concatenate([rng.integers(info.min, info.max, 500, dtype=dtype, endpoint=True),
                                 np.array([info.min, info.max, 0, 1] * 25, dtype)])
    else:
        special = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -1.0] * 12)
        values = np.concatenate([rng.standard_normal(504).round(1), special]).astype(dtype)
        if dtype.kind == "c":
            values = values + 1j * rng.standard_normal(600).round(1).astype(dtype)
    return rng.permutation(values).reshape(300, 2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint64, np.int8,
                                   np.uint16, np.bool_, np.complex128])
def test_argsort_is_numpys_stable_argsort(dtype) -> None:
    """jitaic's argsort is stable (a radix sort of keys in NumPy's order, or
    numba's merge sort for complex values): NaNs last in input order, 0.0
    and -0.0 equal."""
    a = _lanes_to_sort(np.dtype(dtype))
    got = jitaic.jit(lambda a: np.argsort(a, axis=0), callbacks=False)(a)
    np.testing.assert_array_equal(got, np.argsort(a, axis=0, kind="stable"))


def _is_partition(result: np.ndarray, a: np.ndarray, kth, axis) -> None:
    """What np.partition promises, whatever the order within the parts: the
    same elements, NumPy's sorted value at each kth, none greater before it
    nor smaller after it (NaN sorts last)."""
    if axis is None:
        result, a, axis = result.ravel(), a.ravel(), 0
    ordered = np.sort(a, axis=axis)
    np.testing.assert_array_equal(np.sort(result, axis=axis), ordered)
    for k in np.atleast_1d(kth):
        at = np.take(result, [k], axis=axis)
        np.testing.assert_array_equal(at, np.take(ordered, [k], axis=axis))
        before, after = np.split(result, [k % result.shape[axis]], axis=axis)
        with np.errstate(invalid="ignore"):  # (complex NaNs compared)
            assert not np.any(before > at) and not np.any(after < at)
        assert not np.any(np.isnan(before) & ~np.isnan(at))


def partitions(a):
    inplace = a[1:].copy()
    inplace.partition(1, axis=0)
    return (np.partition(a, 2), np.partition(a, (0, -1), axis=0), np.partition(a, 4, axis=None),
            np.argpartition(a, np.array([1, 3])), a.argpartition(2, axis=0), inplace)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.uint8, np.complex128])
def test_partitions_are_partitions_as_numpy_defines_them(dtype) -> None:
    """np.partition and np.argpartition (native: a stable sort is one valid
    partition), the method in place, each lane along the axis."""
    a = _lanes_to_sort(np.dtype(dtype))[:24].reshape(4, 6, 2)[..., 0]
    got = jitaic.jit(partitions, callbacks=False)(a)
    for result, kth, axis in zip(got[:3], (2, (0, -1), 4), (-1, 0, None), strict=True):
        _is_partition(result, a, kth, axis)
    _is_partition(np.take_along_axis(a, got[3], -1), a, (1, 3), -1)
    _is_partition(np.take_along_axis(a, got[4], 0), a, 2, 0)
    _is_partition(got[5], a[1:], 1, 0)


@pytest.mark.parametrize("call", [
    lambda a: np.partition(a, 5), lambda a: np.partition(a, -6), lambda a: np.partition(a, True),
    lambda a: np.partition(a, 2.0), lambda a: np.partition(a, []),
    lambda a: np.partition(a, 2, kind="quick"), lambda a: np.argpartition(a[0], 1),
    lambda a: np.partition(a[0], 0), lambda a: a.reshape(5, 1).argpartition(5, axis=0),
])
def test_partitions_raise_numpys_errors(call) -> None:
    check_raises_like_numpy(call, np.arange(5.0))


def compositions(a, b):
    return (np.heaviside(a, 0.5), np.heaviside(a, b), np.lexsort((a, np.round(b))),
            np.isin(a, b[::2]), np.isin(np.round(b), [0.0, 1.0], invert=True), np.ptp(b),
            np.corrcoef(a, b), np.ediff1d(a, to_begin=[7.0]), np.resize(b, (3, 4)),
            np.linalg.multi_dot([a[:3], np.outer(a, b)[:3], b]))


def test_compositions_are_native_and_numpys() -> None:
    """With callbacks=False: these used to go to NumPy through the callback."""
    a = np.array([-1.5, 0.0, -0.0, 2.0, np.nan, 1.0, 0.0, 3.0])
    b = np.array([0.25, 1.0, -2.0, 0.0, 1.0, 0.6, 3.0, -0.0])
    with np.errstate(invalid="ignore"):
        check = jitaic.jit(compositions, callbacks=False)(a, b), compositions(a, b)
    assert_same(*check)


@pytest.mark.parametrize("call", [
    lambda a: np.linalg.multi_dot([a]), lambda a: np.linalg.multi_dot([a, a, a.reshape(1, 2, 3)]),
    lambda a: np.linalg.tensorinv(a.reshape(2, 3), ind=0),
    lambda a: np.linalg.tensorsolve(a.reshape(2, 3), a[:2]),
    lambda a: np.ediff1d(a.astype(np.int64), to_end=1.5), lambda a: np.ediff1d(a > 0),
    lambda a: np.resize(a, (2, -1)), lambda a: np.lexsort((a, a[:2])),
    lambda a: np.heaviside(a + 1j, 0.5),
], ids=["multi_dot of one", "multi_dot of 3-d", "tensorinv ind", "tensorsolve shapes",
        "ediff1d to_end", "ediff1d of bools", "resize", "lexsort shapes", "heaviside of complex"])
def test_compositions_raise_numpys_errors(call) -> None:
    check_raises_like_numpy(call, np.arange(6.0))


def test_argsort_of_a_0d_array_sorts_it_as_1d() -> None:
    """NumPy's argsort and argpartition of a 0-d array are [0]; the lowering
    wrote invalid code for them."""
    check_like_numpy(lambda a: (np.argsort(a), a.argsort(axis=0), np.argpartition(a, 0)),
                     np.array(3.0))


_SPECIAL = np.array([np.nan, np.inf, -np.inf, -1.0, -1.5, 0.5, -0.5, 300.0, -300.0, 7e4,
                     3e9, -3e9, 1e10, -1e10, 2.0**63, -(2.0**63), 1e20, -1e20, 2.0**64])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                   np.int64, np.uint64, np.uint32])
@pytest.mark.parametrize("source", [np.float64, np.float32])
def test_float_to_integer_casts_give_numpys_values_outside_the_range(source, dtype) -> None:
    values = _SPECIAL.astype(source)
    if dtype == np.uint32:  # NumPy's own SIMD loop: beyond (-2**32, 2**32) not followed
        values = values[np.abs(values) < 2.0**32]
    check_like_numpy(lambda a: a.astype(dtype), values)
    check_like_numpy(lambda a: (a * 1).astype(dtype) < 2, values)  # fused, as LLVM sees it


# ---------------------------------------------------------------- NumPy's errors

def int_power_negative(a):
    return a ** -1


def int_power_negative_array(a, b):
    return a ** b


def int_power_negative_scalar(a, b):
    return a ** b[0]


def store_nan_into_int(a):
    a[0] = np.nan
    return a


def store_traced_nan_into_int(a, b):
    a[1:] = b[0]
    return a


def store_traced_inf_into_int(a, b):
    a[0] = b[0]
    return a


def fill_int_with_nan(a):
    a.fill(np.nan)
    return a


def histogram_of_nan(a):
    return np.histogram(a)


def histogram_over_nan_range(a):
    return np.histogram(a, range=(0.0, np.nan))


def std_int_dtype_of_rows(a):
    return np.std(a, axis=0, dtype=np.int64)


@pytest.mark.parametrize("fn, args", [
    (int_power_negative, (np.array([1, 2]),)),
    (int_power_negative_array, (np.array([1, 2]), np.array([1, -1]))),
    (int_power_negative_scalar, (np.array([1, 2]), np.array([-1]))),
    (store_nan_into_int, (np.array([1, 2]),)),
    (store_traced_nan_into_int, (np.array([1, 2]), np.array([np.nan]))),
    (store_traced_inf_into_int, (np.array([1, 2]), np.array([-np.inf]))),
    (fill_int_with_nan, (np.array([1, 2]),)),
    (histogram_of_nan, (np.array([1.0, np.nan, 2.0]),)),
    (histogram_of_nan, (np.array([1.0, np.inf, 2.0]),)),
    (histogram_over_nan_range, (np.array([1.0, 2.0]),)),
    (std_int_dtype_of_rows, (np.arange(6.0).reshape(3, 2),)),
    (lambda u: u + 300, (U8,)),
    (lambda u: np.clip(u, 300, None), (U8,)),
    (lambda x: np.split(x, 4), (np.ones((3, 2)),)),
    (lambda x: np.split(x, 3, axis=-1), (np.ones((3, 2)),)),
    (lambda x: np.array_split(x, 0), (np.ones(4),)),
    (lambda x: np.hsplit(x, 1), (np.array(1.0),)),
    (lambda x: np.vsplit(x, 2), (np.ones(4),)),
    (lambda x: np.dsplit(x, 2), (np.ones((2, 2)),)),
    (lambda x: np.rot90(x, 1, (1, 1)), (np.ones((2, 2)),)),
    (lambda x: np.rot90(x, 1, (0, 2)), (np.ones((2, 2)),)),
    (lambda x: np.rot90(x, 1, (0,)), (np.ones((2, 2)),)),
    (lambda x: np.fliplr(x), (np.ones(3),)),
    (lambda x: np.flipud(x), (np.array(1.0),)),
    (lambda x: np.rollaxis(x, 0, 4), (np.ones((2, 2)),)),
    (lambda x: np.select([x > 0], [x, x]), (np.ones(3),)),
    (lambda x: np.select([x], [x]), (np.ones(3),)),
    (lambda a, b: np.dot(a, b), (np.ones((2, 3, 4)), np.ones((5, 6)))),
    (lambda a, b: np.dot(a, b), (np.ones((2, 3)), np.ones((4, 2)))),
    (lambda a, b: np.dot(a, b), (np.ones(3), np.ones(4))),
    (lambda x: np.pad(x, -1), (np.ones(3),)),
    (lambda x: np.pad(x, 1.5), (np.ones(3),)),
    (lambda x: np.pad(x, (1, 2, 3)), (np.ones(3),)),
    (lambda x: np.pad(x, 1, mode="edge"), (np.ones(0),)),
    (lambda x: np.pad(x, 1, mode="wrap", constant_values=2), (np.ones(3),)),
    (lambda x: np.einsum("ijk", x), (np.ones((2, 3)),)),
    (lambda x: np.einsum("i", x), (np.ones((2, 3)),)),
    (lambda x: np.einsum("i1", x), (np.ones((2, 3)),)),
    (lambda x: np.einsum("i..j", x), (np.ones((2, 3)),)),
    (lambda x: np.einsum("ij,jk", x), (np.ones((2, 3)),)),
    (lambda x: np.einsum("ij", x, x), (np.ones((2, 3)),)),
    (lambda x: np.einsum("ij->ii", x), (np.ones((2, 3)),)),
    (lambda x: np.einsum("ij->k", x), (np.ones((2, 3)),)),
    (lambda x: np.einsum("...i->i", x), (np.ones((2, 3)),)),
    (lambda x: np.einsum("ii->i", x), (np.ones((2, 3)),)),
    (lambda x: np.einsum(x, [0, 52]), (np.ones((2, 3)),)),
    (lambda x: np.einsum(x, [0, -1]), (np.ones((2, 3)),)),
    (lambda x: np.diagonal(x), (np.ones(3),)),
    (lambda x: np.diagonal(x, 0, 1, -1), (np.ones((2, 3)),)),
    (lambda x: np.trace(x, 0, 0, 2), (np.ones((2, 3)),)),
    (lambda x: np.gradient(x), (np.ones((1, 3)),)),
    (lambda x: np.gradient(x, edge_order=2), (np.ones((2, 3)),)),
    (lambda x: np.gradient(x, edge_order=3), (np.ones((4, 3)),)),
    (lambda x: np.gradient(x, 1.0, 2.0, 3.0), (np.ones((4, 3)),)),
    (lambda x: np.gradient(x, np.ones((4, 3)), axis=0), (np.ones((4, 3)),)),
    (lambda x: np.gradient(x, np.arange(3.0), axis=0), (np.ones((4, 3)),)),
    (lambda x: np.take(x[:, :0], [1], axis=1, mode="wrap"), (np.ones((4, 3)),)),
    (lambda x: np.take(x, [1], mode="bad"), (np.ones((4, 3)),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_numpys_errors(fn, args) -> None:
    check_raises_like_numpy(fn, *args)


def test_storing_a_finite_traced_float_into_int_truncates_like_numpy() -> None:
    check_like_numpy(store_traced_inf_into_int, np.array([1, 2]), np.array([-2.7]))


def store_first(d, v):
    d[0] = v
    return d


def store_through_itself(c, v):
    c[c] = v
    return c


@pytest.mark.parametrize("shape", [(0, 0, 0), (2, 0), (2, 1), (0, 5), (1,)])
def test_an_empty_value_stored_through_index_arrays_may_have_more_axes(shape) -> None:
    """NumPy takes an empty value with extra leading axes of any length
    through an empty index array ((2, 0) into (0,)), not a non-empty one
    ((2, 1)); jitaic refused both (a fuzzer find)."""
    check_as_numpy_does(store_through_itself, np.zeros(0, np.int8), np.zeros(shape, np.int8))


def store_first_through_index_array(a, i, v):
    a[i] = v[0]
    return a


def store_first_through_mask(a, i, v):
    a[a > -1] = v[0]
    return a


@pytest.mark.parametrize("fn", [store_first_through_index_array, store_first_through_mask])
@pytest.mark.parametrize("value", [np.array([254], np.uint8), np.array([300.5])])
def test_a_numpy_scalar_stored_through_a_mask_or_index_array_is_cast(fn, value) -> None:
    """NumPy range-checks Python scalars there, but casts its own scalars as
    arrays (the fuzzer found an OverflowError where NumPy stores -2)."""
    check_like_numpy(fn, np.zeros(2, np.int8), np.array([0, 1], np.uint8), value)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_a_float_scalar_stored_into_an_int_array_must_fit_its_dtype(dtype) -> None:
    """NumPy truncates it with Python's int() and checks the range: 5.3e11 into
    int32 is an OverflowError (the fuzzer found jitaic wrapping it), -128.5 into
    int8 fits, -2.0**63 fits int64. A NumPy float into an unsigned dtype is cast."""
    info = np.iinfo(dtype)
    values = [np.float64(5.3e11), np.float64(info.max + 0.5), np.float64(info.min - 0.5),
              np.float64(info.min - 1.0), np.float64(info.max + 1.0), np.float64(-2.0**63),
              np.float64(2.0**63), np.float64(np.inf), np.float64(np.nan), 300.0, -1.0]
    f = jitaic.jit(store_first)
    for v in values:
        with np.errstate(invalid="ignore"):
            try:
                want = store_first(np.zeros(2, dtype), v)
            except (OverflowError, ValueError) as exc:
                with pytest.raises(type(exc)):
                    f(np.zeros(2, dtype), v)
            else:
                assert_same(f(np.zeros(2, dtype), v), want)


def test_python_int_beyond_int64_in_an_integer_loop_is_an_overflow_error() -> None:
    with pytest.raises(OverflowError, match="18446744073709551616 out of bounds for int64"):
        jitaic.jit(lambda b: b + 2**64)(B)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.complex128])
def test_python_int_beyond_int64_in_a_float_or_complex_loop_is_converted(dtype) -> None:
    """NEP 50: the int becomes the loop's float (the fuzzer found an
    OverflowError for complex operands)."""
    check_like_numpy(lambda z: (z + 2**64, 2**70 * z), np.array([1.5, -2.0], dtype))
    check_like_numpy(lambda z: z - 2**64, np.array(0.5, dtype))


def test_python_int_beyond_int64_takes_the_loop_dtype_of_a_python_int() -> None:
    """An int8 operand makes NumPy's arctan2 loop float16 for any Python int:
    the int beyond int64 became a float64 operand and the result float64 (a
    fuzzer find); float16 is refused as for every other int."""
    for c in (5, 2**64, -2**70):
        with pytest.raises(jitaic.UnsupportedError, match="float16"):
            jitaic.jit(lambda v, c=c: np.arctan2(v, c))(np.zeros(2, np.int8))
    check_like_numpy(lambda v: np.arctan2(v.astype(np.float32), -2**70), np.zeros(2, np.int8))


def bool_above_huge(b):
    return b > 2**64


def bool_plus_huge(b):
    return b + (-(2**63) - 1)


@pytest.mark.parametrize("fn", [bool_above_huge, bool_plus_huge])
def test_a_bool_operand_and_a_python_int_beyond_int64_overflow(fn) -> None:
    """NumPy converts the int to a C long for a bool operand, even to compare."""
    check_raises_like_numpy(fn, np.array([True, False]))


def test_a_list_of_traced_values_handed_to_numpy_is_its_array() -> None:
    """As np.sum makes one of it; a NumPy submodule's function is not given
    the array and names the problem."""
    assert jitaic.jit(lambda a: np.sum(a))([1.0, 2.0]) == 3.0
    with pytest.raises(jitaic.UnsupportedError, match=r"a Python list or tuple holding traced "
                                                      r"values.*test_numpy_semantics\.py:\d+"):
        jitaic.jit(lambda a: np.linalg.norm(a))([1.0, 2.0])


def test_round_of_bool_is_refused_not_a_wrong_dtype() -> None:
    with pytest.raises(jitaic.UnsupportedError, match="float16"):
        jitaic.jit(lambda a: np.round(a))(np.array([True]))


def zero_positive(a):
    a[a > 0] = 0
    return a


def fill_from_one_element(c):
    c[...] = np.array([2.0])
    return c


def row_from_itself(a):
    a[0] = a
    return a


def scatter_with_leading_ones(a):
    a[np.array([0, 2])] = np.ones((1, 1, 2, 3))
    return a


@pytest.mark.parametrize("fn, arg", [
    (zero_positive, np.array(3.0)),
    (zero_positive, np.array(-3.0)),
    (fill_from_one_element, np.array(3.0)),
    (row_from_itself, np.arange(5.0).reshape(1, 5)),
    (scatter_with_leading_ones, np.zeros((3, 3))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_stores_numpy_accepts(fn, arg) -> None:
    check_like_numpy(fn, arg)


# ---------------------------------------------------------------- aliasing

def unit_axis_view_then_branch_write(a):
    v = a[0][None]
    if a.sum() > 2.0:
        a += 1.0
    return v


def scalar_or_argument_then_write(a, c):
    if a > 0.5:
        v = a + 0.5  # a NumPy scalar
    else:
        v = a  # the 0-d argument itself: the write below reaches it
    v[()] = c
    return v, a


def test_a_write_into_a_0d_argument_or_a_scalar_follows_numpy() -> None:
    """Which one a variable holds is known at run time only (the fuzzer found
    the argument left unwritten): the write reaches the argument where the
    variable is it, and fails as NumPy's where it is a NumPy scalar."""
    check_like_numpy(scalar_or_argument_then_write, np.array(np.nan), 0.0, mode="ast")
    check_raises_like_numpy(scalar_or_argument_then_write, np.array(1.0), 0.0)


def einsum_with_dtypes(i, a):
    return (np.einsum("ij,ij->i", i, a, dtype=np.float64),
            np.einsum("ij->j", a, dtype=np.float32, casting="same_kind"))


def test_einsum_casts_its_operands_without_the_callback() -> None:
    """dtype= casts each operand under casting's rule, natively (the call went
    to the NumPy callback, which the default jit would still take)."""
    i, a = np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(6.0).reshape(2, 3)
    got = jitaic.jit(einsum_with_dtypes, callbacks=False)(i, a)
    for g, w in zip(got, einsum_with_dtypes(i, a), strict=True):
        assert_same(g, w)
    with pytest.raises(TypeError, match=r"operand 0 dtype could not be cast from "
                       r"dtype\('float64'\) to dtype\('float32'\) according to the rule "
                       r"'safe' at test_numpy_semantics\.py:\d+"):
        jitaic.jit(lambda x: np.einsum("ij->i", x, dtype=np.float32), callbacks=False)(a)


def diagonal_then_write_into_its_array(a):
    d = np.diagonal(a, 0, 1, 2)
    a[:, 1] = -1.0
    return d * 2.0


def write_into_a_diagonal(a):
    d = a.diagonal()
    d[0] = 5.0
    return a


def test_a_diagonal_is_a_read_only_view() -> None:
    """NumPy's diagonal shows later writes into its array and refuses writes
    of its own (it was a copy: the write went nowhere)."""
    check_like_numpy(diagonal_then_write_into_its_array, np.arange(18.0).reshape(2, 3, 3))
    check_raises_like_numpy(write_into_a_diagonal, np.ones((3, 3)))


def test_a_unit_axis_view_of_a_strided_argument_sees_later_writes() -> None:
    """x[None] of an array with any strides is a view in NumPy (so is adding
    or dropping any length-1 axis): a write into the base after it, here in
    a branch, shows through. The fuzzer found the value from before the
    write (the reshape copied, as reshapes of strided arrays must)."""
    f = jitaic.jit(unit_axis_view_then_branch_write, mode="ast")
    for _ in range(2):
        want = unit_axis_view_then_branch_write(np.ones((2, 1, 3))[::-1])
        np.testing.assert_array_equal(f(np.ones((2, 1, 3))[::-1]), want)


def double_b_sum_a(a, b):
    b *= 2
    return a.sum()


def set_b_return_a(a, b):
    b[0] = 100
    return a


def add_b_into_a_tail(a, b):
    a[1:] += b
    return a


@pytest.mark.parametrize("fn, view", [
    (double_b_sum_a, lambda a: a[::-1]),
    (set_b_return_a, lambda a: a[1:]),
    (add_b_into_a_tail, lambda a: a[:5]),
    (add_b_into_a_tail, lambda a: a[::-1][1:]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_overlapping_arguments_read_and_write_one_memory(fn, view) -> None:
    f = jitaic.jit(fn)
    disjoint = np.arange(6.0), view(np.arange(6.0)).copy()
    f(*disjoint)  # the specialisation compiled for distinct memory exists first
    for _ in range(2):
        mine, theirs = np.arange(6.0), np.arange(6.0)
        got = f(mine, view(mine))
        want = fn(theirs, view(theirs))
        assert_same(got, want)
        assert_same(mine, theirs, path="the shared array after the call")


# ---------------------------------------------------------------- branches

def write_through_maybe_view(x):
    y = x
    if x.sum() > 0:
        y = x * 2
    y[0] = 99.0
    return y


def write_through_one_of_two_views(x):
    v = x[:2]
    if x.sum() > 0:
        v = x[1:]
    v[0] = -7
    return x


def write_into_branch_copies(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x + 1
    y[0] = 5
    return y


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("fn", [write_through_maybe_view, write_through_one_of_two_views])
def test_a_write_through_a_view_of_one_branch_reaches_the_array(fn, sign) -> None:
    """The variable is the argument's memory on one path (a view of it), a new
    array or another view on the other: the write reaches the argument where
    NumPy's does."""
    check_like_numpy(fn, sign * np.arange(3.0))


def zero_d_view_on_both_paths_then_write(b, c):  # (the fuzzer's: b and c one array)
    if c > 1:
        v = b[...]
    else:
        v = b[...]
    c[()] += v + 1
    return v


def element_view_by_branch_then_write(b, c):
    if c[0] > 1:
        v = b[0:1]
    else:
        v = b[1:3]  # another length: a run-time one after the if
    b[1] = 7.0
    return v + 0.0


def two_arguments_by_branch_then_writes(b, d, c):
    if c[0] > 1:
        v = b[1:]
    else:
        v = d[:2]
    v += 1.0
    d[0] = -3.0
    return v


def test_a_0d_view_bound_in_both_branches_sees_a_write_through_the_same_argument() -> None:
    a = np.array(0)
    want = zero_d_view_on_both_paths_then_write(a, a)
    b = np.array(0)
    assert_same(jitaic.jit(zero_d_view_on_both_paths_then_write, mode="ast")(b, b), want)
    assert_same(b, a)


@pytest.mark.parametrize("c", [0.0, 5.0])
def test_views_that_differ_by_branch_see_writes_into_their_arrays(c) -> None:
    check_like_numpy(element_view_by_branch_then_write, np.zeros(3), np.array([c]), mode="ast")
    check_like_numpy(two_arguments_by_branch_then_writes, np.arange(3.0),
                     np.arange(3.0) + 10, np.array([c]), mode="ast")


def loss_through_a_view_of_one_branch(b, c):
    b = b * 1.0  # (grad's argument is not written)
    if c[0] > 1:
        v = b[1:]
    else:
        v = b[:2] * 2
    b *= 3.0  # reaches v where it views b
    return (np.sin(v) * v).sum()


@pytest.mark.parametrize("c", [0.0, 5.0])
def test_the_gradient_through_a_view_of_one_branch_is_the_finite_difference(c) -> None:
    b, flag = np.array([0.3, -0.7, 1.1]), np.array([c])
    grad = jitaic.jit(jitaic.grad(loss_through_a_view_of_one_branch), mode="ast")(b, flag)
    np.testing.assert_allclose(grad, finite_difference(loss_through_a_view_of_one_branch,
                                                       [b, flag], 0), rtol=1e-6, atol=1e-8)


def rebound_in_a_while_loop_then_written(b, n):
    v = b[:2]
    while n[0] > 5:
        v = v * 2
        n[0] -= 1
    b[0] = 7.0
    v[1] = -1.0
    return v + 0.0


def rebound_in_a_for_loop_then_written(b, n):
    v = b
    for _ in range(n[0]):
        v = v * 2
    v[1] = -1.0
    b[0] = 7.0
    return v + 0.0


def another_name_for_the_array_a_loop_rebinds(b, n):
    x = b * 1.0
    y = x
    while n[0] > 5:
        x = x * 2
        n[0] -= 1
    x[0] = 7.0
    return y


@pytest.mark.parametrize("n", [0, 6])
def test_a_loop_that_runs_0_times_leaves_the_variable_its_array(n) -> None:
    """v is still b's memory where the loop does not run (NumPy's writes into
    either reach the other), a new array where it does."""
    for fn in (rebound_in_a_while_loop_then_written, rebound_in_a_for_loop_then_written,
               another_name_for_the_array_a_loop_rebinds):
        check_like_numpy(fn, np.arange(3.0), np.array([n]), mode="ast")


def test_a_loop_rebinding_an_array_no_other_name_holds_counts_no_trips() -> None:
    f = jitaic.jit(rebound_alone, mode="ast")
    np.testing.assert_array_equal(f(np.ones(3), np.array([0])), rebound_alone(np.ones(3), [0]))
    (loop,) = [line for line in f.specializations()[0].ir.splitlines() if "= while_loop" in line]
    assert "bool" not in loop  # no trip flag carried: nothing else reaches x's first array


def rebound_alone(b, n):
    x = b * 1.0
    while n[0] > 5:
        x = x * 2
        n[0] -= 1
    x[0] = 7.0
    return x


def branch_view_then_its_base_reused(x, c):
    y = x * 2.0
    if c[0] > 1:
        v = y[1:]
    else:
        v = y[:-1]
    z = y * 3.0  # y's last use: its buffer would hold z, and v views it
    return v + z[1:]


def loop_view_then_its_base_reused(x, c):
    y = x * 2.0
    v = y[:-1]
    k = 0
    while k < c[0]:
        v = y[1:]
        k += 1
    z = y * 3.0
    return v + z[1:]


def views_swapped_by_a_loop_then_their_base_reused(x):
    y = x * 2.0
    u, v = y[1:], y[:-1]
    for _ in range(3):  # runs: u is what v came in as
        u, v = v, u
    z = y * 3.0
    return u + z[1:]


def test_views_a_loop_swaps_keep_their_base_alive() -> None:
    check_like_numpy(views_swapped_by_a_loop_then_their_base_reused, np.arange(6.0),
                     mode="ast")


@pytest.mark.parametrize("c", [0.0, 5.0])
def test_an_if_or_loop_result_that_is_a_view_keeps_its_base_alive(c) -> None:
    """The compiled if and loop hand on the view itself: the buffer it views
    may not be reused for another array while the result is read."""
    for fn in (branch_view_then_its_base_reused, loop_view_then_its_base_reused):
        check_like_numpy(fn, np.arange(6.0), np.array([c]), mode="ast")


def maybe_argument_written_and_rebound_in_a_loop(b, c):
    if c[0] > 1:
        v = b
    else:
        v = b * 2
    for _ in range(3):
        v[0] += 1.0
        v = v * 1.0
    return b


def test_a_loop_writing_into_a_variable_that_may_be_an_argument_then_rebinding_it_is_refused():
    """The first iteration's write reaches b where the if bound v to it; the
    loop carries v as a value."""
    with pytest.raises(jitaic.UnsupportedError, match=r"loop variable 'v' is written in place.*"
                                                      r"one it is on some paths of an if"):
        jitaic.jit(maybe_argument_written_and_rebound_in_a_loop, mode="ast")(
            np.zeros(3), np.array([5.0]))


def view_rebound_per_iteration_then_base_written(b, n):
    v = b[0:1]
    for i in range(n[0]):
        v = b[i:i + 1]
    b[1] = 7.0
    return v + 0.0


def test_a_view_that_changes_per_iteration_read_after_its_array_changed_is_refused() -> None:
    with pytest.raises(jitaic.UnsupportedError, match=r"variable 'v' may be the memory of an "
                                                      r"array written since.*"
                                                      r"test_numpy_semantics\.py:\d+"):
        jitaic.jit(view_rebound_per_iteration_then_base_written, mode="ast")(
            np.zeros(3), np.array([2]))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_write_into_arrays_each_branch_made_is_fine(sign) -> None:
    check_like_numpy(write_into_branch_copies, sign * np.arange(3.0))


def dtype_by_branch(x):
    if x.sum() > 0:
        r = x * 2
    else:
        r = x.astype(np.int64)
    return r


def test_dtype_that_depends_on_a_branch_is_an_error_naming_both_lines() -> None:
    with pytest.raises(jitaic.UnsupportedError,
                       match=r"variable r has dtype float64 on one path \(computed at "
                             r"test_numpy_semantics\.py:\d+\) and int64 on the other "
                             r"\(computed at test_numpy_semantics\.py:\d+\)"):
        jitaic.jit(dtype_by_branch)(np.arange(3.0))


# ---------------------------------------------------------------- the caller's objects

def add_in_place(x, y):
    x += y
    return x, y * 2


def test_an_argument_returned_is_the_callers_array() -> None:
    f = jitaic.jit(add_in_place)
    x, y = np.ones(3), np.arange(3.0)
    for expected in ([1.0, 2.0, 3.0], [1.0, 3.0, 5.0]):  # compiling call, then cached
        got, doubled = f(x, y)
        assert got is x
        assert_same(x, np.array(expected))
        assert_same(doubled, y * 2)
    assert jitaic.jit(lambda a: a[:2])(x) is not x  # a view is a new array, as in NumPy


_SPIN_SCRIPT = """
import signal, sys
import re

import numpy as np
import jitaic
signal.signal(signal.SIGINT, signal.default_int_handler)  # a shell's background job ignores it

@jitaic.jit
def spin(x):
    while x[0] > 0:
        x[1] += 1.0
    return x

spin(np.array([0.0, 0.0]))  # compiled before the loop that never ends
x = np.array([1.0, 0.0])
try:
    print("ready", flush=True)
    spin(x)
except KeyboardInterrupt as exc:
    print("stopped:", type(exc).__name__, flush=True)
"""


def test_ctrl_c_stops_a_runaway_while_loop(tmp_path) -> None:
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "spin.py"  # a file: the AST frontend reads the loop's source
    script.write_text(_SPIN_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(0.5)  # the child is microseconds from its loop: let it get there
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)  # a hang guard, not a timing
    finally:
        proc.kill()
    assert out.strip() == "stopped: Interrupted", err


def shift_then_rebind_as_float(b, n):
    v = np.negative(b)
    for i in range(n):
        v[i] <<= 2
        v = b.astype(np.float64)
    return v


@pytest.mark.parametrize("n", [0, 1, 2])
def test_a_second_iteration_with_the_dtype_the_first_made_is_numpys(n) -> None:
    """The first iteration rebinds v to float64, with which the shift of a
    second one raises NumPy's TypeError; range(1) has none (the fuzzer
    found the TypeError raised while compiling): the first iteration of a
    constant range is traced on its own."""
    b = np.arange(4, dtype=np.int8).reshape(2, 2)
    fn = lambda b: shift_then_rebind_as_float(b, n)  # noqa: E731  (n: a constant range)
    fn.__name__ = f"shift_then_rebind_as_float_{n}"
    check_as_numpy_does(fn, b, mode="ast")


def unread_max_of_a_window(x):
    for i in range(3):
        np.abs(x[i:]).max(keepdims=True)  # (unread)
    return x


def unread_sum_of_windows(x):
    for i in range(3):
        x + x[i:]  # (unread)
    return x


def unread_argmax_of_a_window(x):
    for i in range(4):
        x[i:].argmax()  # (unread)
    return x


@pytest.mark.parametrize("fn", [unread_max_of_a_window, unread_sum_of_windows,
                                unread_argmax_of_a_window])
@pytest.mark.parametrize("n", [0, 3, 5])
def test_an_unread_value_in_a_loop_body_still_raises_numpys_error(fn, n) -> None:
    """NumPy raises for an empty max, argmax or a broadcast that fails
    whether or not the value is read; dead code elimination dropped such
    nodes from loop bodies (the fuzzer found the max's error missing)."""
    x = np.arange(float(n))
    try:
        fn(x.copy())
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc)[:20])):
            jitaic.jit(fn, mode="ast")(x)
    else:
        check_like_numpy(fn, x, mode="ast")


# ---------------------------------------------------------------- loop variables after the loop

def last_index_written(x):
    i = 100
    for i in range(2, x.shape[0], 3):
        x[i] = 0
    return i, x


def scaled_by_last_index(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 3:
            s += x[i]
    return s * i


def first_above_five(x):
    for i in range(x.shape[0]):
        if x[i] > 5:
            break
    else:
        return -1
    return i


@pytest.mark.parametrize("fn", [last_index_written, scaled_by_last_index])
def test_a_for_loops_index_keeps_its_last_value_after_the_loop(fn) -> None:
    check_like_numpy(fn, np.arange(10.0), mode="ast")


def test_an_index_read_after_a_break_is_a_clear_error_not_a_name_error() -> None:
    with pytest.raises(jitaic.UnsupportedError, match=r"variable 'i' .* assigned only on "
                                                      r"some paths.*test_numpy_semantics"):
        jitaic.jit(first_above_five)(np.arange(10.0))


# ---------------------------------------------------------------- errors on the path taken

def widen_bool_in_a_branch(a):
    if a.sum() > 0:
        a += a / True  # NumPy's TypeError: float64 into bool, on this path only
    return a


def add_mismatched_in_a_branch(a, b):
    if a.sum() > 0:
        c = a + b
    else:
        c = a * 2
    return c


def index_past_the_end_in_a_branch(a):
    if a.sum() > 0:
        return a[5]
    return a[0]


@pytest.mark.parametrize("fn, args", [
    (widen_bool_in_a_branch, (np.array([False]),)),
    (widen_bool_in_a_branch, (np.array([True]),)),
    (add_mismatched_in_a_branch, (-np.ones(3), np.ones(4))),
    (add_mismatched_in_a_branch, (np.ones(3), np.ones(4))),
    (index_past_the_end_in_a_branch, (-np.ones(3),)),
    (index_past_the_end_in_a_branch, (np.ones(3),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_an_error_numpy_raises_on_one_branch_only_is_raised_when_that_branch_runs(fn, args):
    check_as_numpy_does(fn, *args)


def unused_row(a, i):
    v = a[i[0]]  # noqa: F841  (never read: NumPy still checks the index)
    return a.sum()


def store_array_into_element(b, a):
    b[()] = np.abs(a)
    return b


def fill_positive_with_uint64_max(d):
    d[d > 0] = np.uint64(2**64 - 1)
    return d


def test_an_unused_view_at_a_bad_run_time_index_still_raises() -> None:
    check_raises_like_numpy(unused_row, np.ones((2, 3)), np.array([2]))
    check_like_numpy(unused_row, np.ones((2, 3)), np.array([1]))


def unused_reads_in_a_loop(a, n):
    for i in range(n[0]):
        v = a[i]  # noqa: F841  (never read: NumPy still checks each index)
    return a.sum()


def test_unused_reads_in_a_loop_at_bad_indices_still_raise() -> None:
    check_raises_like_numpy(unused_reads_in_a_loop, np.ones(2), np.array([3]))
    check_like_numpy(unused_reads_in_a_loop, np.ones(2), np.array([2]))


def unused_sum_of_run_time_lengths(a, k):
    a + a[k[0]:]  # noqa: B018  NumPy raises for it though nothing reads it
    return a * 2.0


def test_an_unused_sum_whose_run_time_lengths_differ_still_raises() -> None:
    check_raises_like_numpy(unused_sum_of_run_time_lengths, np.ones(2), np.array([3]))
    check_like_numpy(unused_sum_of_run_time_lengths, np.ones(2), np.array([0]))


def test_an_array_stored_into_one_element_raises_numpys_value_error() -> None:
    check_raises_like_numpy(store_array_into_element, np.array(0.0), np.ones(1))


def test_an_array_stored_into_a_complex_element_raises_numpys_type_error() -> None:
    check_raises_like_numpy(store_array_into_element, np.array(0j, np.complex64), np.ones(1))


def store_window_into_bool_element(b, a, k):
    b[0] = a[k[0]:k[0] + 2]  # a run-time length: 0, 1 or 2
    return b


@pytest.mark.parametrize("k", [0, 2, 3])
def test_a_window_stored_into_a_bool_element_needs_one_element(k) -> None:
    """A bool array takes the truth value of an array of one element; any
    other length is NumPy's ValueError (decided when it runs)."""
    args = (np.zeros(2, bool), np.array([0, 3, 0]), np.array([k]))
    if k == 2:
        check_like_numpy(store_window_into_bool_element, *args)
    else:
        check_raises_like_numpy(store_window_into_bool_element, *args)


def add_into_a_wider_int(d, a):
    d += a + 0.5  # float64 into int64, and shapes that do not broadcast
    return d


def add_out_into_a_wider_int(d, a):
    return np.add(d, a + 0.5, out=d)


def and_of_floats_of_other_shapes(a, b):
    return a & b


@pytest.mark.parametrize("fn, args", [
    (add_into_a_wider_int, (np.zeros(3, np.int64), np.ones((1, 2)))),
    (add_out_into_a_wider_int, (np.zeros(3, np.int64), np.ones((1, 2)))),
    (and_of_floats_of_other_shapes, (np.ones(2), np.ones(3))),
])
def test_a_ufunc_checks_dtypes_before_shapes(fn, args) -> None:
    """NumPy resolves a ufunc's loop (and the cast into its output) before it
    broadcasts: its TypeError, not a shape error."""
    check_raises_like_numpy(fn, *args)


def store_at_an_index_out_of_bounds(b, i):
    b[i] = np.ones((2, 2))  # b[i] has shape (0,): the value does not fit either
    return b


def test_an_index_out_of_bounds_is_raised_before_the_value_does_not_fit() -> None:
    check_raises_like_numpy(store_at_an_index_out_of_bounds, np.zeros((0, 0), bool),
                            np.array(0, np.int32))


@pytest.mark.parametrize("k", [2 ** 63, 2 ** 64 - 1, 2 ** 64, -2 ** 63 - 1])
@pytest.mark.parametrize("store", [False, True])
def test_a_python_int_index_beyond_int64_raises_what_numpy_raises(k, store) -> None:
    """NumPy reads the index as a C long: OverflowError below 2**64, else no index."""
    def f(a):
        if store:
            a[k] = 1.0
        return a[k]

    check_raises_like_numpy(f, np.arange(3.0))


def test_a_masked_store_casts_the_value_to_the_arrays_dtype_first() -> None:
    check_like_numpy(fill_positive_with_uint64_max, np.array([3, 0], np.int32))


def scalar_or_array(a):
    if a > 1.0:
        v = np.abs(a)  # a NumPy scalar
    else:
        v = a[...]  # a 0-d array
    return v


def nested_scalar_or_array(a):
    if a > 0.0:
        if a > 1.0:
            v = a * 2.0
        else:
            v = a.copy()
    else:
        v = a - 1.0
    return v, v + 1.0


def array_on_both_paths(a):
    if a > 1.0:
        v = a.copy()
    else:
        v = a.reshape(())
    return v


@pytest.mark.parametrize("fn", [scalar_or_array, nested_scalar_or_array,
                                array_on_both_paths])
@pytest.mark.parametrize("x", [2.0, 0.5, -1.0])
def test_a_result_is_a_scalar_or_a_0d_array_as_the_path_taken_makes_it(fn, x) -> None:
    """NumPy returns a scalar from a ufunc and a 0-d array from a[...] or a
    copy: which one an if leaves in a variable is decided when it runs."""
    check_like_numpy(fn, np.array(x), mode="ast")


def array_then_scalar_in_a_loop(a, n):
    v = a[...]
    for _ in range(n[0]):
        v = np.abs(v)  # a NumPy scalar after any iteration
    return v


def kind_from_an_if_through_a_loop(a, n):
    if a > 0.0:
        v = np.abs(a)
    else:
        v = a[...]
    k = 0
    while k < n[0]:
        v = v  # noqa: PLW0127  carried, handed on as it is
        k += 1
    return v, k



def store_into_what_a_loop_leaves(a, n):
    v = a.copy()
    for _ in range(n[0]):
        v = np.abs(a)  # a NumPy scalar after any iteration
    v[()] = 5.0
    return v


@pytest.mark.parametrize("n", [0, 2])
def test_item_assignment_into_a_numpy_scalar_raises_numpys_type_error(n) -> None:
    """A 0-d array takes ``v[()] = ...``; a NumPy scalar raises TypeError,
    decided at run time where a loop leaves one or the other."""
    if n:
        check_raises_like_numpy(store_into_what_a_loop_leaves, np.array(-2.0), np.array([n]))
    else:
        check_like_numpy(store_into_what_a_loop_leaves, np.array(-2.0), np.array([n]))

@pytest.mark.parametrize("fn", [array_then_scalar_in_a_loop, kind_from_an_if_through_a_loop])
@pytest.mark.parametrize("x, n", [(1.5, 0), (1.5, 2), (-1.5, 0), (-1.5, 2)])
def test_a_loop_carried_result_is_a_scalar_or_a_0d_array_as_numpys(fn, x, n) -> None:
    check_like_numpy(fn, np.array(x), np.array([n]), mode="ast")


def window_from_an_array_bound(a, k):
    return a[k:]


@pytest.mark.parametrize("k", [np.array([1]), np.array(1.0), np.array(True)])
def test_a_slice_bound_that_is_not_an_integer_scalar_raises_numpys_type_error(k) -> None:
    check_raises_like_numpy(window_from_an_array_bound, np.arange(5.0), k)


def compare_a_window_with_an_int_out_of_range(a, k):
    w = a[k[0]:]
    return (w > 300).sum() + (w != -300).sum()


def test_a_run_time_window_compared_with_an_int_out_of_its_range() -> None:
    check_like_numpy(compare_a_window_with_an_int_out_of_range,
                     np.arange(5, dtype=np.int8), np.array([2]))


def add_into_a_run_time_tail(x, k):
    x[k[0]:] += np.ones_like(x)  # a run-time length against a static one
    return x


def test_an_in_place_op_on_a_run_time_window_checks_its_length_when_it_runs() -> None:
    check_like_numpy(add_into_a_run_time_tail, np.arange(3.0), np.array([0]))
    check_like_numpy(add_into_a_run_time_tail, np.arange(3.0), np.array([-3]))
    with pytest.raises(ValueError):  # NumPy: (2,) and (3,) do not broadcast
        add_into_a_run_time_tail(np.arange(3.0), np.array([1]))
    with pytest.raises(ValueError, match="lengths known at run time differ"):
        jitaic.jit(add_into_a_run_time_tail)(np.arange(3.0), np.array([1]))


def errors_differ_by_path(x):
    if x.sum() > 0:
        y = x[5]  # IndexError
    else:
        y = x + np.ones(4)  # ValueError
    return y


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_an_if_whose_branches_both_fail_raises_the_error_of_the_path_taken(sign) -> None:
    check_raises_like_numpy(errors_differ_by_path, sign * np.ones(3))


def index_then_broadcast_error(a, i):
    row = a[i[0]]  # noqa: F841  a run-time index NumPy checks first
    return a + np.ones(7)  # a shape error jitaic sees when tracing


@pytest.mark.parametrize("i", [5, 0])
def test_a_run_time_error_before_a_static_one_is_raised_first(i) -> None:
    """The static broadcast error is raised where NumPy would meet it: after
    the run-time index, whose IndexError comes first when it is out of range."""
    check_raises_like_numpy(index_then_broadcast_error, np.ones(3), np.array([i]))


# ---------------------------------------------------------------- found by the fuzzer

def shift_by_loop_index(c):
    for i in range(3):
        v = c + i  # i is a Python int: c's dtype stays
    return v


def yield_a_value_from_before_the_if(a, b):
    u = a * 2.0
    if a.sum() > 2.0:
        v = u
    else:
        v = b + 1.0
    return v


def accumulate_onto_an_empty_view(b, c):
    v = b[1:]
    for _ in range(2):
        v = v + c
    return v


def scalar_stores(a, v):
    a[0] = v[0]
    a[a == 0] = -1
    return a


@pytest.mark.parametrize("fn, args, mode", [
    (shift_by_loop_index, (np.array([1], np.uint8),), "ast"),
    (yield_a_value_from_before_the_if, (np.zeros(3), np.ones(3)), "auto"),
    (yield_a_value_from_before_the_if, (np.ones(3), np.ones(3)), "auto"),
    (accumulate_onto_an_empty_view, (np.ones(1), np.ones(1)), "ast"),
    (scalar_stores, (np.zeros(3, np.int8), np.array([np.nan])), "auto"),
    (scalar_stores, (np.zeros(3, np.uint8), np.array([np.nan])), "auto"),  # NumPy: no error
    (scalar_stores, (np.zeros(3, np.bool_), np.array([np.nan])), "auto"),
    (lambda c: c < 2**31, (np.array(3, np.int8),), "auto"),
    (lambda a: a.cumsum(axis=0), (np.array(True),), "auto"),
    (lambda a: np.cumprod(a, axis=-1), (np.array(2.0),), "auto"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_fuzzer_finds(fn, args, mode) -> None:
    check_as_numpy_does(fn, *args, mode=mode)


def store_into_bool_element(a):
    a[0] = np.ones(1, bool)
    return a


def test_a_size_1_array_into_one_bool_element_is_stored_as_numpy_does() -> None:
    check_like_numpy(store_into_bool_element, np.zeros(3, bool))


def test_a_masked_store_of_an_out_of_range_python_int_overflows() -> None:
    def store(b):
        b[b > 0] = -1
        return b
    with pytest.raises(OverflowError, match="-1 out of bounds for uint64"):
        jitaic.jit(store)(np.ones(2, np.uint64))


def uint64_and_python_ints_beyond_int64(b):
    b[0] = 2 ** 63
    b[1:] += 2 ** 63 + 7
    return (b + 2 ** 63 - 1, b == 2 ** 63, np.maximum(b, 2 ** 64 - 1),
            np.full(2, 2 ** 64 - 1, np.uint64), np.where(b > 2 ** 63, b, 2 ** 63 + 1))


def test_python_ints_only_uint64_holds_work_with_uint64_arrays() -> None:
    """NumPy 2 takes them (NEP 50); the fuzzer found an OverflowError naming
    nothing, raised by making them int64 constants."""
    check_like_numpy(uint64_and_python_ints_beyond_int64, np.array([0, 5, 2 ** 64 - 1], np.uint64))


def unique_of_repeated_nans(x):
    return (np.unique(x, return_index=True, return_inverse=True, return_counts=True),
            np.unique(x, equal_nan=False, return_counts=True), np.nonzero(x != x))


def test_unique_and_nonzero_have_lengths_the_data_decides() -> None:
    """NaNs are one value (equal_nan) or each their own; -0.0 equals 0.0."""
    check_like_numpy(unique_of_repeated_nans, np.array([1.0, np.nan, -0.0, 0.0, np.nan, 1.0]))
    check_like_numpy(unique_of_repeated_nans, np.array([np.nan, np.nan]))
    with pytest.raises(ValueError, match=r"nonzero on 0d arrays .* at test_numpy_semantics"):
        jitaic.jit(np.nonzero)(np.float64(2.0))
    with pytest.raises(ValueError, match="either both or neither of x and y"):
        jitaic.jit(lambda c, x: np.where(c, x))(np.ones(2, bool), np.ones(2))


def unique_of_a_selection(x, m):
    y = x[m]
    return (np.unique(y, return_index=True, return_inverse=True, return_counts=True),
            np.flatnonzero(y > 1))


def distinct_in_growing_prefixes(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += np.unique(x[:i]).shape[0] * 10.0 + np.unique(x[:i]).sum()
    return total


@pytest.mark.parametrize("x", [[3.0, 1.0, 3.0, np.nan, 2.0, 1.0, np.nan], [5, 1, 5, 2, 2, 9],
                               [1 + 1j, 1, 1 + 1j, 2j]], ids=["nan", "int", "complex"])
def test_unique_of_a_run_time_length(x) -> None:
    """np.unique and np.flatnonzero of x[mask] or x[:i] were refused; an
    empty one gives empty results."""
    x = np.array(x)
    for m in (x.real > 1.5, x.real > 100, np.ones(x.shape, bool)):
        check_like_numpy(unique_of_a_selection, x, m)
    check_like_numpy(distinct_in_growing_prefixes, x, mode="ast")


def test_bincount_has_the_length_its_largest_value_asks_for(rng) -> None:
    """max(x) + 1 or minlength, known when it runs; its weights' gradient is a gather."""
    x, w = np.array([0, 2, 2, 1]), rng.normal(size=4)
    check_like_numpy(lambda x: (np.bincount(x), np.bincount(x, minlength=7)), x)
    with pytest.raises(ValueError, match="must have no negative elements .* test_numpy_sem"):
        jitaic.jit(np.bincount)(np.array([1, -1]))

    def loss(w):
        return np.sum(np.bincount(x, weights=w) ** 2)
    np.testing.assert_allclose(jitaic.grad(loss)(w), finite_difference(loss, (w,), 0), rtol=1e-6)


def test_a_split_along_a_missing_axis_is_numpys_index_error() -> None:
    with pytest.raises(IndexError, match=r"axis 2 is out of bounds .*test_numpy_semantics"):
        jitaic.jit(lambda x: np.split(x, 2, axis=2))(np.ones((2, 2)))


def test_a_ufunc_itself_can_be_jitted() -> None:
    """jit(np.sign): its signature's defaults (dtype=None, signature=None) are
    not passed on, which NumPy would refuse together."""
    x = np.array([-2.0, 0.0, 3.0])
    np.testing.assert_array_equal(jitaic.jit(np.sign)(x), np.sign(x))
    np.testing.assert_array_equal(jitaic.jit(np.maximum)(x, 1.0), np.maximum(x, 1.0))


def index_and_window_by_uint64(x, k):
    return x[:k[0]], x[k[1]]


@pytest.mark.parametrize("k", [[2 ** 64 - 1, 1], [3, 2 ** 63]])
def test_uint64_indices_beyond_int64_clip_in_slices_and_overflow_as_indices(k) -> None:
    args = (np.arange(5.0), np.array(k, np.uint64))
    if k[1] < 2 ** 63:
        check_like_numpy(index_and_window_by_uint64, *args)
    else:
        check_raises_like_numpy(index_and_window_by_uint64, *args)


def wrapped_products_compared(b):
    return (b * 64) != 0, (b + 1) > b, (b - 1) < b


def test_signed_integer_arithmetic_wraps_before_it_is_compared() -> None:
    """NumPy's loops wrap around; numba's arithmetic let LLVM assume it does
    not (x * 64 != 0 became x != 0, x + 1 > x became True)."""
    check_like_numpy(wrapped_products_compared,
                     np.array([-2 ** 62, 2 ** 63 - 1, -2 ** 63, 3], np.int64))
    check_like_numpy(wrapped_products_compared, np.array([2 ** 30, -2 ** 31], np.int32))


def clip_between_other_dtypes(b):
    return np.clip(b + 1, 300, np.uint64(2 ** 64 - 1)), np.clip(b, 300, np.int16(5))


def test_clip_takes_its_dtype_from_all_three_operands() -> None:
    check_like_numpy(clip_between_other_dtypes, np.array(0, np.int8))


def clip_at_signed_zeros(x, low, high):
    return (np.clip(x, low, high), np.clip(x, low[0], high[0]), x.clip(low[:1], high[2]),
            np.clip(x[:, None], low[:, None], high[:, None]), np.clip(x[0], low[1], high[1]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_clip_keeps_numpys_zero_where_values_tie(dtype) -> None:
    """Where x and a bound tie as values (-0.0 and 0.0), NumPy's clip keeps
    a zero that maximum and then minimum would not, and a different one for
    array bounds than for a bound that is one value (a scalar, a last axis
    of length 1). A NaN bound or value still gives NaN."""
    values = [-0.0, 0.0, -5.0, 5.0, np.nan]
    grid = np.array(np.meshgrid(values, [-0.0, 0.0, np.nan], [-0.0, 0.0, np.nan]),
                    dtype).reshape(3, -1)
    f = jitaic.jit(clip_at_signed_zeros)
    for start in range(3):  # bounds of each sign of zero for the one-value cases
        x, low, high = (np.roll(row, -start) for row in grid)
        for got, want in zip(f(x, low, high), clip_at_signed_zeros(x, low, high), strict=True):
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def power_of_window(c, b):
    c[b:b + 2] **= b[()]
    return c


@pytest.mark.parametrize("b", [-1, 1])
def test_a_negative_integer_exponent_is_an_error_only_where_elements_meet_it(b) -> None:
    """c[-1:1] is empty: NumPy's power loop meets no element, so no error."""
    check_like_numpy(power_of_window, np.array([2, 3]), np.array(b, np.int8))


def _store_scalar(a, v):
    a[1:] = v * 2
    return a


def _store_run_time_window(a, b, k):
    a[..., 0] = b[k:k + 2]  # one element where k is the last index
    return a


@pytest.mark.parametrize("fn, args", [
    # an integer NumPy scalar into a signed array goes through a range-checked Python int
    (_store_scalar, (np.zeros(3, np.int8), np.int64(100))),
    (_store_scalar, (np.zeros(3, np.int16), np.uint64(2 ** 40))),
    (_store_scalar, (np.zeros(3, np.uint8), np.int64(300))),  # wraps into unsigned ones
    (_store_scalar, (np.zeros(3, np.int8), np.int64(30))),
    # a leading axis of run-time length 1 is dropped, of another length refused
    (_store_run_time_window, (np.arange(3), np.array([1, 1, 7]), 2)),
    (_store_run_time_window, (np.arange(3), np.array([1, 1, 7]), 1)),
    # indices are counted before a slice bound is converted
    (lambda a, b: a[b[1:]:], (np.array(True), np.zeros(1, np.int64))),
])
def test_stores_and_indices_follow_numpys_checks(fn, args):
    def run(f):
        try:
            return f(*[np.copy(a) for a in args])
        except Exception as exc:  # noqa: BLE001  (compared below)
            return type(exc)
    want, got = run(fn), run(jitaic.jit(fn, static_argnums=()))
    if isinstance(want, type):
        assert isinstance(got, type) and issubclass(got, want), (got, want)
    else:
        assert_same(got, want)


def python_int_index_made_an_array(s):
    z = np.int64(0)
    r = (z, z, z, z, z, z, s)
    for i in range(2, 3):  # i: a Python int, traced (weak) by the AST frontend
        r = (np.clip(i, 300, s), np.dot(i, s), np.inner(i, s), np.asarray(i) + s,
             np.array(i) + s, np.kron(i, s), np.maximum(i, s))
    return r


def test_a_python_int_made_an_array_has_a_dtype_of_its_own() -> None:
    """np.clip, np.dot, np.inner, np.kron, np.asarray and np.array make an
    int64 array of a Python int (np.maximum keeps it weak, NEP 50): with an
    int8 the results are int64, and 300 is no bound out of int8's range (the
    fuzzer found a spurious OverflowError in the AST frontend's loop)."""
    check_like_numpy(python_int_index_made_an_array, np.int8(-128), mode="ast")


def write_through_a_0d_index_array(a, c):
    v = a[c]  # c a 0-d array: NumPy gathers (a copy), as with any index array
    v[v > 0] = 0.5
    return v


def write_through_a_constant_0d_index_array(a):
    v = a[np.array(1), 1:]
    v[0] = -1.0
    return a


def write_through_an_index_made_an_array(a, n):
    v = a[np.asarray(n)]  # n a NumPy scalar; np.asarray makes it a 0-d array
    v[0] = 7.0
    return v, np.array(n), np.asarray(n) + 1


@pytest.mark.parametrize("mode", ["trace", "ast"])
def test_an_index_that_is_a_0d_array_gathers_a_copy(mode) -> None:
    """NumPy indexes with a 0-d integer array as with an index array: the
    result is a copy, and writes to it leave the array alone (jitaic viewed
    it, and wrote them through: the fuzzer's silent wrong argument)."""
    a = np.arange(6.0).reshape(2, 3)
    check_like_numpy(write_through_a_0d_index_array, a, np.array(1, np.int8), mode=mode)
    check_like_numpy(write_through_a_constant_0d_index_array, a, mode=mode)
    check_like_numpy(write_through_an_index_made_an_array, a, np.int64(1), mode=mode)


def write_into_nan_to_num(x):
    y = np.nan_to_num(x)  # a new array, whatever x's dtype
    y[...] = 0
    return y, x


def nan_to_num_of(x):
    return np.nan_to_num(x)


def nan_to_num_in_place(x):
    return np.nan_to_num(x, copy=False), x


@pytest.mark.parametrize("x", [np.array([1, 2]), np.array([np.nan, np.inf, -np.inf, 1.0]),
                               np.array([1 + 2j, np.nan * 1j]), np.array(False),
                               np.array(np.nan), np.array(3, np.int8)],
                         ids=["int", "float", "complex", "0-d bool", "0-d float", "0-d int8"])
def test_nan_to_num_copies_writes_in_place_and_gives_scalars_as_numpy(x) -> None:
    """np.nan_to_num returns a new array (jitaic handed back an integer
    argument itself, and writes to the result reached it), changes x itself
    with copy=False, and gives a NumPy scalar for a 0-d x."""
    if x.ndim:
        check_like_numpy(write_into_nan_to_num, x)
    check_like_numpy(nan_to_num_of, x)
    check_like_numpy(nan_to_num_in_place, x)


def numpy_scalar_types_of_traced_values(x, n):
    total = np.float32(x.sum())  # a NumPy scalar of the type
    row = np.int8(x)  # an array, cast
    return (x[np.int64(n)], total + 1, row, np.complex128(n), isinstance(total, np.float32),
            isinstance(n, np.int64))


def loop_index_is_a_numpy_int(n):
    found = False
    for i in range(n):  # a Python int, traced in the AST frontend: no np.int64
        found = isinstance(i, np.int64)
    return found


@pytest.mark.parametrize("mode", ["trace", "ast"])
def test_numpy_scalar_types_cast_traced_values_as_numpy(mode) -> None:
    """``np.float32(x.sum())`` and ``np.int64(n)`` of traced values raised
    TracedSequenceError: NumPy's constructors cannot take a traced value, the
    traced code's numpy gives types that cast it."""
    check_like_numpy(numpy_scalar_types_of_traced_values, np.arange(5.0) * 1.5, np.int64(2),
                     mode=mode)
    if mode == "ast":
        check_like_numpy(loop_index_is_a_numpy_int, np.int64(2), mode=mode)
