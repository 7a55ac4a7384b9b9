"""Issue 17: a write through b = a[1:] is seen in a."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:float64'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    b[0] = 100.0
    return a


def make_args():
    a = np.arange(5.0)
    return (a, a[1:])
