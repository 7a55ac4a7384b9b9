"""Issue 17: values with extra leading size-1 axes assign."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(c, a):
    c[...] = np.array([2.0])
    a[0] = a
    return c, a


def make_args():
    return (np.array(1.0), np.arange(5.0).reshape(1, 5))
