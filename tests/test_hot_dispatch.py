"""The compiled dispatcher: specialisations called ``hot_calls`` times are
served by a numba function that tests shapes itself (lower/dispatch.py).

Every test checks results against NumPy and that the call went where it should
(``Specialization.hot`` and the hit counts the dispatcher keeps).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from helpers import assert_same

import jitaic
from jitaic import config


def _scaled_sum(x, y):
    return 2.0 * x + y


def _hot(fn, *args, calls: int = 2):
    """A jitted fn whose specialisation for args is hot after `calls` calls."""
    f = jitaic.jit(fn)
    with config.override(hot_calls=calls):
        for _ in range(calls + 1):
            f(*args)
    (spec,) = f.specializations()
    assert spec.hot
    return f, spec


def test_hot_specialisation_serves_calls_and_counts_them(rng) -> None:
    x, y = rng.standard_normal(8), rng.standard_normal(8)
    f, spec = _hot(_scaled_sum, x, y)
    before = spec.hits
    for _ in range(5):
        assert_same(f(x, y), _scaled_sum(x, y))
    assert spec.hits == before + 5
    assert f.cache_info().hits == spec.hits


def test_cold_specialisations_stay_on_the_python_path(rng) -> None:
    f = jitaic.jit(_scaled_sum)
    x, y = rng.standard_normal(8), rng.standard_normal(8)
    with config.override(hot_calls=50):
        for _ in range(3):
            f(x, y)
    assert not f.specializations()[0].hot


def test_a_new_shape_misses_then_compiles_and_can_become_hot(rng) -> None:
    x, y = rng.standard_normal(8), rng.standard_normal(8)
    f, first = _hot(_scaled_sum, x, y)
    u, v = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    with config.override(hot_calls=2):
        for _ in range(3):
            assert_same(f(u, v), _scaled_sum(u, v))
    second = next(s for s in f.specializations() if s is not first)
    assert second.hot and first.hot
    assert f.cache_info().misses == 2
    hits = first.hits, second.hits
    assert_same(f(x, y), _scaled_sum(x, y))
    assert_same(f(u, v), _scaled_sum(u, v))
    assert (first.hits, second.hits) == (hits[0] + 1, hits[1] + 1)


def test_a_specialisation_with_another_result_type_is_left_out(rng) -> None:
    """Same argument types, another result type (numba needs one per compiled
    signature): it stays on the Python path, and the first stays hot."""
    def pairs_if_even(x):
        return x.reshape(-1, 2) if x.shape[0] % 2 == 0 else x * 1.0

    even, odd = rng.standard_normal(4), rng.standard_normal(3)
    f, first = _hot(pairs_if_even, even)
    with config.override(hot_calls=2):
        for _ in range(3):
            assert_same(f(odd), pairs_if_even(odd))
    second = next(s for s in f.specializations() if s is not first)
    assert first.hot and not second.hot
    assert_same(f(even), pairs_if_even(even))


def test_a_miss_may_return_anything_the_python_path_does(rng) -> None:
    """A call the compiled dispatcher has no branch for is served from inside
    it (an array result makes it the function's __call__): results of another
    rank or kind, and errors, reach the caller as the Python path gives them."""
    def head_or_pair(x):
        return x[0] if x.shape[0] > 3 else (x, x.sum())

    f, spec = _hot(head_or_pair, rng.standard_normal((4, 3)))
    small = rng.standard_normal((2, 3))
    pair = f(small)
    assert type(pair) is tuple and len(pair) == 2
    assert_same(pair[0], small)
    assert pair[1] == pytest.approx(small.sum())
    g, _ = _hot(_scaled_sum, rng.standard_normal(4), rng.standard_normal(4))
    with pytest.raises(ValueError, match="broadcast"):
        g(rng.standard_normal(4), rng.standard_normal(3))


def test_other_dtypes_layouts_and_values_fall_back_correctly(rng) -> None:
    x, y = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    f, spec = _hot(_scaled_sum, x, y)
    before = spec.hits
    cases = [
        (x.astype(np.float32), y.astype(np.float32)),  # not compiled for these types
        (x[:, ::2], y[:, ::2]),                         # a shape it has no branch for
        (np.asfortranarray(x), np.asfortranarray(y)),   # another layout
        (x, 1.5),                                       # a Python scalar
        (x, y[0]),                                      # broadcasting
    ]
    for args in cases:
        assert_same(f(*args), _scaled_sum(*args))
    assert spec.hits == before  # none of them ran the hot specialisation
    assert f.cache_info().misses == 1 + len(cases)


def test_keywords_defaults_and_wrong_calls_behave_as_for_the_function(rng) -> None:
    def affine(x, scale, shift=None):
        return x * scale if shift is None else x * scale + shift

    x, scale, shift = rng.standard_normal((3, 5))
    f, spec = _hot(affine, x, scale, shift)
    before = spec.hits
    assert_same(f(shift=shift, scale=scale, x=x), affine(x, scale, shift))  # hot
    assert spec.hits == before + 1
    assert_same(f(x, scale), affine(x, scale))  # the default: another specialisation
    assert spec.hits == before + 1
    with pytest.raises(TypeError, match=r"affine\(\) missing 1 required positional.*'scale'"):
        f(x, shift=shift)
    # Too many arguments, or keywords the function does not take, are refused
    # by numba's own argument folding before anything of jitaic runs: its
    # messages, not Python's.
    with pytest.raises(TypeError, match="too many arguments: expected 3, got 4"):
        f(x, scale, shift, 4)
    with pytest.raises(TypeError, match="some keyword arguments unexpected"):
        f(x, scale, z=1)
    assert spec.hits == before + 1


def test_wrong_calls_of_a_cold_function_raise_pythons_error(rng) -> None:
    def affine(x, scale, shift=None, *, power=1):
        return (x * scale + shift) ** power

    f, x = jitaic.jit(affine), rng.standard_normal(4)
    with pytest.raises(TypeError, match=r"affine\(\) takes from 2 to 3 positional"):
        f(x, x, x, x)
    with pytest.raises(TypeError, match=r"affine\(\) got an unexpected keyword argument 'z'"):
        f(x, x, z=1)
    with pytest.raises(TypeError, match=r"affine\(\) got multiple values for argument 'x'"):
        f(x, x, x=x)


def test_config_overrides_bypass_the_compiled_dispatcher(rng) -> None:
    x, y = rng.standard_normal(8), rng.standard_normal(8)
    f, spec = _hot(_scaled_sum, x, y)
    hot_hits = int(spec._hot_counter[0])
    with config.override(backend="reference"):
        assert_same(f(x, y), _scaled_sum(x, y))
    with config.override(disable_jit=True):
        assert_same(f(x, y), _scaled_sum(x, y))
    assert int(spec._hot_counter[0]) == hot_hits


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_array_subclasses_are_rejected_not_stripped(rng) -> None:
    x = rng.standard_normal(4)
    f, _ = _hot(lambda a: a * 2.0, x)
    masked = np.ma.array(x, mask=[0, 1, 0, 0])
    with pytest.raises(jitaic.UnsupportedError, match=r"numpy.ma.MaskedArray.*np.asarray\(a\)"):
        f(masked)
    with pytest.raises(jitaic.UnsupportedError, match="numpy.matrix"):
        f(np.asmatrix(x))


def test_functions_that_write_arguments_are_not_served_hot(rng) -> None:
    def bump(x):
        x[0] += 1.0
        return x * 2.0

    f = jitaic.jit(bump)
    x = rng.standard_normal(4)
    expected = x.copy()
    with config.override(hot_calls=1):
        for _ in range(3):
            f(x)
            expected[0] += 1.0
    assert_same(x, expected)
    assert not f.specializations()[0].hot


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_scalar_results_are_served_hot_as_numpy_scalars(dtype, rng) -> None:
    """numba returns Python numbers; the hot path gives NumPy's scalar type,
    as the Python path (and NumPy) does."""
    x = (rng.standard_normal(16) * 10).astype(dtype)
    f, spec = _hot(lambda a: np.sum(a * a), x)
    before = spec.hits
    for _ in range(3):
        result = f(x)
    expected = np.sum(x * x)
    assert type(result) is type(expected) and result == pytest.approx(expected, rel=1e-6)
    assert spec.hits == before + 3


def test_tuple_results_stay_on_the_python_path(rng) -> None:
    x = rng.standard_normal(16)
    f = jitaic.jit(lambda a: (a.sum(), a * 2.0))
    with config.override(hot_calls=1):
        for _ in range(3):
            total, doubled = f(x)
    assert_same(doubled, x * 2.0)
    assert total == pytest.approx(x.sum())
    assert not f.specializations()[0].hot


def test_run_time_errors_of_a_hot_kernel_reach_the_caller(rng) -> None:
    def head_max(x, n):
        return np.max(x[: n[0]]) + x * 0

    x, n = rng.standard_normal(6), np.array([3])
    f, _ = _hot(head_max, x, n)
    with pytest.raises(ValueError, match="zero-size array"):
        f(x, np.array([0]))


def test_clear_cache_drops_the_dispatcher(rng) -> None:
    x, y = rng.standard_normal(8), rng.standard_normal(8)
    f, _ = _hot(_scaled_sum, x, y)
    f.clear_cache()
    assert type(f) is jitaic.JitFunction
    assert_same(f(x, y), _scaled_sum(x, y))
    assert f.cache_info().misses == 1 and not f.specializations()[0].hot


def test_concurrent_hot_calls_agree_with_numpy(rng) -> None:
    x, y = rng.standard_normal(64), rng.standard_normal(64)
    f, spec = _hot(_scaled_sum, x, y)
    failures = []

    def worker():
        for _ in range(200):
            if not np.array_equal(f(x, y), _scaled_sum(x, y)):
                failures.append(1)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert spec.hot


def _affine(x, a, b):
    return a * x + b


def test_python_float_arguments_are_served_hot(rng) -> None:
    # a scalar-heavy function called with Python floats (issue #24: ~13 µs a
    # call on the general path before)
    x = rng.standard_normal(8)
    f, spec = _hot(_affine, x, 2.0, -0.5)
    before = spec.hits
    for a, b in [(3.0, 1.0), (-1.5, 0.25)]:
        assert_same(f(x, a, b), _affine(x, a, b))
    assert spec.hits == before + 2


def test_numpy_scalar_arguments_are_served_hot(rng) -> None:
    # the public "hasting" kernel is called with np.float64 scalars
    x = rng.standard_normal(8)
    f, spec = _hot(_affine, x, np.float64(2.0), np.float32(-0.5))
    before = spec.hits
    assert_same(f(x, np.float64(3.0), np.float32(1.0)), _affine(x, 3.0, np.float32(1.0)))
    assert spec.hits == before + 1


@pytest.mark.parametrize("hot, other", [
    (2.0, np.float64(2.0)), (np.float64(2.0), 2.0), (2.0, 2), (2.0, True),
    (2.0, np.float32(2.0)), (np.float32(2.0), np.float64(2.0)),
])
def test_a_hot_scalar_parameter_still_tells_other_scalars_apart(hot, other, rng) -> None:
    # NumPy: a Python float is weak (float32 stays float32); np.float64 is not.
    # numba would take several of these for the one type the hot kernel expects.
    x = rng.standard_normal(8).astype(np.float32)
    f = jitaic.jit(_affine)
    with config.override(hot_calls=2):
        for _ in range(3):
            assert_same(f(x, hot, 1.0), _affine(x, hot, 1.0))
            assert_same(f(x, other, 1.0), _affine(x, other, 1.0))
    assert f.specializations()[0].hot
    assert_same(f(x, hot, -1.0), _affine(x, hot, -1.0))
    assert_same(f(x, other, -1.0), _affine(x, other, -1.0))


def test_a_parameter_hot_as_a_float_and_as_an_array(rng) -> None:
    x, a = rng.standard_normal(8), rng.standard_normal(8)
    f = jitaic.jit(_affine)
    with config.override(hot_calls=2):
        for _ in range(3):
            f(x, 2.0, 1.0)
            f(x, a, 1.0)
    assert all(spec.hot for spec in f.specializations())
    assert_same(f(x, 3.0, 1.0), _affine(x, 3.0, 1.0))
    assert_same(f(x, a, -1.0), _affine(x, a, -1.0))
