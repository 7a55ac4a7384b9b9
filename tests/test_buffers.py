"""jitaic.lower.buffers: large arrays reuse freed blocks, never live ones."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading

import numpy as np
import pytest

import jitaic
from jitaic.lower import buffers

ROWS = 1024            # 1024 x 1024 float64: 8 MiB, above buffers.MIN_BYTES


def scaled(x, a):
    return x * a + 1.0


@pytest.fixture
def empty_cache():
    buffers.release_cached()
    yield
    buffers.release_cached()


def test_big_output_comes_from_the_cache(empty_cache):
    f = jitaic.jit(scaled)
    x = np.random.default_rng(0).standard_normal((ROWS, 1024))
    assert "buf.empty((np.int64(1024), np.int64(1024)), np.float64)" in f.lower(x, 2.0).source()
    first = f(x, 2.0)
    address = first.ctypes.data
    np.testing.assert_array_equal(first, x * 2.0 + 1.0)
    del first
    gc.collect()
    assert buffers.cached_bytes() == x.nbytes
    again = f(x, 3.0)
    assert again.ctypes.data == address           # the freed block, no fresh pages
    assert buffers.cached_bytes() == 0
    np.testing.assert_array_equal(again, x * 3.0 + 1.0)


def test_live_results_and_views_are_never_reused(empty_cache):
    f = jitaic.jit(scaled)
    x = np.ones((ROWS, 1024))
    kept = [f(x, float(a)) for a in range(3)]      # all alive: three blocks
    view = f(x, 7.0)[5:7, :3]                       # only a view of the fourth is alive
    later = [f(x, 10.0 + a) for a in range(3)]
    addresses = {a.ctypes.data for a in kept} | {a.ctypes.data for a in later}
    assert len(addresses) == 6
    assert view.base is not None and view.base.ctypes.data not in addresses
    for a, arr in enumerate(kept):
        np.testing.assert_array_equal(arr, a + 1.0)
    np.testing.assert_array_equal(view, 8.0)


def test_small_and_run_time_sized_arrays_bypass_the_cache():
    f = jitaic.jit(scaled)
    assert "buf." not in f.lower(np.ones((100, 100)), 2.0).source()


def test_limit_and_release(empty_cache):
    f = jitaic.jit(scaled)
    x = np.ones((ROWS, 1024))
    with jitaic.config.override(buffer_cache_mb=20):   # two 8 MiB blocks fit, not three
        f.lower(x, 1.0)
        results = [f(x, float(a)) for a in range(4)]
        del results
        gc.collect()
        assert buffers.cached_bytes() == 2 * x.nbytes
    assert buffers.release_cached() == 2 * x.nbytes
    assert buffers.cached_bytes() == 0


def test_turned_off_allocates_plainly(empty_cache):
    with jitaic.config.override(buffer_cache_mb=0):
        f = jitaic.jit(scaled)
        x = np.ones((ROWS, 1024))
        source = f.lower(x, 2.0).source()
        assert "buf." not in source and "rt.huge_pages(rt.empty(" in source
        np.testing.assert_array_equal(f(x, 2.0), 3.0)
        del source
        gc.collect()
        assert buffers.cached_bytes() == 0


def test_threads_get_their_own_blocks(empty_cache):
    f = jitaic.jit(scaled)
    x = np.ones((ROWS, 1024))
    f(x, 0.0)
    errors = []

    def work(a):
        for _ in range(20):
            out = f(x, a)
            if not (out[0, 0] == a + 1.0 and out[-1, -1] == a + 1.0):
                errors.append((a, out[0, 0]))

    threads = [threading.Thread(target=work, args=(float(a),)) for a in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_results_outliving_the_interpreter_are_freed_cleanly():
    # Arrays alive at exit are destroyed during shutdown, after jitaic's modules.
    code = ("import numpy as np, jitaic\n"
            "f = jitaic.jit(lambda x: x + 1.0)\n"
            "KEEP = [f(np.ones((1024, 1024))) for _ in range(3)]\n"
            "del KEEP[0]\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
