"""jitaic: just-in-time compilation of NumPy-style functions to fused native loops."""

from jitaic import config
from jitaic.api import JitFunction, jit
from jitaic.errors import ShapeError, UnsupportedError

__all__ = ["JitFunction", "ShapeError", "UnsupportedError", "config", "jit"]
__version__ = "0.1.0"
