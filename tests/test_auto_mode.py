"""Python as public NumPy code writes it, in auto mode: function and enum
arguments, a Python float used as a count, ``assert`` on array values,
lists of traced values handed to NumPy, ``np.r_``/``np.c_`` and
``np.ndenumerate``. Each is checked against running the same code with NumPy.
"""

from __future__ import annotations

import enum

import numpy as np
import pytest
from helpers import assert_same

import jitaic
from jitaic.errors import ConcretizationError

# The reference interpreter runs these tests, numba a fixed sample of them and
# those marked numba (conftest.py: the test pyramid).
TIER = "reference"


def like_numpy(fn, *args, **kwargs) -> object:
    got = jitaic.jit(fn)(*args, **kwargs)
    assert_same(got, fn(*args, **kwargs))
    return got


# ---------------------------------------------------------------- static arguments by their kind

def wrap(i, n):
    return np.mod(i, n)


def clamp(i, n):
    return np.minimum(i, n - 1)


def shifted(x, mode=wrap):
    """A function-valued default argument, as in a public stencil suite."""
    n = x.shape[0]
    return x[mode(np.arange(n) + 1, n)]


class Boundary(enum.Enum):
    PERIODIC = 1
    FIXED = 2


def boundary_sum(x, boundary=Boundary.PERIODIC):
    if boundary is Boundary.PERIODIC:
        return x + np.roll(x, 1)
    return x + np.concatenate([x[:1], x[:-1]])


def test_functions_and_enum_members_are_static_arguments() -> None:
    """Each one compiles its own code; the function runs on traced values."""
    x = np.arange(5.0)
    f = jitaic.jit(shifted)
    assert_same(f(x), shifted(x))
    assert_same(f(x, clamp), shifted(x, clamp))
    assert len(f.specializations()) == 2
    like_numpy(boundary_sum, x)
    like_numpy(boundary_sum, x, Boundary.FIXED)


def partial_sum(x, n):
    total = 0.0
    for i in range(int(n)):
        total += x[i]
    return total


def test_a_python_float_used_as_a_count_makes_the_function_specialise_on_it() -> None:
    x = np.arange(6.0)
    f = jitaic.jit(partial_sum)
    assert [f(x, 3.0), f(x, 5.0), f(x, 3.0)] == [3.0, 10.0, 3.0]
    assert len(f.specializations()) == 2
    arguments = jitaic.explain(f, x, 3.0).sections[0][1]
    assert any(line.startswith("n = 3.0: static (Python int() of the Python float argument "
                               "'n' at test_auto_mode.py:") for line in arguments)


def count_from_a_product(x, n):
    return x[:int(n * 2)].sum()


def test_a_value_computed_from_a_python_float_stays_traced() -> None:
    """Only the argument itself is made static: a product of it has no value yet."""
    with pytest.raises(ConcretizationError, match=r"Python int\(\) of a traced array"):
        jitaic.jit(count_from_a_product)(np.arange(6.0), 1.0)


# ---------------------------------------------------------------- assert

def reciprocal(d):
    assert d != 0, "distance must not be zero"
    return 1.0 / d


def inverse_distances(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += reciprocal(x[i] - 0.5)  # a helper with an assert, called in a loop
    return total


def test_assert_on_a_traced_value_is_checked_when_the_code_runs() -> None:
    like_numpy(inverse_distances, np.arange(4.0))
    with pytest.raises(AssertionError, match=r"^distance must not be zero at "
                                             r"test_auto_mode.py:\d+ \(in reciprocal\)"):
        jitaic.jit(inverse_distances)(np.array([1.0, 0.5]))


def assert_formatted(x):
    assert x.sum() > 0, f"sum is {x.sum()}"
    assert x.shape[0] == 3, "a static test"
    return x * 2


def test_assert_messages_and_static_tests() -> None:
    """A message formatting traced values cannot be built while tracing; a
    test on static values is Python's own assert."""
    like_numpy(assert_formatted, np.ones(3))
    with pytest.raises(AssertionError, match="^assertion failed at test_auto_mode.py"):
        jitaic.jit(assert_formatted)(-np.ones(3))
    with pytest.raises(AssertionError, match="^a static test$"):
        jitaic.jit(assert_formatted)(np.ones(2))


def test_assert_on_an_array_is_as_ambiguous_as_in_numpy() -> None:
    def f(x):
        assert x > 0
        return x

    with pytest.raises(ValueError, match="truth value of an array with more than one element"):
        jitaic.jit(f)(np.ones(3))


# ---------------------------------------------------------------- lists of traced values

def lists_to_numpy(x):
    return (np.mean([x, x + 2]), np.sum([x, x * 2], axis=0), np.max((x[0], x[1] * 3)),
            np.std([x[0], x[2], 1.0]))


def test_lists_of_traced_values_are_the_arrays_numpy_makes_of_them() -> None:
    like_numpy(lists_to_numpy, np.arange(4.0))


def index_tricks(x, m):
    return np.r_[x, x + 1, 7.0], np.c_[x, x * 2], np.c_[m, m], np.r_[1:3, 5]


def enumerated(m):
    total = np.zeros(())
    for (i, j), v in np.ndenumerate(m):
        total = total + v * (i + 2 * j)
    return total


def test_r_c_and_ndenumerate() -> None:
    like_numpy(index_tricks, np.arange(3.0), np.ones((3, 2)))
    like_numpy(enumerated, np.arange(6.0).reshape(2, 3))
