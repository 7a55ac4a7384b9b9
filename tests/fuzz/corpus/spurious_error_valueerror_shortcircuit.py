"""Found by the CI budget, reduced by hand: the right operand of ``and`` runs (and
raises at compile time) although NumPy never evaluates it."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ValueError: zero-size array to reduction operation minimum which has no identity'
KNOWN_FAILURE = None
MODES = ('ast', 'auto')
GRADIENTS = False


def f(a, b):
    if b.sum() > 0 and a.min() == 2.0:
        a = a + 1
    return a


def make_args():
    return (np.zeros(0), np.zeros(1),)
