"""How jitted and transformed functions travel to other processes.

pickle, ``multiprocessing`` and Dask ship a function by reference when its
module names it (``module.qualname`` finds the object itself: a
``@jitaic.jit``-decorated function at module level), else by value through
cloudpickle, as Dask and Ray ship closures and lambdas. Options and static
argument names travel with it; compiled code never does: the receiving
process compiles, or loads the machine code from its disk cache when the
versions match.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


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
