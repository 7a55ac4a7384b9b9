"""Issue 17: a list of floats as an argument: NumPy's result or an UnsupportedError naming it."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(x):
    return np.sum(x)


def make_args():
    return ([1.0, 2.0, 4.0],)
