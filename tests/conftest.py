"""Shared fixtures for the jitaic test suite (helpers live in helpers.py)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

# helpers.py, op_table.py and programs.py live beside this file; make them
# importable whatever pytest's import mode is.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from helpers import seed_of  # noqa: E402


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A generator seeded by the test's node id: reproducible and independent."""
    return np.random.default_rng(seed_of(request.node.nodeid))
