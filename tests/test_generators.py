"""NumPy Generators in compiled code: passed in, or made by
np.random.default_rng, they draw NumPy's own streams when the code runs
(numba's Generator methods), never numbers frozen while tracing. np.random's
global stream is test_callbacks.py's."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
from helpers import assert_same, finite_difference

import jitaic
from jitaic.ir import ops


def every_method(rng):
    return (rng.random(3), rng.standard_normal(3, dtype=np.float32),
            rng.standard_exponential(2), rng.standard_exponential(2, method="inv"),
            rng.standard_cauchy(2), rng.standard_gamma(2.5, 3),
            rng.integers(5, 9, 4, endpoint=True), rng.integers(3, dtype=np.int32),
            rng.normal(1.0, 2.0, 3), rng.uniform(0, 1),
            rng.exponential(2.0, 2), rng.gamma(2.0, 3.0, (2, 2)), rng.beta(2.0, 3.0, 2),
            rng.f(3.0, 4.0, 2), rng.chisquare(3.0, 2), rng.pareto(3.0, 2), rng.weibull(2.0, 2),
            rng.power(2.0, 2), rng.laplace(0.0, 2.0, 2), rng.logistic(1.0, 2.0, 2),
            rng.lognormal(0.0, 0.5, 2), rng.rayleigh(2.0, 2), rng.standard_t(3.0, 2),
            rng.triangular(0.0, 1.0, 3.0, 2),
            rng.noncentral_chisquare(3.0, 1.0, 2), rng.noncentral_f(3.0, 4.0, 1.0, 2),
            rng.poisson(3.0, 4), rng.binomial(10, 0.3, 4), rng.negative_binomial(5, 0.5, 4),
            rng.geometric(0.3, 4), rng.zipf(2.0, 4), rng.logseries(0.5, 4),
            rng.wald(1.5, 2.0, (2, 3)), rng.wald(0.5, 4))


def test_every_method_draws_numpys_stream_from_the_callers_generator():
    ours, theirs = np.random.default_rng(3), np.random.default_rng(3)
    got, want = jitaic.jit(every_method)(ours), every_method(theirs)
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)
    assert ours.random() == theirs.random()  # the caller's state moved on as NumPy's
    drawn = {name for name in ops.GENERATOR_METHODS
             if f"rng.{name}(" in inspect.getsource(every_method)}
    assert drawn == set(ops.GENERATOR_METHODS)


def wald_draws(rng, mean, scale):
    return rng.wald(mean, scale, 5000), rng.wald(mean, scale)


@pytest.mark.parametrize("mean, scale", [(1.7, 0.6), (0.3, 5.0), (10.0, 0.01), (2.0, 1e6),
                                         (np.nan, 1.0)])
def test_wald_draws_numpys_bits(mean, scale):
    """numba's own wald differed from NumPy's in the last bit for about half
    of the draws; jitaic draws NumPy's transformation of the same normals."""
    ours, theirs = np.random.default_rng(11), np.random.default_rng(11)
    for g, w in zip(jitaic.jit(wald_draws)(ours, mean, scale), wald_draws(theirs, mean, scale),
                    strict=True):
        np.testing.assert_array_equal(g, w)
    assert ours.random() == theirs.random()


@pytest.mark.parametrize("mean, scale, message", [(0.0, 1.0, "mean <= 0"),
                                                  (1.0, -2.0, "scale <= 0")])
def test_wald_raises_numpys_errors(mean, scale, message):
    with pytest.raises(ValueError, match=message) as numpys:
        wald_draws(np.random.default_rng(0), mean, scale)
    with pytest.raises(ValueError) as ours:
        jitaic.jit(wald_draws)(np.random.default_rng(0), mean, scale)
    assert str(ours.value) == str(numpys.value)


def shuffles(rng, x):
    rng.shuffle(x)
    row = x[1]
    rng.shuffle(row)  # through a view, into x
    rng.shuffle(x, axis=-1)
    return x


SAMPLING = [
    lambda rng, x: rng.permutation(x),
    lambda rng, x: rng.permutation(x, axis=1),
    lambda rng, x: (rng.permutation(10), rng.permutation(x[0].astype(np.int32))),
    shuffles,
    lambda rng, x: (rng.choice(x[0], size=(2, 3)), rng.choice(x, 5, axis=1), rng.choice(5),
                    rng.choice(x[0]), rng.choice(0, size=0)),
    lambda rng, x: (rng.choice(4, size=7, p=x[1] / x[1].sum()),
                    rng.choice(x[1], p=np.array([0.1, 0.2, 0.3, 0.4], np.float32))),
    lambda rng, x: (rng.choice(4, size=3, replace=False), rng.choice(7, replace=False),
                    rng.choice(x[2], size=(2, 2), replace=False, shuffle=False)),
    # a tail shuffle of the population (large, with a large sample) instead of Floyd's
    lambda rng, x: (rng.choice(20000, size=1000, replace=False),
                    rng.choice(20000, size=1000, replace=False, shuffle=False)),
    # with probabilities: rounds of draws through the CDF of those not chosen yet
    lambda rng, x: (rng.choice(4, size=3, replace=False, p=x[1] / x[1].sum()),
                    rng.choice(x[2], size=(2, 2), replace=False, p=[0.05, 0.1, 0.55, 0.3]),
                    rng.choice(x[0][::-1], replace=False, p=[0.5, 0.5, 0.0, 0.0])),
]


@pytest.mark.parametrize("fn", SAMPLING)
def test_permutation_shuffle_and_choice_draw_numpys_numbers(fn):
    x = np.arange(12.0).reshape(3, 4)
    ours, theirs, x_ours = np.random.default_rng(7), np.random.default_rng(7), x.copy()
    assert_same(jitaic.jit(fn)(ours, x_ours), fn(theirs, x))
    np.testing.assert_array_equal(x_ours, x)  # shuffled in place alike
    assert ours.random() == theirs.random()


@pytest.mark.parametrize("fn", [
    lambda rng, x: rng.choice(4, size=5, replace=False),
    lambda rng, x: rng.choice(4, size=3, replace=False, p=[0.5, 0.5, 0.0, 0.0]),
    lambda rng, x: rng.choice(4, p=-x[1] / x[1].sum()),
    lambda rng, x: rng.choice(4, p=x[1] * np.nan),
    lambda rng, x: rng.choice(4, p=x[0]),
    lambda rng, x: rng.choice(4, p=x[0, :3]),
    lambda rng, x: rng.choice(0),
    lambda rng, x: rng.choice(x[:0]),
    lambda rng, x: rng.choice(2.5),
])
def test_choice_raises_numpys_errors(fn):
    x = np.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError) as numpy_error:
        fn(np.random.default_rng(0), x)
    with pytest.raises(ValueError, match=re.escape(str(numpy_error.value)) + " at test_gen"):
        jitaic.jit(fn)(np.random.default_rng(0), x)


def permuted_loss(x, w):
    rng = np.random.default_rng(3)
    return (rng.permutation(x) * w).sum() + (rng.choice(x, 3) ** 2).sum()


def test_permutation_and_choice_of_an_array_pass_gradients_as_gathers():
    x, w = np.linspace(0.5, 1.5, 5), np.arange(5.0)
    np.testing.assert_allclose(jitaic.jit(jitaic.grad(permuted_loss))(x, w),
                               finite_difference(permuted_loss, (x, w), 0), rtol=1e-6)


def seeded_noise(x):
    rng = np.random.default_rng(42)
    return x + rng.uniform(size=x.shape) + rng.integers(0, 10, size=3).sum()


def fresh_noise(x):
    return x + np.random.default_rng().random(x.shape)


@pytest.mark.parametrize("backend", ["numba", "reference"])
def test_default_rng_makes_its_generator_when_the_code_runs(backend):
    x = np.zeros(4)
    with jitaic.config.override(backend=backend):
        seeded, fresh = jitaic.jit(seeded_noise), jitaic.jit(fresh_noise)
        assert_same(seeded(x), seeded_noise(x), tol=0.0)
        assert_same(seeded(x), seeded_noise(x), tol=0.0)  # the same seed, the same numbers
        assert not np.array_equal(fresh(x), fresh(x))  # no seed: new entropy each call


def noisy_walk(x, rng, steps):
    k = 0
    while k < steps and x.max() < 100.0:
        x = x + rng.normal(size=x.shape)
        k += 1
    return x


def draws_through_a_dict(params):
    return params["x"] * params["rng"].random(params["x"].shape)


def one_stream_twice(a, b):
    return a.random(2), b.random(2)


@pytest.mark.parametrize("fn, make_args, options", [
    (noisy_walk, lambda: (np.zeros(3), np.random.default_rng(1), np.int64(4)), {"mode": "ast"}),
    (draws_through_a_dict, lambda: ({"x": np.ones(2), "rng": np.random.default_rng(4)},), {}),
    (one_stream_twice, lambda: (np.random.default_rng(0),) * 2, {}),
], ids=["while loop", "pytree", "one generator passed twice"])
def test_generators_in_loops_pytrees_and_aliases(fn, make_args, options):
    assert_same(jitaic.jit(fn, **options)(*make_args()), fn(*make_args()), tol=0.0)


def array_parameters(rng, loc, scale, low):
    return (rng.normal(loc, scale), rng.normal(loc), rng.uniform(low, 5.0, size=(2, 3)),
            rng.normal(0.5, scale, (4, 3)), rng.uniform(low=low))


def test_array_parameters_of_normal_and_uniform_are_numpys_bits_and_checks():
    """NumPy's per-element formulas (loc + scale * a standard normal, low +
    (high - low) * a double), and its errors for a negative scale or range."""
    def arguments(scale=(1.0, 2.0, 3.0), low=(0.0, 0.25, 0.5)):
        return np.random.default_rng(5), np.arange(3.0), np.array(scale), np.array(low)

    f = jitaic.jit(array_parameters)
    assert_same(f(*arguments()), array_parameters(*arguments()), tol=0.0)
    with pytest.raises(ValueError, match="^scale < 0 at test_generators.py:"):
        f(*arguments(scale=(1.0, -1.0, 1.0)))
    with pytest.raises(OverflowError, match="^Range exceeds valid bounds at"):
        f(*arguments(low=(0.0, -np.inf, 0.0)))
    with pytest.raises(ValueError, match="^high - low < 0 at"):
        f(*arguments(low=(0.0, 2.0, 0.0)))
    for size in [(3, 1), ()]:  # NumPy's ValueError: the result takes the size's shape
        with pytest.raises(ValueError, match=re.escape(f"Output size {size} is not")):
            np.random.default_rng(0).normal(np.arange(3.0), 1.0, size)
        with pytest.raises(ValueError, match=re.escape(f"Output size {size} is not")):
            jitaic.jit(lambda rng, loc, s=size: rng.normal(loc, 1.0, s))(
                np.random.default_rng(0), np.arange(3.0))


def noisy_loss(w, rng):
    return (w * rng.normal(size=w.shape)).sum()


def test_noise_in_a_loss_passes_no_gradient_of_its_own():
    got = jitaic.grad(noisy_loss)(np.ones(3), np.random.default_rng(2))
    np.testing.assert_array_equal(got, np.random.default_rng(2).normal(size=3))


def scale_of_noise(s, rng):
    return rng.normal(0.0, s, 3).sum()


def returns_the_generator(rng):
    return rng


def gamma_with_array_shapes(rng, x):
    return rng.gamma(x)


def traced_seed(x):
    return np.random.default_rng(x[0]).random()


@pytest.mark.parametrize("fn, args, message", [
    (gamma_with_array_shapes, (np.random.default_rng(0), np.ones(2)),
     "Generator.gamma with an array 'shape' is not supported yet at test_generators.py:"),
    (traced_seed, (np.ones(1, np.int64),),
     "np.random.default_rng takes an int seed or None in compiled code, got Tracer"),
    (returns_the_generator, (np.random.default_rng(0),),
     "returning a Generator from a jitted function is not supported"),
])
def test_what_is_not_supported_is_refused(fn, args, message):
    with pytest.raises(jitaic.UnsupportedError, match=message):
        jitaic.jit(fn)(*args)


def test_gradients_through_a_distributions_parameters_are_refused():
    with pytest.raises(jitaic.UnsupportedError, match="the gradient of Generator.normal with "
                                                      "respect to its parameters"):
        jitaic.grad(scale_of_noise)(1.5, np.random.default_rng(0))


def test_explain_says_how_a_generator_argument_is_used():
    text = str(jitaic.explain(jitaic.jit(noisy_loss), np.ones(2), np.random.default_rng(0)))
    assert "rng: Generator: its draws are made when the code runs" in text
