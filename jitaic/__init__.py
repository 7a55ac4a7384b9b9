"""jitaic: just-in-time compilation of NumPy-style functions to fused native loops."""

import importlib

from jitaic import config
from jitaic.api import JitFunction, jit
from jitaic.errors import ShapeError, UnsupportedError

__all__ = ["JitFunction", "ShapeError", "UnsupportedError", "config", "explain", "grad",
           "hessian", "jacobian", "jit", "jvp",
           "value_and_grad", "vjp"]
__version__ = "0.1.0"

# Imported on first use (PEP 562), so that ``import jitaic`` stays quick:
# a program that never differentiates never loads the autodiff rules.
_LAZY = {
    "grad": "jitaic.autodiff.reverse", "value_and_grad": "jitaic.autodiff.reverse",
    "vjp": "jitaic.autodiff.reverse", "hessian": "jitaic.autodiff.derived",
    "jacobian": "jitaic.autodiff.derived", "jvp": "jitaic.autodiff.derived",
    "explain": "jitaic.report",
}


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module 'jitaic' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
