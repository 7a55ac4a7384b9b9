"""Issue 17: a while loop writing past the end raises IndexError."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:IndexError'
KNOWN_FAILURE = None
MODES = ('ast', 'auto')
GRADIENTS = False


def f(a, lim):
    i = 0
    while i < lim[0]:
        a[i] = 1.0
        i += 1
    return a


def make_args():
    return (np.zeros(3), np.array([6]))
