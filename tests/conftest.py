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
# The IR verifier runs after tracing and after every graph pass, in every test.
os.environ.setdefault("JITAIC_CHECKS", "1")

from helpers import seed_of  # noqa: E402

import jitaic  # noqa: E402
from jitaic.lower import disk_cache  # noqa: E402

if os.environ["JITAIC_CACHE_DIR"] == _CACHE:
    disk_cache.prune(_CACHE)  # earlier versions' kernels: this suite's own directory


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A generator seeded by the test's node id: reproducible and independent."""
    return np.random.default_rng(seed_of(request.node.nodeid))


# ---------------------------------------------------------------- the test pyramid
# Modules that set ``TIER = "reference"`` (frontend and autodiff tests) run on
# the NumPy reference interpreter: tracing, passes and autodiff are all
# exercised, numba compiles nothing. Two kinds of their tests run on numba,
# the numba tier, which compares the compiled code with NumPy on the same
# programs: tests marked ``numba`` (they look at compiled code, or at what
# only compiled code does) and a fixed sample of the others, one in
# NUMBA_SAMPLE by a stable hash of the test's id. Every other module runs on
# numba. JITAIC_TEST_TIER=numba runs everything on numba; ``-m "not numba"``
# runs the fast tier alone.
NUMBA_SAMPLE = 4
_ALL_ON_NUMBA = os.environ.get("JITAIC_TEST_TIER") == "numba"


def _on_numba(item: pytest.Item) -> bool:
    if _ALL_ON_NUMBA or getattr(item.module, "TIER", "numba") != "reference":
        return True
    return item.get_closest_marker("numba") is not None \
        or seed_of(item.nodeid) % NUMBA_SAMPLE == 0


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "numba: runs on numba (the numba tier of the pyramid)")
    config.addinivalue_line("markers", "reference: runs on the NumPy reference interpreter")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _on_numba(item):
            item.add_marker(pytest.mark.numba)
        else:
            item.add_marker(pytest.mark.reference)


@pytest.fixture(autouse=True)
def _backend_of_tier(request: pytest.FixtureRequest):
    if request.node.get_closest_marker("reference") is None:
        yield
        return
    with jitaic.config.override(backend="reference"):
        yield
