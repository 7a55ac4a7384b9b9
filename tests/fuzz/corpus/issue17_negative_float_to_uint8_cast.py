"""Issue 17: a cast of -1.0 to uint8 as NumPy's on this machine."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-values:bool'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    return a.astype(np.uint8) < 2 ** a


def make_args():
    return (np.array([-1.0, 3.0]),)
