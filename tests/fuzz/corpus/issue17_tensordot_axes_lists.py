"""Issue 17: tensordot(axes=([1, 0], [0, 1]))."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    return np.tensordot(a, b, axes=([1, 0], [0, 1]))


def make_args():
    return (np.arange(24.0).reshape(2, 3, 4), np.arange(30.0).reshape(3, 2, 5))
