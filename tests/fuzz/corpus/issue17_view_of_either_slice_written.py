"""Issue 17: a view chosen by a branch writes into the argument."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'argument-values:float64'
KNOWN_FAILURE = None
MODES = ('ast', 'auto')
GRADIENTS = False


def f(x):
    v = x[:2]
    if x.sum() > 0:
        v = x[1:]
    v[0] = -7.0
    return x


def make_args():
    return (np.arange(3.0),)
