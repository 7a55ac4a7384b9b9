"""Shared fixtures for the jitaic test suite (helpers live in helpers.py)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

# helpers.py, op_table.py and programs.py live beside this file; make them
# importable whatever pytest's import mode is.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Compiled kernels stay on disk between runs of the suite (JITAIC_CACHE_DIR,
# jitaic/lower/disk_cache.py): a second run loads them instead of compiling
# (8.4 -> 2.8 minutes on the 2-core machine). A clean machine compiles all.
_CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                      "jitaic", "tests")
os.environ.setdefault("JITAIC_CACHE_DIR", _CACHE)

from helpers import seed_of  # noqa: E402

from jitaic.lower import disk_cache  # noqa: E402

if os.environ["JITAIC_CACHE_DIR"] == _CACHE:
    disk_cache.prune(_CACHE)  # earlier versions' kernels: this suite's own directory


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A generator seeded by the test's node id: reproducible and independent."""
    return np.random.default_rng(seed_of(request.node.nodeid))
