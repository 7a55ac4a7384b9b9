"""Issue 17: shifts by 64 or more, or by a negative count, as NumPy's."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:int64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(b):
    return b >> 64, np.left_shift(b, -2), b >> np.full(2, 64)


def make_args():
    return (np.array([1, -8]),)
