"""Issue 17: np.round of a bool array (NumPy: float16, which jitaic refuses)."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    return np.round(a)


def make_args():
    return (np.array([True, False]),)
