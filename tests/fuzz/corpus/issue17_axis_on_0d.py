"""Issue 17: axis=0 and -1 on 0-d arrays, as NumPy allows."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    return (np.minimum.reduce(a, axis=0), np.repeat(a, 2, axis=0), np.sum(a, axis=-1),
            np.argmin(a, axis=0))


def make_args():
    return (np.array(5.0),)
