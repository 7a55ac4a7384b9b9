"""Issue 17: dtype= of cumsum, mean and var is honoured."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    return a.cumsum(dtype=np.int8), b.mean(dtype=np.int32), b.var(dtype=np.int8)


def make_args():
    return (np.array([100, 100, 100]), np.array([1.5, 2.0, 7.0]))
