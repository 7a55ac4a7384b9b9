"""Issue 17: np.broadcast_to of a masked selection: NumPy's result or UnsupportedError."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, m):
    return np.broadcast_to(a[m], (2, 2))


def make_args():
    return (np.arange(3.0), np.array([True, False, True]))
