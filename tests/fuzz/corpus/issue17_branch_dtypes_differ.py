"""Issue 17: a variable of two dtypes on two branches is refused, not unified."""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'result-dtype'
KNOWN_FAILURE = None
MODES = ('ast', 'auto')
GRADIENTS = False


def f(x):
    if x.sum() > 0:
        r = x * 2
    else:
        r = x.astype(np.int64)
    return r


def make_args():
    return (np.arange(3.0),)
