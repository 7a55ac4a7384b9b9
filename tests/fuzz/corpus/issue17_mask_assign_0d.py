"""Issue 17: a[a > 0] = 0 on a 0-d array."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    a[a > 0] = 0.0
    return a


def make_args():
    return (np.array(3.0),)
