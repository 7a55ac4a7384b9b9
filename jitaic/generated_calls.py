"""Python functions generated per jitted function: the __call__ of a hot
function, which tries the compiled dispatcher first, and a stub with the
user's signature, whose call raises Python's own TypeError for a wrong call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np

from jitaic import config


def hot_class(base: type, jitted: object, dispatcher: Callable, result_kind: type,
              scalars: dict[int, type] | None = None) -> type:
    """A subclass of ``base`` (JitFunction) for one instance whose __call__ tries the
    compiled dispatcher first.

    The generated __call__ has the user's own parameters (keywords and
    defaults bind as they would for the function, and a wrong call raises
    Python's own message about it) and is a staticmethod closing over the
    instance: a call pays one Python frame, then numba's C dispatcher (and,
    for a scalar result, the conversion of numba's Python number to NumPy's
    scalar type, as the Python path returns).
    """
    params = list(jitted._signature.parameters.values())
    names = [p.name for p in params]
    scalars = scalars or {}
    arrays = " and ".join(  # a scalar parameter's own kind first: one test a call
        f"(type({n}) is _jitaic_kind{i} or type({n}) is _jitaic_ndarray)" if i in scalars
        else f"type({n}) is _jitaic_ndarray" for i, n in enumerate(names)) or "True"
    listed = ", ".join(names)
    name = identifier(jitted.__name__)
    call_hot = f"_jitaic_hot({listed})"
    if result_kind is not np.ndarray:
        call_hot = f"_jitaic_scalar({call_hot})"
    source = (f"def {name}({listed}):\n"
              f"    if not _jitaic_overrides and {arrays}:\n"
              f"        try:\n"
              f"            return {call_hot}\n"
              f"        except (_jitaic_Miss, TypeError):\n"
              f"            pass\n"
              f"    return _jitaic_general(_jitaic_self, {listed})\n")
    from jitaic.lower.dispatch import Miss as HotMiss

    namespace = {"_jitaic_overrides": config._overrides, "_jitaic_ndarray": np.ndarray,
                 **{f"_jitaic_kind{i}": kind for i, kind in scalars.items()},
                 "_jitaic_hot": dispatcher, "_jitaic_Miss": HotMiss,
                 "_jitaic_scalar": result_kind,
                 "_jitaic_general": base.__call__, "_jitaic_self": jitted}
    exec(compile(source, f"<jitaic hot call {name}>", "exec"), namespace)
    call = namespace[name]
    call.__defaults__ = tuple(p.default for p in params if p.default is not p.empty) or None
    call.__code__ = call.__code__.replace(co_qualname=jitted.__qualname__)
    return _subclass(base, call)


def direct_class(base: type, dispatcher: Callable) -> type:
    """A subclass of ``base`` (JitFunction) for one instance whose __call__ is the compiled
    dispatcher itself: numba's C dispatcher, no Python frame. Whatever it does
    not serve it hands to base.__call__ (lower/dispatch.py); a call
    with too many arguments or an unknown keyword raises numba's TypeError
    (its argument folding runs first)."""
    return _subclass(base, dispatcher)


def _subclass(base: type, call: Callable) -> type:
    """``base`` (JitFunction) with ``call`` as its __call__, under base's names."""
    return type(base.__name__, (base,), {"__call__": staticmethod(call),
                                         "__module__": base.__module__,
                                         "__qualname__": base.__qualname__})


class _DefaultAt:
    """Default ``index`` of a signature, as source text."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"_jitaic_defaults[{self.index}]"


def check_call(fn: Callable, signature: inspect.Signature, args: tuple, kwargs: dict) -> None:
    """Call an empty function with ``fn``'s signature: a wrong call raises
    Python's own TypeError, which names the function (inspect's does not)."""
    defaults, params = [], []
    for p in signature.parameters.values():
        if p.default is not p.empty:
            defaults.append(p.default)
            p = p.replace(default=_DefaultAt(len(defaults) - 1))
        params.append(p.replace(annotation=p.empty))
    plain = signature.replace(parameters=params, return_annotation=signature.empty)
    namespace = {"_jitaic_defaults": defaults}
    try:
        exec(f"def stub{plain}:\n    pass\n", namespace)
    except SyntaxError:  # a signature Python source cannot spell: inspect's error stands
        return
    stub = namespace["stub"]
    stub.__qualname__ = getattr(fn, "__qualname__", "stub")  # what the message names
    stub(*args, **kwargs)


def identifier(name: str) -> str:
    """``name`` where it can name a generated function, else ``jitted``."""
    return name if name.isidentifier() else "jitted"
