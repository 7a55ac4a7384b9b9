"""Issue 17: np.inner of a 3-D and a 2-D array has NumPy's shape."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-shape'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    return np.inner(a, b)


def make_args():
    return (np.ones((2, 3, 4)), np.ones((5, 4)))
