"""The tables through which NumPy reaches the handlers of this package.

A handler is registered where it is defined, with one decorator::

    @implements(np.sum, method="sum")
    def sum_(a, axis=None, ...): ...

fills every table that names it: NumPy functions (``__array_function__``),
ufuncs written as compositions of ops (``__array_ufunc__``), ndarray methods
and ``ufunc.accumulate`` scans. Registering a key twice is an error at import.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

FUNCTIONS: dict[Callable, Callable] = {}  # np.sum -> handler
COMPOSITE_UFUNCS: dict[np.ufunc, Callable] = {}  # np.logaddexp -> handler
METHODS: dict[str, Callable] = {}  # "sum" -> handler, installed on Tracer
ACCUMULATES: dict[np.ufunc, Callable] = {}  # np.add -> cumsum (np.add.accumulate)


def implements(*functions: Callable, method: str | None = None,
               accumulate: np.ufunc | None = None) -> Callable[[Callable], Callable]:
    """Register the decorated handler for NumPy ``functions`` (ufuncs among them
    are composite ufuncs), as the ndarray ``method`` and as ``accumulate``'s scan."""
    def register(handler: Callable) -> Callable:
        for function in functions:
            table = COMPOSITE_UFUNCS if isinstance(function, np.ufunc) else FUNCTIONS
            _add(table, function, handler)
        if method is not None:
            _add(METHODS, method, handler)
        if accumulate is not None:
            _add(ACCUMULATES, accumulate, handler)
        return handler

    return register


def _add(table: dict, key: object, handler: Callable) -> None:
    if key in table:
        raise AssertionError(f"{key!r} has two handlers: {table[key]!r} and {handler!r}")
    table[key] = handler
