"""NumPy Generators in traced code.

A Generator argument, or ``np.random.default_rng(seed)`` called in the
function, is a ``TracedGenerator``: its methods record draws
(``ir/ops/random.py``) that run in order when the compiled code does, from
the Generator's own state, so a jitted function gives the numbers the Python
function gives and leaves the caller's Generator where NumPy would.
"""

from __future__ import annotations

import functools
import inspect
import operator

import numpy as np

from jitaic.errors import UnsupportedError, at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit, new_tracer
from jitaic.tracer.numpy.common import as_tracer, astype, normalize_axes, require
from jitaic.tracer.numpy.indexing import take
from jitaic.tracer.numpy.reductions import cumsum, sum_
from jitaic.tracer.numpy.sorting import searchsorted

# NumPy's own parameters and defaults, to bind a call as NumPy would
_SIGNATURES = {name: inspect.signature(getattr(np.random.Generator, name))
               for name in ops.GENERATOR_METHODS}
# parameters numba's methods take as integers (NumPy's too); the others are floats
_INTEGER_PARAMETERS = {"integers": ("low", "high"), "binomial": ("n",)}


class TracedGenerator:
    """A NumPy Generator while tracing: its draws are recorded, not made."""

    __slots__ = ("_tracer",)

    def __init__(self, tracer: Tracer) -> None:
        self._tracer = tracer

    @classmethod
    def of_value(cls, value) -> TracedGenerator:
        return cls(new_tracer(value, scalar=True))

    def __getattr__(self, name: str):
        if name in ops.GENERATOR_METHODS:
            return functools.partial(draw, self, name)
        if name in _SAMPLING:
            return functools.partial(_SAMPLING[name], self)
        if hasattr(np.random.Generator, name):
            supported = sorted((*ops.GENERATOR_METHODS, *_SAMPLING))
            raise UnsupportedError(
                f"Generator.{name} is not supported in compiled code yet{at(user_location())} "
                f"(supported: {', '.join(supported)})")
        raise AttributeError(f"'numpy.random.Generator' object has no attribute {name!r}")

    def __repr__(self) -> str:
        return "TracedGenerator()"


def default_rng(seed=None) -> TracedGenerator:
    """np.random.default_rng in traced code: the Generator is made each time
    the compiled code runs, from a seed fixed when it is traced (None: fresh
    entropy each run, as NumPy's)."""
    integer = isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
    if seed is not None and not integer:
        raise UnsupportedError(f"np.random.default_rng takes an int seed or None in compiled "
                               f"code, got {type(seed).__name__}{at(user_location())}: pass "
                               f"the Generator in as an argument instead")
    seed = None if seed is None else int(seed)
    return TracedGenerator(emit(ops.default_rng, [], {"seed": seed}))


def draw(generator: TracedGenerator, method: str, /, *args, **kwargs) -> Tracer:
    """``generator.method(*args, **kwargs)``, recorded."""
    bound = _SIGNATURES[method].bind(None, *args, **kwargs)
    bound.apply_defaults()
    arguments = bound.arguments
    if method == "integers" and arguments["high"] is None:  # integers(n): [0, n)
        arguments["low"], arguments["high"] = 0, arguments["low"]
    if method in _PER_ELEMENT and any(np.ndim(arguments[name]) for name in _PER_ELEMENT[method]):
        return _with_array_parameters(generator, method, arguments)
    params = [_parameter(arguments[name], method, name)
              for name in ops.GENERATOR_METHODS[method]]
    size = _static_size(arguments["size"])
    dtype = _result_dtype(method, arguments)
    options = (("dtype", dtype.name),) if method in ops.DRAWS_WITH_DTYPE else ()
    if method == "integers":
        options += (("endpoint", bool(arguments["endpoint"])),)
    if method == "standard_exponential" and arguments["method"] != "zig":
        options += (("method", str(arguments["method"])),)
    return emit(ops.generator_draw, [generator._tracer, *params],
                {"method": method, "size": size, "dtype": dtype, "options": options},
                scalar=size is None)


# Array parameters of normal and uniform: NumPy's own per-element formulas
# (random_normal is loc + scale * a standard normal, random_uniform low +
# (high - low) * a double), the same bits, with NumPy's checks.
_PER_ELEMENT = {"normal": ("loc", "scale"), "uniform": ("low", "high")}


def _with_array_parameters(generator: TracedGenerator, method: str, arguments: dict) -> Tracer:
    a, b = (astype(as_tracer(arguments[name]), np.float64) for name in _PER_ELEMENT[method])
    shape = _static_size(arguments["size"])
    broadcast = np.broadcast_shapes(a.shape, b.shape, *([shape] if shape is not None else []))
    if shape is not None and broadcast != shape:
        raise ValueError(f"Output size {shape} is not compatible with broadcast dimensions of "
                         f"inputs {broadcast}.")
    shape = broadcast
    if method == "normal":
        require(~np.any(b < 0), ValueError, "scale < 0")
        return a + b * draw(generator, "standard_normal", shape)
    width = b - a
    require(np.all(np.isfinite(width)), OverflowError, "Range exceeds valid bounds")
    require(~np.any(width < 0), ValueError, "high - low < 0")
    return a + width * draw(generator, "random", shape)


def _parameter(value: object, method: str, name: str) -> Tracer:
    """A distribution parameter: a scalar, in the type numba's method takes."""
    x = as_tracer(value)
    if x.ndim:
        raise UnsupportedError(
            f"Generator.{method} with an array {name!r} is not supported yet"
            f"{at(user_location())}: draw with scalar parameters and broadcast")
    wanted = np.int64 if name in _INTEGER_PARAMETERS.get(method, ()) else np.float64
    return x if x.dtype == wanted else astype(x, wanted)


def _static_size(size: object) -> tuple[int, ...] | None:
    if size is None:
        return None
    if isinstance(size, (int, np.integer, Tracer)):
        size = (size,)
    return tuple(int(d) for d in size)


def _result_dtype(method: str, arguments: dict) -> np.dtype:
    if method in ops.DRAWS_WITH_DTYPE:
        return np.dtype(arguments["dtype"])
    return np.dtype(np.int64 if method in ops.INTEGER_DRAWS else np.float64)


# ---------------------------------------------------------------- sampling and shuffling
# The swaps of NumPy's Fisher-Yates shuffle depend only on the length, so
# permutation(x) and shuffle(x) gather x by permutation(len): the same
# numbers, and a gather has a gradient.

def _static_length(n: object, what: str) -> int:
    if isinstance(n, Tracer):
        raise UnsupportedError(f"{what} of a traced integer is not supported{at(user_location())}: "
                               f"the length must be known when the function is traced "
                               f"(mark the argument static)")
    return int(n)


def _permuted_indices(generator: TracedGenerator, n: int) -> Tracer:
    return emit(ops.generator_permutation, [generator._tracer], {"shape": (max(n, 0),)})


def permutation(generator: TracedGenerator, x, axis=0) -> Tracer:
    """Generator.permutation: of an int n, arange(n) shuffled; of an array, a
    copy shuffled along ``axis``."""
    if isinstance(x, (int, np.integer)) or (isinstance(x, Tracer) and x.ndim == 0
                                            and x.dtype.kind in "iu"):
        return _permuted_indices(generator, _static_length(x, "Generator.permutation"))
    x = as_tracer(x)
    (axis,) = normalize_axes(axis, x.ndim)
    return take(x, _permuted_indices(generator, x.shape[axis]), axis=axis)


def shuffle(generator: TracedGenerator, x, axis=0) -> None:
    """Generator.shuffle: x shuffled in place along ``axis``."""
    if not isinstance(x, Tracer) or x.ndim == 0:
        raise TypeError(f"len() of unsized object{at(user_location())}" if isinstance(x, Tracer)
                        else f"Generator.shuffle of a {type(x).__name__} is not supported in "
                             f"compiled code{at(user_location())}: shuffle an array")
    (axis,) = normalize_axes(axis, x.ndim)
    x.write(take(x, _permuted_indices(generator, x.shape[axis]), axis=axis).value)


def choice(generator: TracedGenerator, a, size=None, replace=True, p=None, axis=0,
           shuffle=True):
    """Generator.choice as NumPy's computes it: integers(0, n) with
    replacement, the inverse CDF of ``p`` (searchsorted of random draws),
    Floyd's sampling or a tail shuffle without (ops.generator_sample), rounds
    of draws through the CDF of ``p`` (ops.generator_weighted_sample)."""
    population, values, axis = _population(a, size, axis)
    shape = _static_size(size)
    count = 1 if shape is None else int(np.prod(shape))
    weights = None if p is None else _probabilities(p, population)
    if replace:
        if weights is None:
            index = draw(generator, "integers", 0, population, size=shape, dtype=np.int64)
        else:
            cdf = cumsum(weights)
            cdf = cdf / cdf[population - 1]
            index = searchsorted(cdf, draw(generator, "random", size=shape), side="right")
    else:
        if count > population:
            raise ValueError(f"Cannot take a larger sample than population when replace is False"
                             f"{at(user_location())}")
        if weights is not None:  # (shuffle makes no difference then)
            require(sum_(weights > 0) >= count, ValueError,
                    "Fewer non-zero entries in p than size")
            index = emit(ops.generator_weighted_sample, [generator._tracer, weights],
                         {"shape": shape or (1,)})
        else:
            index = emit(ops.generator_sample, [generator._tracer], {
                "population": population, "shape": shape or (1,), "shuffle": bool(shuffle)})
        if shape is None:
            index = index[0]
    return index if values is None else take(values, index, axis=axis)


def _population(a, size, axis) -> tuple[int, Tracer | None, int]:
    """(population size, the array chosen from or None, its axis)."""
    empty_sample = size is not None and int(np.prod(_static_size(size))) == 0
    if np.ndim(a) == 0:
        if isinstance(a, Tracer) and a.dtype.kind in "iu":
            population = _static_length(a, "Generator.choice")
        else:
            try:
                population = operator.index(a.item() if isinstance(a, np.ndarray) else a)
            except TypeError:
                raise ValueError(f"a must be a sequence or an integer, not {type(a)}"
                                 f"{at(user_location())}") from None
        if population <= 0 and not empty_sample:
            raise ValueError(f"a must be a positive integer unless no samples are taken"
                             f"{at(user_location())}")
        return population, None, 0
    values = as_tracer(a)
    (axis,) = normalize_axes(axis, values.ndim)
    population = values.shape[axis]
    if population == 0 and not empty_sample:
        raise ValueError(f"a cannot be empty unless no samples are taken{at(user_location())}")
    return population, values, axis


def _probabilities(p, population: int) -> Tracer:
    """``p`` as float64 with NumPy's checks (its tolerance: the square root of
    the machine epsilon, of p's float type where coarser)."""
    weights = as_tracer(p)
    atol = np.sqrt(np.finfo(np.float64).eps)
    if weights.dtype.kind == "f":
        atol = max(atol, np.sqrt(np.finfo(weights.dtype).eps))
    weights = astype(weights, np.float64, copy=False)
    if weights.ndim != 1:
        raise ValueError(f"p must be 1-dimensional{at(user_location())}")
    if weights.shape[0] != population:
        raise ValueError(f"a and p must have same size{at(user_location())}")
    total = sum_(weights)
    require(~np.isnan(total), ValueError, "Probabilities contain NaN")
    require(~np.any(weights < 0), ValueError, "Probabilities are not non-negative")
    require(~(np.abs(total - 1.0) > atol), ValueError,
            "Probabilities do not sum to 1. See Notes section of docstring for more information.")
    return weights


_SAMPLING = {"permutation": permutation, "shuffle": shuffle, "choice": choice}
