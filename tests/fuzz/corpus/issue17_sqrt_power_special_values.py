"""Issue 17: x ** 0.5 at -inf and -0.0 (NumPy: nan, -0.0)."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(x):
    return x ** 0.5


def make_args():
    return (np.array([-np.inf, -0.0, 4.0]),)
