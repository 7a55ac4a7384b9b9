"""Issue 17: a cast of NaN to int64 as NumPy's on this machine."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:int64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    return ((a - a) / (a - a)).astype(np.int64)


def make_args():
    return (np.ones(3),)
