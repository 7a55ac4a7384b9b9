"""Issue 17: einsum 'ij,jk->ik' with a size-1 axis broadcasting."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a, b):
    return np.einsum('ij,jk->ik', a, b)


def make_args():
    return (np.ones((2, 1)), np.ones((3, 4)))
