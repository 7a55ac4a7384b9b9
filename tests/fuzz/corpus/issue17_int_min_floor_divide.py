"""Issue 17: INT_MIN // -1 as NumPy's."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:int64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    return a // b


def make_args():
    return (np.array([-2 ** 63, 7]), np.array([-1, 2]))
