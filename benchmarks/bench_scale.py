"""Scaling out: a jitted function on dask arrays, in one process and on a
LocalCluster of two process workers, against NumPy and dask's own NumPy ops.

The workload is a fused elementwise chain and a mean over a float64 array of
``--gb`` GB (default 4), made block by block inside the graph (``da.arange``)
so that it never exists whole on any worker; each worker's memory limit is
1.5 GB, less than the data.

Rows, each the median of interleaved repeats of one whole computation:

- NumPy: one process, the chain on 64 MB slices in a Python loop (the whole
  array and its temporaries would not fit in memory);
- dask threads: dask.array's ops, the threaded scheduler in this process;
- jitaic threads: the jitted function on the dask array, same scheduler;
- dask cluster / jitaic cluster: the same on a LocalCluster of 2 process
  workers with one thread each.

Compile counts come from the run's fresh cache directory, which this process
and the workers share: each kernel is compiled once, and the others load it.

    python benchmarks/bench_scale.py [--quick] [--gb 4] [--repeats 5] [--busy]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

if __name__ == "__main__":
    # A fresh cache for this run, this process's and the workers' (they inherit
    # the environment; they import this file again as __mp_main__, so jitaic
    # reads its knobs there before the cluster could pass them any)
    os.environ["JITAIC_CACHE_DIR"] = tempfile.mkdtemp(prefix="jitaic-scale-")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402,F401  (pins BLAS threads before numpy loads)
import numpy as np  # noqa: E402

import jitaic  # noqa: E402
from jitaic.lower import disk_cache  # noqa: E402

try:
    import dask
    import dask.array as da
    import distributed
except ImportError:  # an optional extra: pip install -e ".[dask]"
    sys.exit("bench_scale needs dask: pip install -e \".[dask]\"")

CHUNK = 8 * 2**20  # elements: 64 MB blocks
WORKER_MEMORY = "1.5GB"


def chain(x):
    return np.mean(np.tanh(x * 3.0) * np.sqrt(x + 1.0) - x * x)


def data(n: int):
    return da.arange(n, chunks=CHUNK, dtype=np.float64) / n


def numpy_slices(n: int) -> float:
    """The mean of the chain, NumPy on one slice at a time (exact partial sums
    weighted by slice length, as dask combines its blocks)."""
    total = 0.0
    for start in range(0, n, CHUNK):
        x = np.arange(start, min(start + CHUNK, n), dtype=np.float64) / n
        total += chain(x) * len(x)
    return total / n


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 GB, 3 repeats")
    ap.add_argument("--gb", type=float, default=None, help="data size (default 4)")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--busy", action="store_true",
                    help="another process keeps one CPU busy while measuring")
    opts = ap.parse_args()
    opts.gb = opts.gb or (2.0 if opts.quick else 4.0)
    opts.repeats = opts.repeats or (3 if opts.quick else 5)
    opts.busy = harness.start_cpu_hog() if opts.busy else ""
    return opts


def main() -> int:
    opts = parse()
    n = int(opts.gb * 1e9 / 8)
    print(f"# bench_scale{' (--quick)' if opts.quick else ''}")
    print(f"numpy {np.__version__}, dask {dask.__version__}, jitaic {jitaic.__version__}; "
          f"{harness.cpu_model()}, {os.cpu_count()} cpus; {opts.gb:g} GB float64 "
          f"({n:,} elements, {-(-n // CHUNK)} blocks of 64 MB); median of {opts.repeats}"
          + (f"; BUSY: another process spins on {opts.busy}" if opts.busy else "") + "\n")
    jitted = jitaic.jit(chain)
    expected = numpy_slices(n)
    cache = disk_cache.directory()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  memory_limit=WORKER_MEMORY, dashboard_address=None
                                  ) as cluster, distributed.Client(cluster) as client:
        runs = {
            "NumPy": lambda: numpy_slices(n),
            "dask threads": lambda: chain(data(n)).compute(scheduler="threads"),
            "jitaic threads": lambda: jitted(data(n)).compute(scheduler="threads"),
            "dask cluster": lambda: client.compute(chain(data(n))).result(),
            "jitaic cluster": lambda: client.compute(jitted(data(n))).result(),
        }
        first = {}
        for name, run in runs.items():  # first calls: compiles, and a check
            start = time.perf_counter()
            got = run()
            first[name] = time.perf_counter() - start
            if not np.isclose(got, expected, rtol=1e-9):
                print(f"FAIL {name}: {got} != {expected}")
                return 1
        times = {name: [] for name in runs}
        for _ in range(opts.repeats):
            for name, run in runs.items():
                start = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - start)
        summary = disk_cache.summary(cache)
    base = statistics.median(times["NumPy"])
    harness.print_table(
        ["run", "first call s", "median s", "GB/s", "vs NumPy"],
        [[name, f"{first[name]:.2f}", f"{statistics.median(t):.3f}",
          f"{opts.gb / statistics.median(t):.2f}", f"{base / statistics.median(t):.2f}x"]
         for name, t in times.items()], text_columns=1)
    one = statistics.median(times["jitaic threads"]) / statistics.median(times["jitaic cluster"])
    print(f"\njitaic on the cluster runs {one:.2f}x as fast as in one process (this machine "
          f"has {os.cpu_count()} cores: both runs use all of them)")
    print(f"cluster: 2 process workers, 1 thread each, memory limit {WORKER_MEMORY} each. "
          f"The run's fresh cache directory, shared by this process and the workers, holds "
          f"{summary['entries']} kernel(s): {summary['compiles']} compile(s) and "
          f"{summary['loads']} load(s) in all")
    disk_cache.clear(cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
