"""How jitted and transformed functions travel to other processes.

pickle, ``multiprocessing`` and Dask ship a function by reference when its
module names it (``module.qualname`` finds the object itself: a
``@jitaic.jit``-decorated function at module level), else by value through
cloudpickle, as Dask and Ray ship closures and lambdas. Options and static
argument names travel with it; compiled code never does: the receiving
process compiles, or loads the machine code from its disk cache when the
versions match. A process that unpickles the same function again (dask ships
it with every task) gets the object it built the first time, and with it the
specialisations that one compiled or loaded.
"""

from __future__ import annotations

import collections
import hashlib
import importlib
import pickle
import weakref
from collections.abc import Callable

# What rebuilt_once built in this process, by the digest of what it was built
# from; the most recent stay alive between one dask computation and the next.
_BUILT: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_RECENT: collections.deque = collections.deque(maxlen=16)


def import_attribute(module: str, qualname: str) -> object:
    obj: object = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def by_name(obj: object) -> tuple | None:
    """The reduce value that imports ``obj`` by its module and name, or None
    when that name does not lead back to ``obj`` itself."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not module or not qualname or "<" in qualname:  # <locals>, <lambda>
        return None
    try:
        found = import_attribute(module, qualname)
    except (ImportError, AttributeError):
        return None
    return (import_attribute, (module, qualname)) if found is obj else None


def portable(fn: Callable) -> object:
    """``fn`` itself where pickle can name it, else a stand-in that carries it
    by value and unpickles as ``fn``."""
    if by_name(fn) is not None:
        return fn
    import cloudpickle  # loaded when something is shipped by value

    return _ByValue(cloudpickle.dumps(fn))


class _ByValue:
    def __init__(self, payload: bytes) -> None:
        self.payload = payload

    def __reduce__(self) -> tuple:
        import cloudpickle

        return cloudpickle.loads, (self.payload,)


def rebuilt_once(build: Callable, fn: Callable, options: dict) -> tuple:
    """The reduce value of ``build(fn, options)`` (a jitted function), which
    builds it once per process for the same function and options."""
    return _built_once, (build, pickle.dumps(portable(fn)), options)


def _built_once(build: Callable, payload: bytes, options: dict) -> object:
    key = hashlib.sha256(payload + repr(sorted(options.items())).encode()).digest()
    built = _BUILT.get(key)
    if built is None:
        built = _BUILT[key] = build(pickle.loads(payload), options)
        _RECENT.append(built)
    return built
