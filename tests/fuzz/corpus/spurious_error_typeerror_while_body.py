"""Found by the CI budget, reduced by hand: an error of a while loop's body (a
same_kind casting TypeError) is raised at compile time although the loop runs
zero times (an if's untaken branch is fine)."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = "spurious-error:TypeError: Cannot cast ufunc '*' output from dtype('*') to dtype('*') with casting rule '*'"
KNOWN_FAILURE = None
MODES = ('ast', 'auto')
GRADIENTS = False


def f(d, n):
    k = 0
    while k < n[0]:
        d *= n
        k += 1
    return d


def make_args():
    return (np.zeros(1, dtype=np.uint8), np.array([0]),)
