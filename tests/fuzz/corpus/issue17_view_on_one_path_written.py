"""Issue 17: a variable that is the argument on one path writes into it."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'argument-values:float64'
KNOWN_FAILURE = None
MODES = ('ast', 'auto')
GRADIENTS = False


def f(x):
    y = x
    if x.sum() > 0:
        y = x * 2
    y[0] = 99.0
    return y


def make_args():
    return (-np.arange(1.0, 4.0),)
