"""User-facing errors: the right exception type, NumPy's wording where NumPy
has one, the construct named, the user's file:line, and no numba internals.

Each erroring line below carries a ``# <- error`` marker; ``line_of`` finds it
so the expected ``test_errors.py:LINE`` never goes stale.
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

import jitaic

FILE = os.path.basename(__file__)
MARK = "# <- error"


def line_of(fn) -> int:
    lines, start = inspect.getsourcelines(fn)
    (offset,) = [i for i, text in enumerate(lines) if MARK in text]
    return start + offset


def messages(exc: BaseException) -> str:
    """The exception's message and those of everything chained to it."""
    parts, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        parts.append(f"{type(exc).__module__}.{type(exc).__name__}: {exc}")
        exc = exc.__cause__ or exc.__context__
    return "\n".join(parts)


def assert_user_facing(exc: BaseException, fn, *needles: str) -> str:
    """The message names the construct(s) and the file:line, and hides numba."""
    msg = str(exc)
    assert f"{FILE}:{line_of(fn)}" in msg, msg
    for needle in needles:
        assert needle in msg, f"{needle!r} not in {msg!r}"
    assert "numba" not in messages(exc).lower(), messages(exc)
    return msg


# ------------------------------------------------ data-dependent Python control flow


def branch_on_value(x):
    if x.sum() > 0:  # <- error
        return x
    return -x


def loop_on_value(x):
    while x.max() > 1:  # <- error
        x = x / 2
    return x


def float_of_array(x):
    return x * float(x.sum())  # <- error


def item_of_array(x):
    scale = x[0].item()  # <- error
    return x * scale


@pytest.mark.parametrize("fn", [branch_on_value, loop_on_value, float_of_array, item_of_array])
def test_concrete_value_needed_in_trace_mode(fn) -> None:
    f = jitaic.jit(fn, mode="trace")
    with pytest.raises(jitaic.UnsupportedError) as info:
        f(np.arange(4.0))
    assert_user_facing(info.value, fn, 'mode="ast"')


# ---------------------------------------------------------------- unsupported NumPy functions


def uses_packbits(x):
    return np.packbits(x > 0)  # <- error


def uses_unpackbits(x):
    bits = np.unpackbits(x.astype(np.uint8))  # <- error
    return bits


def uses_interp_period(x):
    return np.interp(x[0], x[1], x[2], period=1.0) * 2  # <- error


def uses_byteswap_method(x):
    return x.byteswap()  # <- error


def uses_qr(x):
    return np.linalg.qr(x, mode="raw")  # <- error


@pytest.mark.parametrize("fn, name", [(uses_packbits, "packbits"),
                                      (uses_unpackbits, "unpackbits"),
                                      (uses_interp_period, "interp"),
                                      (uses_byteswap_method, "byteswap"), (uses_qr, "qr")])
def test_unsupported_numpy_function(fn, name: str) -> None:
    """With callbacks=False (NumPy computes packbits and unpackbits otherwise)."""
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(fn, callbacks=False)(np.ones((3, 3)))
    assert_user_facing(info.value, fn, name)


def searchsorted_in_a_matrix(x):
    return x.searchsorted(0.5)  # <- error


def test_searchsorted_needs_a_1d_array_as_numpy_says() -> None:
    with pytest.raises(ValueError) as info:
        np.ones((3, 3)).searchsorted(0.5)
    with pytest.raises(ValueError) as ours:
        jitaic.jit(searchsorted_in_a_matrix)(np.ones((3, 3)))
    assert_user_facing(ours.value, searchsorted_in_a_matrix, str(info.value))


def uses_fancy_index(x, idx):
    return x[idx]  # <- error


def test_advanced_indexing_is_unsupported_or_correct() -> None:
    """Integer-array indexing: either NumPy's answer or an UnsupportedError at the line."""
    x, idx = np.arange(5.0), np.array([3, 0, 3])
    try:
        got = jitaic.jit(uses_fancy_index)(x, idx)
    except jitaic.UnsupportedError as exc:
        assert_user_facing(exc, uses_fancy_index)
    else:
        np.testing.assert_array_equal(got, x[idx])


def uses_boolean_mask(x):
    return x[x > 0].sum()  # <- error


def test_boolean_mask_is_unsupported_or_correct() -> None:
    """A boolean mask gives a data-dependent shape: NumPy's answer or an UnsupportedError."""
    x = np.array([1.0, -2.0, 3.0])
    try:
        got = jitaic.jit(uses_boolean_mask)(x)
    except jitaic.UnsupportedError as exc:
        assert_user_facing(exc, uses_boolean_mask)
    else:
        assert got == uses_boolean_mask(x)


# ---------------------------------------------------------------- unsupported arguments


def _identity_plus_one(weights):
    return weights + 1


@pytest.mark.parametrize("arg, needle", [
    (np.array([1, "a"], dtype=object), "object"),
    (np.array(["a", "b"]), "<U1"),
    (np.array([1 + 2j], dtype=np.clongdouble), np.dtype(np.clongdouble).name),
    ({"inner": [np.array([1.0]), object()]}, "object"),
])
def test_unsupported_argument_is_named(arg, needle: str) -> None:
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(_identity_plus_one)(arg)
    msg = str(info.value)
    assert "weights" in msg and needle in msg, msg
    assert "numba" not in messages(info.value).lower()


def test_string_argument_is_static() -> None:
    """A Python str cannot be traced; jitaic treats it as static (one entry per value)."""

    def scale(x, how):
        return x * 2 if how == "double" else x * 3

    f = jitaic.jit(scale)
    x = np.arange(3.0)
    np.testing.assert_array_equal(f(x, "double"), x * 2)
    np.testing.assert_array_equal(f(x, "triple"), x * 3)
    assert f.cache_info().entries == 2


def test_unhashable_static_argument() -> None:
    f = jitaic.jit(lambda x, opts: x * 2, static_argnums=(1,))
    with pytest.raises(TypeError, match="hashable"):
        f(np.ones(2), {"a": 1})


# ---------------------------------------------------------------- shape errors say what NumPy says


def bad_broadcast(x, y):
    return x * 2 + y  # <- error


def test_broadcast_mismatch() -> None:
    x, y = np.ones(3), np.ones(4)
    with pytest.raises(ValueError, match="could not be broadcast"):
        x * 2 + y
    with pytest.raises(jitaic.ShapeError) as info:
        jitaic.jit(bad_broadcast)(x, y)
    assert isinstance(info.value, ValueError)
    assert_user_facing(info.value, bad_broadcast, "could not be broadcast", "(3,)", "(4,)")


def bad_matmul(a, b):
    return a @ b  # <- error


def test_matmul_mismatch() -> None:
    a, b = np.ones((2, 3)), np.ones((4, 5))
    with pytest.raises(ValueError, match="matmul"):
        a @ b
    with pytest.raises(ValueError) as info:
        jitaic.jit(bad_matmul)(a, b)
    assert_user_facing(info.value, bad_matmul, "matmul", "mismatch")


def bad_reshape(x):
    return x.reshape(5, 5)  # <- error


def test_bad_reshape() -> None:
    with pytest.raises(ValueError) as info:
        jitaic.jit(bad_reshape)(np.ones((3, 4)))
    assert_user_facing(info.value, bad_reshape, "cannot reshape array of size 12")


def bad_concatenate(a, b):
    return np.concatenate([a, b], axis=0)  # <- error


def test_bad_concatenate() -> None:
    with pytest.raises(ValueError) as info:
        jitaic.jit(bad_concatenate)(np.ones((2, 3)), np.ones((2, 4)))
    assert_user_facing(info.value, bad_concatenate, "concatenation axis")


def bad_setitem(x):
    x[0:2] = np.ones(3)  # <- error


def test_setitem_shape_mismatch() -> None:
    with pytest.raises(ValueError) as info:
        jitaic.jit(bad_setitem)(np.zeros(5))
    assert_user_facing(info.value, bad_setitem, "could not broadcast", "(3,)", "(2,)")


def out_of_bounds(x):
    return x[5] + 1  # <- error


def negative_out_of_bounds(x):
    return x[:, -4]  # <- error


def too_many_indices(x):
    return x[0, 0, 0]  # <- error


@pytest.mark.parametrize("fn, shape, needle", [
    (out_of_bounds, (3,), "out of bounds"),
    (negative_out_of_bounds, (2, 3), "out of bounds"),
    (too_many_indices, (2, 3), "too many indices"),
])
def test_index_errors(fn, shape, needle: str) -> None:
    with pytest.raises(IndexError, match=needle):
        fn(np.zeros(shape))
    with pytest.raises(IndexError) as info:
        jitaic.jit(fn)(np.zeros(shape))
    assert_user_facing(info.value, fn, needle)


def bad_axis(x):
    return x.sum(axis=2)  # <- error


def test_bad_axis() -> None:
    with pytest.raises(np.exceptions.AxisError) as info:
        jitaic.jit(bad_axis)(np.zeros((2, 3)))
    assert_user_facing(info.value, bad_axis, "axis 2")


def bad_inplace_cast(x):
    y = x.copy()
    y += 1.5  # <- error
    return y


def test_inplace_cast_error_like_numpy() -> None:
    """NumPy refuses to cast a float result into an int array with +=."""
    x = np.arange(3)
    with pytest.raises(TypeError, match="Cannot cast"):
        bad_inplace_cast(x)
    with pytest.raises(TypeError) as info:
        jitaic.jit(bad_inplace_cast)(x)
    assert_user_facing(info.value, bad_inplace_cast, "Cannot cast")


def empty_max(x):
    return x.max()  # <- error


def test_reduction_of_empty_without_identity() -> None:
    with pytest.raises(ValueError) as info:
        jitaic.jit(empty_max)(np.zeros((0, 2)))
    assert_user_facing(info.value, empty_max, "zero-size array")


def inverse(a):
    return np.linalg.inv(a)  # <- error


def test_linalg_errors_are_numpys() -> None:
    """Shapes LAPACK cannot take fail while tracing with NumPy's LinAlgError and
    the user's line; a singular matrix fails when the call runs, as in NumPy."""
    for shape, needle in [((3, 4), "must be square"), ((3,), "at least two-dimensional")]:
        with pytest.raises(np.linalg.LinAlgError) as info:
            jitaic.jit(inverse)(np.ones(shape))
        assert_user_facing(info.value, inverse, needle, "inv")
    with pytest.raises(np.linalg.LinAlgError, match="[Ss]ingular"):
        jitaic.jit(inverse)(np.zeros((3, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):  # NumPy returns NaNs
        jitaic.jit(inverse)(np.full((3, 3), np.nan))


# ------------------------------------------------ errors from user code pass through


def user_raises(x):
    if x.shape[0] != 3:
        raise ValueError("expected three rows")
    return x


def test_user_exceptions_propagate_unchanged() -> None:
    f = jitaic.jit(user_raises)
    with pytest.raises(ValueError, match="^expected three rows$"):
        f(np.zeros((2, 2)))
    np.testing.assert_array_equal(f(np.ones((3, 1))), np.ones((3, 1)))


def test_failed_trace_is_not_cached() -> None:
    f = jitaic.jit(user_raises)
    for _ in range(2):
        with pytest.raises(ValueError):
            f(np.zeros((2, 2)))
    assert f.cache_info().entries == 0


# ---------------------------------------------------------------- API misuse


def test_unknown_mode() -> None:
    with pytest.raises(ValueError, match="mode"):
        jitaic.jit(lambda x: x, mode="fast")


def test_unknown_config_knob() -> None:
    with pytest.raises(KeyError, match="no_such_knob"):
        with jitaic.config.override(no_such_knob=1):
            pass


def test_wrong_number_of_arguments_is_a_type_error() -> None:
    f = jitaic.jit(lambda x, y: x + y)
    with pytest.raises(TypeError):
        f(np.ones(2))
