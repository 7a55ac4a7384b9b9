"""Issue 17: a loop index past the end of an array raises IndexError."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:IndexError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(x, n):
    s = 0.0
    for i in range(n):
        s += x[i]
    return s


def make_args():
    return (np.arange(3.0), 5)
