"""What NumPy's safety costs: jitaic's checks against the same code without them.

    python benchmarks/bench_safety.py            # full run
    python benchmarks/bench_safety.py --quick

Generated code checks run-time indices (NumPy's IndexError), polls for
Ctrl-C in while loops and casts floats to integers with NumPy's values for
NaN and out-of-range inputs. Each workload is compiled twice in one process,
with those checks ("checked", what users get) and with them switched off in
the lowering ("unchecked", a comparison build only), and timed side by side
(interleaved batches, medians; harness.py's conventions). The ratio is
checked / unchecked: 1.00 means the checks cost nothing measurable.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

import numpy as np
from bench_control import workloads as control_workloads
from harness import parse_args, print_header, print_table, time_interleaved, warm_up

import jitaic
from jitaic.lower import control_flow, kernels
from jitaic.lower.codegen import np_type


def _plain_cast(expr: str, src, dst) -> str:
    """numba's own conversion (LLVM: poison outside the target's range)."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return expr
    return f"({expr} != 0)" if dst == np.bool_ else f"{np_type(dst)}({expr})"


# The kernel modules that call the index check and the cast (each imported them).
_KERNEL_MODULES = (kernels.scalar, kernels.loops, kernels.reductions, kernels.linalg,
                   kernels.indexing)


@contextmanager
def unchecked():
    """Lower without index checks, Ctrl-C polls and NumPy's float->int casts."""
    saved = [(m, name, getattr(m, name)) for m in _KERNEL_MODULES
             for name in ("check_index", "cast") if hasattr(m, name)]
    saved_polls = control_flow.POLL_TURNS
    for module, name, _ in saved:
        setattr(module, name, (lambda *args: None) if name == "check_index" else _plain_cast)
    control_flow.POLL_TURNS = 0
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
        control_flow.POLL_TURNS = saved_polls


def scalar_while_sum(x, n):
    s = 0.0
    i = 0
    while i < n[0]:
        s += x[i] * x[i]
        i += 1
    return s


def collatz_steps(v):
    total = 0
    k = 0
    while k < v.shape[0]:
        n = v[k]
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            total += 1
        k += 1
    return total


def gather_loop(x, idx):
    s = 0.0
    for k in range(idx.shape[0]):
        s += x[idx[k]]
    return s


def bin_counts(x):
    return ((x * 10.0).astype(np.int64) % 7).sum()


def workloads(quick: bool):
    rng = np.random.default_rng(0)
    n = 10**5 if quick else 10**6
    out = [(f"{w.name} {w.size}", w.numpy_fn, w.make(rng)) for w in control_workloads(quick)]
    out += [
        (f"scalar while sum {n:.0e}", scalar_while_sum, (rng.random(n), np.array([n]))),
        ("Collatz steps, 1e4 starts", collatz_steps, (np.arange(1, 10**4 + 1),)),
        # x in cache: the loop's own work, not DRAM latency (which varies by process)
        (f"x[idx[k]] loop, 1e4 x, {n:.0e} idx", gather_loop,
         (rng.random(10**4), rng.integers(-(10**4), 10**4, n))),
        (f"(x * 10).astype(int64) % 7 {n:.0e}", bin_counts, (rng.random(n) * 100,)),
    ]
    return out


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(__doc__.splitlines()[0], argv)
    print_header("cost of NumPy's checks: jitaic with and without them", opts)
    warm_up()
    t_start = time.perf_counter()
    rows = []
    for name, fn, args in workloads(opts.quick):
        if not opts.selected(name):
            continue
        checked = jitaic.jit(fn)
        want = checked(*args)
        with unchecked():
            bare = jitaic.jit(fn)
            bare(*args)  # compiled here, inside the switch
        times = time_interleaved({"checked": (checked, args), "unchecked": (bare, args)},
                                 opts.repeats, opts.min_batch_s)
        assert np.allclose(bare(*args), want, rtol=1e-9), name
        rows.append([name, f"{times['checked'] * 1e3:.4f}", f"{times['unchecked'] * 1e3:.4f}",
                     f"{times['checked'] / times['unchecked']:.3f}"])
    print_table(["workload", "checked ms", "unchecked ms", "ratio"], rows, text_columns=1)
    print(f"\n{time.perf_counter() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
