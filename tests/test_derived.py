"""jvp, jacobian (reverse and forward) and hessian, against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import jitaic

TIER = "reference"


def _fd_jacobian(fn, x, h=1e-6):
    columns = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        columns.append(((fn(x + e) - fn(x - e)) / (2 * h)).ravel())
    return np.array(columns).T.reshape(np.shape(fn(x)) + x.shape)


def elementwise(x, w):
    return np.tanh(x * w).cumsum() + x[::-1] ** 2


def matrix_out(x, w):
    return np.outer(np.sin(x), w) @ np.diag(x)


def recurrence(x, w):
    y = x.copy()
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] * np.cos(x[i]) * w[i] + y[i]
    return y


CASES = [elementwise, matrix_out, recurrence]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_jacobian_matches_finite_differences(fn, mode, rng) -> None:
    x, w = rng.normal(size=4), rng.normal(size=4)
    jac = jitaic.jacobian(fn, mode=mode)(x, w)
    expected = _fd_jacobian(lambda x: fn(x, w), x)
    assert jac.shape == expected.shape
    np.testing.assert_allclose(jac, expected, rtol=1e-6, atol=1e-8)


def test_jacobian_with_respect_to_a_later_argument(rng) -> None:
    x, w = rng.normal(size=3), rng.normal(size=3)
    jac = jitaic.jacobian(matrix_out, argnums=1)(x, w)
    np.testing.assert_allclose(jac, _fd_jacobian(lambda w: matrix_out(x, w), w),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_jvp_is_the_jacobian_times_the_tangent(fn, rng) -> None:
    x, w, t = rng.normal(size=4), rng.normal(size=4), rng.normal(size=4)
    value, derivative = jitaic.jvp(lambda x: fn(x, w), (x,), (t,))
    np.testing.assert_allclose(value, fn(x, w), rtol=1e-12)
    h = 1e-6
    expected = (fn(x + h * t, w) - fn(x - h * t, w)) / (2 * h)
    np.testing.assert_allclose(derivative, expected, rtol=1e-6, atol=1e-8)


def test_jvp_through_powers_and_square_roots(rng) -> None:
    """The dual is differentiated away from a zero cotangent, where the VJP
    rules pass nothing through an infinite local derivative."""
    x, t = np.abs(rng.normal(size=5)) + 0.5, rng.normal(size=5)
    fn = lambda x: np.sqrt(x) * x ** 2 + np.log(x)  # noqa: E731
    _, derivative = jitaic.jvp(fn, (x,), (t,))
    np.testing.assert_allclose(derivative, (0.5 / np.sqrt(x) * x ** 2
                                            + 2 * x * np.sqrt(x) + 1 / x) * t, rtol=1e-12)


def test_jvp_inside_a_jitted_function(rng) -> None:
    x, t = rng.normal(size=3), rng.normal(size=3)

    @jitaic.jit
    def directional(x, t):
        return jitaic.jvp(lambda x: (np.exp(x) * x).sum(), (x,), (t,))[1]

    np.testing.assert_allclose(directional(x, t), ((np.exp(x) * (1 + x)) * t).sum(),
                               rtol=1e-12)


def test_hessian_is_symmetric_and_matches_the_gradients_differences(rng) -> None:
    def energy(x):
        return (np.sin(x) * x.sum() + x ** 3).sum() + (x[:-1] * x[1:]).sum()

    x = rng.normal(size=5)
    hess = jitaic.hessian(energy)(x)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hess, _fd_jacobian(jitaic.grad(energy), x),
                               rtol=1e-6, atol=1e-7)


def test_derived_transformations_refuse_what_they_cannot_do(rng) -> None:
    x = rng.normal(size=3)
    with pytest.raises(ValueError, match="jacobian mode must be one of"):
        jitaic.jacobian(np.sin, mode="sideways")
    with pytest.raises(jitaic.UnsupportedError, match="one argument number"):
        jitaic.jacobian(np.sin, argnums=(0, 1))
    with pytest.raises(TypeError, match="jacobian requires a float argument"):
        jitaic.jacobian(lambda n: n * 2.0)(np.arange(3))
    with pytest.raises(TypeError, match="one tangent per primal"):
        jitaic.jvp(np.sin, (x,), (x, x))
