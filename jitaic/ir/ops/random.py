"""Draws from NumPy Generators in compiled code.

A Generator is a value of the graph of its own type, ``GENERATOR``: an
argument, or one ``np.random.default_rng`` makes each time the code runs.
Its draws are ops that advance its state, in program order; numba's
Generator methods compute NumPy's own streams, bit for bit, and share the
state with the caller's Generator object.
"""

from __future__ import annotations

import numpy as np

from jitaic.errors import UnsupportedError
from jitaic.ir.ops.core import EFFECTFUL, check_dtype, define
from jitaic.ir.types import TensorType

# The one Python object a graph carries: its dtype stands for "a Generator".
GENERATOR = TensorType((), np.dtype(object))

# The Generator methods compiled code draws: their distribution parameters
# (scalars) in NumPy's order, and which take a ``dtype`` argument. numba
# lowers them natively, except OWN_DRAWS.
GENERATOR_METHODS: dict[str, tuple[str, ...]] = {
    "random": (), "standard_normal": (), "standard_exponential": (),
    "standard_cauchy": (), "standard_gamma": ("shape",),
    "integers": ("low", "high"),
    "normal": ("loc", "scale"), "uniform": ("low", "high"), "exponential": ("scale",),
    "gamma": ("shape", "scale"), "beta": ("a", "b"), "f": ("dfnum", "dfden"),
    "chisquare": ("df",), "pareto": ("a",), "weibull": ("a",), "power": ("a",),
    "laplace": ("loc", "scale"), "logistic": ("loc", "scale"),
    "lognormal": ("mean", "sigma"), "rayleigh": ("scale",), "standard_t": ("df",),
    "triangular": ("left", "mode", "right"),
    "noncentral_chisquare": ("df", "nonc"), "noncentral_f": ("dfnum", "dfden", "nonc"),
    "poisson": ("lam",), "binomial": ("n", "p"), "negative_binomial": ("n", "p"),
    "geometric": ("p",), "zipf": ("a",), "logseries": ("p",), "wald": ("mean", "scale"),
}
# Drawn by jitaic's own code (lower/sampling.py), NumPy's algorithm on the
# Generator's streams: numba's wald differs from NumPy's in the last bit for
# half of its draws.
OWN_DRAWS = frozenset({"wald"})
DRAWS_WITH_DTYPE = frozenset({"random", "standard_normal", "standard_exponential",
                        "standard_gamma", "integers"})
# the methods whose results are integers (int64 unless ``dtype`` says)
INTEGER_DRAWS = frozenset({"integers", "poisson", "binomial", "negative_binomial", "geometric",
                    "zipf", "logseries"})


def _check_generator(t: TensorType, what: str) -> None:
    if t != GENERATOR:
        raise UnsupportedError(f"{what} needs a NumPy Generator, got {t}")


def _draw_infer(in_types, attrs, regions):
    generator, *params = in_types
    _check_generator(generator, f"Generator.{attrs['method']}")
    if any(t.ndim for t in params):
        raise UnsupportedError(f"Generator.{attrs['method']} takes scalar parameters")
    size = attrs["size"]
    return [TensorType(() if size is None else size, check_dtype(attrs["dtype"], "a draw"))]


def _draw_reference(generator, *params, method, size, dtype, options):
    draws = getattr(generator, method)(*params, size=size, **dict(options))
    return np.asarray(draws, dtype)


def _default_rng_reference(*, seed):
    return np.random.default_rng(seed)


# attrs: "method" (a GENERATOR_METHODS name), "size" (a shape, or None: one scalar),
# "dtype" (the result's), "options" ((name, value) pairs: dtype, endpoint).
generator_draw = define("generator_draw", _draw_infer, _draw_reference, (EFFECTFUL,))
# np.random.default_rng(seed) when the code runs (attrs: "seed", an int or
# None): never merged with another, so each makes its own stream.
default_rng = define("default_rng", lambda in_types, attrs, regions: [GENERATOR],
                     _default_rng_reference, (EFFECTFUL,))


def _index_draw_infer(what: str):
    def infer(in_types, attrs, regions):
        (generator,) = in_types
        _check_generator(generator, what)
        return [TensorType(attrs["shape"], np.dtype(np.int64))]
    return infer


# Generator.permutation(n) when the code runs (attrs: "shape", (n,)): the
# Fisher-Yates shuffle of arange(n), numba's as NumPy's. permutation(x) and
# shuffle(x) are gathers of x by it (the swaps depend only on the length).
generator_permutation = define(
    "generator_permutation", _index_draw_infer("Generator.permutation"),
    lambda generator, *, shape: generator.permutation(shape[0]), (EFFECTFUL,))
# Generator.choice(population, size, replace=False) of indices (attrs:
# "population", an int; "shape", the result's; "shuffle"): NumPy's Floyd
# sampling or tail shuffle (lower/sampling.py).
generator_sample = define(
    "generator_sample", _index_draw_infer("Generator.choice"),
    lambda generator, *, population, shape, shuffle: np.asarray(generator.choice(
        population, shape, replace=False, shuffle=shuffle), np.int64).reshape(shape),
    (EFFECTFUL,))


def _weighted_sample_infer(in_types, attrs, regions):
    generator, p = in_types
    _check_generator(generator, "Generator.choice")
    if p.ndim != 1 or p.dtype != np.float64:
        raise UnsupportedError(f"Generator.choice's p must be a float64 vector, got {p}")
    return [TensorType(attrs["shape"], np.dtype(np.int64))]


# Generator.choice(len(p), size, replace=False, p=p) of indices (attrs:
# "shape", the result's): NumPy's rounds of draws through the CDF of the
# probabilities not chosen yet (lower/sampling.py).
generator_weighted_sample = define(
    "generator_weighted_sample", _weighted_sample_infer,
    lambda generator, p, *, shape: np.asarray(generator.choice(
        len(p), shape, replace=False, p=p), np.int64).reshape(shape),
    (EFFECTFUL,))
