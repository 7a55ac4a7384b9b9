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

import numpy as np

from jitaic.errors import UnsupportedError, at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit, new_tracer
from jitaic.tracer.numpy.common import as_tracer, astype, require

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
        if hasattr(np.random.Generator, name):
            raise UnsupportedError(
                f"Generator.{name} is not supported in compiled code yet{at(user_location())} "
                f"(supported: {', '.join(sorted(ops.GENERATOR_METHODS))})")
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
