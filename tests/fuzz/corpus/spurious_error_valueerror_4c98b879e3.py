"""Fuzzer reproducer, mode ast: spurious-error:ValueError: variable vN has shape (shape) on
one path and (None,) on the other; jitaic needs static sh. jitaic raises
ValueError('variable v1 has shape (1,) on one path (computed at case_634_381.py:21) and
(None,) on the other (computed at case_634_381.py:23) at case_634_381.py:20 (in f);
jitaic needs static shapes')"""
# ruff: noqa

import numpy as np
from numpy import inf, nan  # noqa: F401  (array literals)

FINGERPRINT = 'spurious-error:ValueError: variable vN has shape (shape) on one path and (None,) on the other; jitaic needs static sh'
KNOWN_FAILURE = None
MODES = ('trace', 'ast', 'auto')
GRADIENTS = False


def f(a):
    a[1:] += np.where(np.where(a > 1, a, a)[a[0]:] > 1, np.where(a > 1, a, a)[a[0]:], a)
    a += np.abs(a)
    k = 0
    while k < 3 and a.max() > 1:
        v0 = a + 1
        k += 1
    if a.sum() > 1:
        v1 = np.abs(a)
    else:
        v1 = a[a[0]:]
    return v1


def make_args():
    b0 = np.array([
            1
        ], dtype='int32').reshape((1,))
    return (b0,)
