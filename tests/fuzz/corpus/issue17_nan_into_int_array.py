"""Issue 17: storing NaN into an int array raises ValueError."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:ValueError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    a[0] = np.nan
    return a


def make_args():
    return (np.zeros(3, dtype=np.int64),)
