"""jitaic: just-in-time compilation of NumPy-style functions to fused native loops."""

from jitaic import config
from jitaic.api import JitFunction, jit
from jitaic.autodiff.derived import hessian, jacobian, jvp
from jitaic.autodiff.reverse import grad, value_and_grad, vjp
from jitaic.errors import ShapeError, UnsupportedError
from jitaic.report import explain

__all__ = ["JitFunction", "ShapeError", "UnsupportedError", "config", "explain", "grad",
           "hessian", "jacobian", "jit", "jvp",
           "value_and_grad", "vjp"]
__version__ = "0.1.0"
