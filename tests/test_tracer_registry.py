"""The registry that connects NumPy's API to the tracer's handlers."""

import numpy as np
import pytest

from jitaic.tracer import numpy as tnp
from jitaic.tracer.core import Tracer
from jitaic.tracer.numpy import registry

# The reference interpreter runs these tests, numba a fixed sample of them and
# those marked numba (conftest.py: the test pyramid).
TIER = "reference"


def test_every_method_is_an_ndarray_method_installed_on_tracer():
    assert registry.METHODS, "no methods registered"
    for name, handler in registry.METHODS.items():
        assert hasattr(np.ndarray, name), name
        assert getattr(Tracer, name) is handler, name


def test_keys_are_numpy_functions_and_ufuncs():
    for function in registry.FUNCTIONS:
        assert callable(function) and not isinstance(function, np.ufunc), function
        assert function.__module__.startswith("numpy"), function
    assert all(isinstance(u, np.ufunc) for u in registry.COMPOSITE_UFUNCS)
    assert set(registry.ACCUMULATES) == {np.add, np.multiply, np.maximum, np.minimum}


def test_one_decorator_fills_every_table_it_names():
    assert registry.FUNCTIONS[np.cumsum] is tnp.cumsum
    assert registry.METHODS["cumsum"] is tnp.cumsum
    assert registry.ACCUMULATES[np.add] is tnp.cumsum


def test_a_second_handler_for_the_same_key_is_refused():
    with pytest.raises(AssertionError, match="two handlers"):
        registry.implements(np.sum)(lambda a: a)
    with pytest.raises(AssertionError, match="two handlers"):
        registry.implements(method="sum")(lambda a: a)
    assert registry.FUNCTIONS[np.sum] is registry.METHODS["sum"]
