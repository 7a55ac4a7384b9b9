"""NumPy functions jitaic does not lower, called back from the compiled code
(``jit(callbacks=True)``, the default): NumPy computes them, on the call's
own arrays, when the code runs.

What a call gives is fixed while tracing: NumPy runs it on two sets of
stand-in arrays of the arguments' shapes and dtypes, and the results' shapes
and dtypes must agree (a length the data decides cannot be compiled). A
function that writes into its arguments or returns a view of one is refused:
the callback gets and gives copies.
"""

from __future__ import annotations

import keyword
import logging

import numpy as np

from jitaic import config
from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.ir.ops.callbacks import INPUT, LITERAL, call_arguments, resolve, result_leaves
from jitaic.ir.types import SUPPORTED_DTYPES
from jitaic.tracer.core import Tracer, emit_multi, new_tracer
from jitaic.tracer.numpy.common import as_tracer, unsupported

log = logging.getLogger("jitaic")
_LOGGED: set[tuple] = set()  # (function, line) pairs logged once


def numpy_name(func) -> str:
    """``np.fft.fft`` for numpy.fft.fft, as messages name it."""
    module = func.__module__ if func.__module__ not in (None, "numpy") else "np"
    return f"{module.replace('numpy', 'np')}.{func.__name__}"


def call_back(func, args: tuple, kwargs: dict, refusal: Exception | None = None,
              draws: bool = False) -> object:
    """``func(*args, **kwargs)`` computed by NumPy when the compiled code runs
    (``refusal``: the error to raise where it cannot be, else one naming it;
    ``draws``: a function of np.random's global stream, drawing each time it
    runs and never while tracing)."""
    name = numpy_name(func)
    path = f"{func.__module__}.{func.__name__}"
    if not config.get("callbacks") or not _resolves_to(path, func):
        raise refusal or unsupported(name)
    inputs: list[Tracer] = []

    def entry(value: object) -> tuple:
        if isinstance(value, (Tracer, np.ndarray)):
            x = as_tracer(value)
            ops.check_static(x.aval, name, " through the NumPy callback")
            inputs.append(x)
            return INPUT, len(inputs) - 1
        return LITERAL, repr(_literal(value, name))

    positional = tuple(entry(a) for a in args)
    named = tuple((_keyword(k, name), entry(v)) for k, v in sorted(kwargs.items()))
    results, rebuild = _results(func, name, positional, named, inputs)
    attrs = {"function": path, "args": positional, "kwargs": named,
             "results": tuple((shape, dtype) for shape, dtype, _ in results)}
    outs = emit_multi(ops.random_call if draws else ops.numpy_call, inputs, attrs)
    loc = user_location()
    if (path, loc) not in _LOGGED:
        _LOGGED.add((path, loc))
        log.info("%s has no native lowering: NumPy computes it, called back from the compiled "
                 "code%s", name, at(loc))
    return rebuild([new_tracer(t.value, scalar=scalar)
                    for t, (_, _, scalar) in zip(outs, results, strict=True)])


def _resolves_to(path: str, func) -> bool:
    try:
        return resolve(path) is func
    except (ValueError, ImportError, AttributeError):
        return False


def _literal(value: object, name: str) -> object:
    """An argument that is no array as a Python literal (NumPy scalars as
    Python's, dtypes by name)."""
    if isinstance(value, np.generic):
        value = value.item()
    if _is_numeric_dtype(value):
        return np.dtype(value).name
    if isinstance(value, (tuple, list)):
        items = [_literal(v, name) for v in value]
        return tuple(items) if isinstance(value, tuple) else items
    if value is None or isinstance(value, (bool, int, str)):
        return _exact(value)
    if isinstance(value, (float, complex)) and np.isfinite(value):
        return _exact(value)
    raise unsupported(f"{name} with the argument {value!r} through the NumPy callback "
                      f"(arrays, numbers, strings, None and tuples of them are)")


# The generated code holds a literal's repr: a subclass's own __repr__ would
# write that code, so literals become exactly these builtin types first.
_EXACT = {int: int.__int__, float: float.__float__, complex: complex.__complex__,
          str: str.__str__}


def _exact(value: object) -> object:
    if value is None or type(value) is bool or type(value) in _EXACT:
        return value
    return next(convert(value) for kind, convert in _EXACT.items() if isinstance(value, kind))


def _keyword(key: str, name: str) -> str:
    """A keyword argument's name, written into the generated call: a Python
    name, nothing else (``**{text: v}`` passes any string)."""
    key = str.__str__(key)
    if not key.isidentifier() or keyword.iskeyword(key):
        raise unsupported(f"{name} with the keyword argument {key!r} through the NumPy "
                          f"callback (a keyword that is not a Python name)")
    return key


def _is_numeric_dtype(value: object) -> bool:
    """A dtype or scalar type of numbers (np.float32, float), which its name
    stands for; any other class (dict: NumPy's object dtype) is not one."""
    numeric = (bool, int, float, complex)
    return isinstance(value, np.dtype) or (
        isinstance(value, type) and (issubclass(value, np.number) or value in numeric))


def _results(func, name: str, positional: tuple, named: tuple, inputs: list[Tracer]):
    """[(shape, dtype, is a NumPy scalar)] of the call's results, and a function
    rebuilding its result (an array, a tuple, a named tuple) from Tracers."""
    runs = []
    state = np.random.get_state()  # stand-ins of np.random's functions draw nothing
    for seed in (0, 1):
        stand_ins = [_stand_in(x, seed) for x in inputs]
        before = [a.copy() for a in stand_ins]
        args, kwargs = call_arguments(positional, named, stand_ins)
        try:
            with np.errstate(all="ignore"):
                result = func(*args, **kwargs)
        except Exception as exc:  # NumPy's error for these arguments, at the user's line
            raise _located(exc) from None
        finally:
            np.random.set_state(state)
        if any(not np.array_equal(a, b, equal_nan=True) for a, b in zip(stand_ins, before)):
            raise unsupported(f"{name} through the NumPy callback: it writes into its "
                              f"arguments")
        leaves = result_leaves(result)
        if any(isinstance(leaf, np.ndarray) and np.shares_memory(leaf, a)
               for leaf in leaves for a in stand_ins):
            raise unsupported(f"{name} through the NumPy callback: it returns a view of "
                              f"its argument")
        runs.append((result, [_described(leaf, name) for leaf in leaves]))
    (result, described), (_, again) = runs
    if described != again:
        raise unsupported(f"{name} through the NumPy callback: the shape of its result "
                          f"depends on the values")
    return described, _rebuilder(result)


def _located(exc: Exception) -> Exception:
    """``exc`` with the user's line, where its type takes one message."""
    try:
        return type(exc)(f"{exc}{at(user_location())}")
    except Exception:  # (a NumPy error built from several values)
        return exc


def _stand_in(x: Tracer, seed: int) -> np.ndarray:
    """Values of x's shape and dtype: positive, distinct, away from 0 and 1."""
    rng = np.random.default_rng(seed)
    if x.dtype == np.bool_:
        return rng.integers(0, 2, x.shape).astype(bool)
    if x.dtype.kind in "iu":
        return rng.integers(1, 5, x.shape).astype(x.dtype)
    values = rng.uniform(1.5, 2.5, x.shape)
    if x.dtype.kind == "c":
        values = values + 1j * rng.uniform(0.5, 1.5, x.shape)
    return values.astype(x.dtype)


def _described(leaf: object, name: str) -> tuple:
    array = np.asarray(leaf)
    if array.dtype not in SUPPORTED_DTYPES:
        raise unsupported(f"{name} through the NumPy callback: its result has dtype "
                          f"{array.dtype}")
    return array.shape, array.dtype, not isinstance(leaf, np.ndarray)


def _rebuilder(result: object):
    """Rebuild ``result``'s structure (nested tuples, named tuples) from leaves."""
    if result is None:  # (np.random.seed's)
        return lambda leaves: None
    if not isinstance(result, (tuple, list)):
        return lambda leaves: leaves[0]
    parts = [_rebuilder(item) for item in result]
    sizes = [len(result_leaves(item)) for item in result]

    def rebuild(leaves):
        items, start = [], 0
        for part, size in zip(parts, sizes, strict=True):
            items.append(part(leaves[start:start + size]))
            start += size
        if isinstance(result, list):
            return items
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)

    return rebuild
