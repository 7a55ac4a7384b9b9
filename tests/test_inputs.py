"""Arguments as users pass them: any layout, read-only, 0-d, NumPy scalars,
empty arrays, NaN and inf, and NumPy 2's dtype promotion rules (NEP 50)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, copy_tree, numpy_result

import jitaic


def _base(dtype=np.float64) -> np.ndarray:
    return (np.arange(48, dtype=np.float64).reshape(6, 8) * 0.37 - 5.0).astype(dtype)


def _readonly(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


LAYOUTS = {
    "c_contiguous": lambda: _base(),
    "fortran": lambda: np.asfortranarray(_base()),
    "every_other_row": lambda: _base()[::2],
    "column_slice": lambda: _base()[:, 1:],
    "transposed": lambda: _base().T,
    "negative_stride": lambda: _base()[::-1],
    "negative_strides_both": lambda: _base()[::-2, ::-3],
    "readonly": lambda: _readonly(_base()),
    "broadcast_zero_stride": lambda: np.broadcast_to(np.arange(8.0), (6, 8)),
    "int32_fortran_view": lambda: np.asfortranarray(_base(np.int32))[1:, ::2],
}


def _layout_fn(x):
    # row sums read C-contiguous rows in place (others through a buffer), and
    # reshape copies a non-C argument first: each specialisation knows its layout
    return (x[1:] * 2.0 - x[:-1].T.T + x.sum(axis=0) + x[1:, ::-1]
            + x.sum(axis=1)[1:, None] - x.reshape(-1)[: x.shape[1]])


_layout_jit = jitaic.jit(_layout_fn)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_any_layout(layout: str) -> None:
    x = LAYOUTS[layout]()
    saved = x.copy()
    assert_same(_layout_jit(x), numpy_result(_layout_fn, x))
    np.testing.assert_array_equal(x, saved)


def test_layouts_of_two_arguments_mixed() -> None:
    fn = lambda a, b: a @ b + a.sum()  # noqa: E731
    a = np.asfortranarray(_base())[:4, :5]
    b = _base()[::-1, ::2][:5]
    assert (a.shape, b.shape) == ((4, 5), (5, 4))
    assert_same(jitaic.jit(fn)(a, b), numpy_result(fn, a, b), tol=10)


# ---------------------------------------------------------------- 0-d arrays and NumPy scalars


def test_0d_array_arguments_give_a_numpy_scalar() -> None:
    f = jitaic.jit(lambda x, y: x * y + 1)
    x, y = np.array(2.0), np.array(3.0)
    got = f(x, y)
    assert isinstance(got, np.float64) and got == 7.0


def test_numpy_scalar_arguments() -> None:
    f = jitaic.jit(lambda s: s * 2)
    assert_same(f(np.float64(3.0)), np.float64(6.0))
    assert_same(f(np.float32(1.5)), np.float32(3.0))
    assert_same(f(np.int32(4)), np.int32(8))


@pytest.mark.parametrize("scalar, expected", [
    (np.float32(2.5), np.float32),   # same kind and size
    (np.float64(2.5), np.float64),   # NumPy scalars are strongly typed (NEP 50)
    (np.array(2.5), np.float64),     # so are 0-d arrays
])
def test_numpy_scalars_are_strongly_typed(scalar, expected) -> None:
    f = jitaic.jit(lambda x, s: x * s)
    x = np.ones(3, dtype=np.float32)
    got = f(x, scalar)
    assert got.dtype == expected
    assert_same(got, x * scalar)


def test_0d_array_in_and_out() -> None:
    f = jitaic.jit(lambda x: x.reshape(()))  # reshape returns a 0-d array, not a scalar
    got = f(np.array([[4.0]]))
    assert isinstance(got, np.ndarray) and got.shape == () and got == 4.0


# ---------------------------------------------------------------- empty arrays


def test_empty_arrays() -> None:
    def fn(x):
        return np.exp(x).sum(axis=0) + 1, x * 2, x.T @ x

    x = np.zeros((0, 3))
    assert_same(jitaic.jit(fn)(x), numpy_result(fn, x))


def test_empty_reduction_without_identity_raises_like_numpy() -> None:
    f = jitaic.jit(lambda x: x.max())
    with pytest.raises(ValueError, match="zero-size array"):
        f(np.zeros((0, 3)))


# ---------------------------------------------------------------- IEEE special values


NAN, INF = np.nan, np.inf


def test_maximum_and_minimum_propagate_nan() -> None:
    f = jitaic.jit(lambda x, y: (np.maximum(x, y), np.minimum(x, y), np.fmax(x, y)))
    x = np.array([NAN, 1.0, NAN, -INF])
    y = np.array([1.0, NAN, NAN, 2.0])
    mx, mn, fmx = f(x, y)
    np.testing.assert_array_equal(mx, [NAN, NAN, NAN, 2.0])
    np.testing.assert_array_equal(mn, [NAN, NAN, NAN, -INF])
    np.testing.assert_array_equal(fmx, [1.0, 1.0, NAN, 2.0])


def test_ieee_arithmetic() -> None:
    def fn(x, z):
        return 0 * x, x / z, -x / z, x - x, np.sum(x), np.max(x), np.sqrt(-x)

    x = np.array([INF, -INF, NAN, 1.0])
    z = np.zeros(4)
    got = jitaic.jit(fn)(x, z)
    assert_same(got, numpy_result(fn, x, z))
    np.testing.assert_array_equal(got[0], [NAN, NAN, NAN, 0.0])
    np.testing.assert_array_equal(got[1], [INF, -INF, NAN, INF])
    assert np.isnan(got[4]) and np.isnan(got[5])


def test_comparisons_with_nan_are_false() -> None:
    fn = lambda x: (x < 1, x > 1, x == x, x != x)  # noqa: E731
    x = np.array([NAN, 0.0, 2.0])
    got = jitaic.jit(fn)(x)
    assert_same(got, fn(x))
    assert not got[2][0] and got[3][0]


def test_argmax_returns_first_nan() -> None:
    f = jitaic.jit(lambda x: (np.argmax(x), np.argmin(x)))
    x = np.array([1.0, 5.0, NAN, 7.0, NAN])
    assert_same(f(x), (np.int64(2), np.int64(2)))


# ---------------------------------------------------------------- dtype promotion (NEP 50)


def _dtype_of(fn, *args) -> np.dtype:
    out = jitaic.jit(fn)(*args)
    assert_same(out, numpy_result(fn, *args))
    return np.asarray(out).dtype


def test_float32_stays_float32() -> None:
    x = np.linspace(0, 1, 5, dtype=np.float32)
    assert _dtype_of(lambda x: np.exp(x * 2.0 + 1) / 3, x) == np.float32


def test_int32_plus_int32_stays_int32() -> None:
    x = np.arange(5, dtype=np.int32)
    assert _dtype_of(lambda x, y: x + y, x, x) == np.int32


def test_int_plus_python_float_is_float64() -> None:
    x = np.arange(5, dtype=np.int32)
    assert _dtype_of(lambda x: x + 1.5, x) == np.float64


def test_float32_plus_python_float_stays_float32() -> None:
    x = np.ones(3, dtype=np.float32)
    assert _dtype_of(lambda x: x + 1e-3, x) == np.float32


def test_int32_plus_python_int_stays_int32() -> None:
    x = np.arange(4, dtype=np.int32)
    assert _dtype_of(lambda x: x * 3 + 1, x) == np.int32
    assert _dtype_of(lambda x: x + 1, np.arange(4, dtype=np.uint8)) == np.uint8


def test_float32_plus_float64_array_is_float64() -> None:
    x = np.ones(3, dtype=np.float32)
    assert _dtype_of(lambda x, y: x + y, x, np.ones(3)) == np.float64


def test_true_divide_of_ints_is_float64() -> None:
    x = np.arange(1, 5, dtype=np.int32)
    assert _dtype_of(lambda x: x / x, x) == np.float64


def test_python_float_argument_is_weak() -> None:
    # A traced Python float keeps NEP 50's weak typing.
    f = jitaic.jit(lambda x, lr: x - lr * x)
    assert f(np.ones(3, dtype=np.float32), 0.5).dtype == np.float32
    assert f(np.ones(3, dtype=np.int64), 0.5).dtype == np.float64


def test_python_int_argument_is_weak() -> None:
    f = jitaic.jit(lambda x, n: x * n)
    got = f(np.arange(4, dtype=np.int8), 3)
    assert_same(got, np.arange(4, dtype=np.int8) * 3)


def test_python_int_out_of_range_for_dtype_raises_like_numpy() -> None:
    f = jitaic.jit(lambda x: x + 300)
    with pytest.raises(OverflowError):
        np.arange(3, dtype=np.int8) + 300
    with pytest.raises(OverflowError):
        f(np.arange(3, dtype=np.int8))


def test_python_float_argument_as_a_fill_value() -> None:
    # np.full makes a (strong) float64 array from the Python float: float32 x promotes.
    fn = lambda x, c: x + np.full(x.shape, c)  # noqa: E731
    x = np.ones(3, dtype=np.float32)
    assert_same(jitaic.jit(fn)(x, 0.25), numpy_result(fn, x, 0.25))


def test_bool_arithmetic() -> None:
    b = np.array([True, False, True])
    assert _dtype_of(lambda a, b: a + b, b, b) == np.bool_
    assert _dtype_of(lambda a: a * 2, b) == np.int64
    assert _dtype_of(lambda a: a.sum(), b) == np.int64


def test_small_integer_types() -> None:
    x = np.array([1, -2, 3], dtype=np.int16)
    assert _dtype_of(lambda x: x * x + x.sum(), x) == np.int64
    assert _dtype_of(lambda x, y: x + y, x, np.array([1, 2, 3], dtype=np.uint8)) == np.int16


def test_arguments_inside_containers_keep_their_layout() -> None:
    fn = lambda d: d["a"] + d["b"][0]  # noqa: E731
    args = {"a": _base()[::2], "b": [np.asfortranarray(_base()[:3])]}
    saved = copy_tree(args)
    assert_same(jitaic.jit(fn)(args), numpy_result(fn, args))
    assert_same(args, saved, tol=0.0)


# ---------------------------------------------------------------- integer semantics


def test_integer_overflow_wraps_like_numpy() -> None:
    fn = lambda x, u: (x * x, x + x.max(), u - 2, u * 100)  # noqa: E731
    x = np.array([70000, -70000, 46341], dtype=np.int32)
    u = np.array([1, 0, 255], dtype=np.uint8)
    assert_same(jitaic.jit(fn)(x, u), numpy_result(fn, x, u))


def test_integer_division_by_zero_like_numpy() -> None:
    fn = lambda x, y: (x // y, x % y, np.floor_divide(x, 0))  # noqa: E731
    x = np.array([7, -7, 0, 5], dtype=np.int64)
    y = np.array([0, 0, 0, 2], dtype=np.int64)
    assert_same(jitaic.jit(fn)(x, y), numpy_result(fn, x, y))


def test_uint64_with_int64_promotes_to_float64() -> None:
    x = np.array([1, 2, 2**63 + 1], dtype=np.uint64)
    y = np.array([-1, 0, 1], dtype=np.int64)
    assert _dtype_of(lambda x, y: x + y, x, y) == np.float64


# ---------------------------------------------------------------- sizes that don't divide evenly


@pytest.mark.parametrize("shape", [(1001,), (37, 129)])
def test_larger_odd_sized_arrays(shape, rng) -> None:
    def fn(x):
        y = np.exp(-x * x) + np.sin(x) * 0.5
        return y, y.sum(axis=-1), (x - x.mean(axis=0)).max(axis=0)

    x = rng.normal(size=shape)
    assert_same(jitaic.jit(fn)(x), numpy_result(fn, x), tol=1000)
