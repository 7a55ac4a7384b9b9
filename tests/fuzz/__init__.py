"""jitaic's differential fuzzer: random NumPy programs, run by NumPy and by jitaic.

One concern per module, in the order a case flows through them:

    values.py        Hypothesis strategies for arguments (dtypes, shapes, views, aliasing)
    programs.py      the program generator: ``cases()``
    case.py          a case as a self-contained module (temp file or corpus reproducer)
    oracle.py        NumPy vs jitaic.jit in each mode: values, dtypes, arguments, errors
    conditioning.py  which differences rounding alone explains (not reported)
    gradients.py     jitaic.grad against central differences
    corpus.py        the regression corpus and the known failures in it
    search.py        the Hypothesis search loop: find, shrink, save
    __main__.py      the long run (worker processes) and corpus replay

``tests/test_fuzz.py`` runs a fixed budget and replays the corpus in CI.
"""

import os
import sys

# helpers.py lives in tests/, beside this package (pytest puts it on the path;
# ``python -m tests.fuzz`` does not).
_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
