"""Issue 17: integer a ** -1 raises ValueError."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'missed-error:ValueError'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    return a ** -1


def make_args():
    return (np.array([1, 2]),)
