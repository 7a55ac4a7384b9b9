"""Issue 17: for ... else: return -1, then return i."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error'
KNOWN_FAILURE = None
MODES = ('ast', 'auto')
GRADIENTS = False


def f(x):
    for i in range(x.shape[0]):
        if x[i] > 2:
            break
    else:
        return -1
    return i


def make_args():
    return (np.arange(5.0),)
