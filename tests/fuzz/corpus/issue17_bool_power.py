"""Issue 17: bool_arr ** 2 has NumPy's dtype."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    return a ** 2


def make_args():
    return (np.array([True, False]),)
