"""Issue 17: writes through one argument are seen through an overlapping other."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    b *= 2
    return a.sum()


def make_args():
    a = np.arange(1.0, 6.0)
    return (a, a[::-1])
