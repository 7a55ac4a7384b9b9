"""Issue 17: np.histogram of data containing NaN raises ValueError."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:ValueError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    return np.histogram(a, bins=3)[0]


def make_args():
    return (np.array([1.0, np.nan, 2.0]),)
