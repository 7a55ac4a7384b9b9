"""NumPy called back from compiled code: a NumPy function jitaic has no
lowering for, run by NumPy itself on the call's arrays.

The function is named by its dotted path, and only NumPy's own functions
resolve (nothing else may run from a graph). The call's other arguments are
Python literals, kept as their source text; the results' shapes and dtypes
are fixed when the call is traced.
"""

from __future__ import annotations

import ast
import importlib

import numpy as np

from jitaic.ir.ops.core import EFFECTFUL, MAY_RAISE, check_dtype, define
from jitaic.ir.types import TensorType

INPUT, LITERAL = "input", "literal"  # an argument: the i-th input, or a literal's source


def resolve(path: str):
    """The NumPy function ``path`` names ("numpy.fft.fft")."""
    module, _, name = path.rpartition(".")
    if module != "numpy" and not module.startswith("numpy."):
        raise ValueError(f"{path} is not a NumPy function")
    return getattr(importlib.import_module(module), name)


def call_arguments(args: tuple, kwargs: tuple, inputs) -> tuple[list, dict]:
    """The positional and keyword arguments of the call, its inputs filled in."""

    def value(entry: tuple) -> object:
        kind, what = entry
        return inputs[what] if kind == INPUT else ast.literal_eval(what)

    return [value(e) for e in args], {name: value(e) for name, e in kwargs}


def result_leaves(result: object) -> list:
    """A function's result as a list of its arrays and scalars (tuples
    flattened; None, np.random.seed's, is no result)."""
    if result is None:
        return []
    if isinstance(result, (tuple, list)):
        return [leaf for item in result for leaf in result_leaves(item)]
    return [result]


def _numpy_call_infer(in_types, attrs, regions):
    return [TensorType(shape, check_dtype(dtype, attrs["function"]))
            for shape, dtype in attrs["results"]]


def _numpy_call_reference(*inputs, function, args, kwargs, results):
    positional, named = call_arguments(args, kwargs, inputs)
    leaves = result_leaves(resolve(function)(*positional, **named))
    return [np.asarray(leaf, dtype) for leaf, (_, dtype) in zip(leaves, results, strict=True)]


# attrs: "function" (its dotted path), "args" and "kwargs" ((INPUT, i) or
# (LITERAL, source) per argument; kwargs as (name, entry) pairs), "results"
# ((shape, dtype) per result, in the order result_leaves gives them).
numpy_call = define("numpy_call", _numpy_call_infer, _numpy_call_reference, (MAY_RAISE,),
                    complex=True)
# The same for np.random's global functions: each call draws from NumPy's
# stream when it runs, so none is merged with another or dropped unread.
random_call = define("random_call", _numpy_call_infer, _numpy_call_reference, (EFFECTFUL,),
                     complex=True)
