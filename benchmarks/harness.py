"""Shared machinery of the benchmark scripts (bench_core, bench_control, bench_autodiff).

Import it before numpy: it pins BLAS to one thread (unless OPENBLAS_NUM_THREADS /
OMP_NUM_THREADS / MKL_NUM_THREADS are set) before numpy and scipy load their
BLAS.  numba's np.dot calls scipy's BLAS, numpy calls its own, and two spinning
thread pools on a small machine slow each other down by 2x or more.  Threads
are then what each tool itself does with them: NumPy and the hand-written
numba loops run on one core; jitaic runs large loop nests and large matrix
products (as row blocks, since the BLAS is single-threaded) on numba's
threads, as it does by default; XLA uses its own thread pool.  Setting
OPENBLAS_NUM_THREADS=2 instead gives NumPy's and numba's matrix products both
cores (jitaic then makes one BLAS call per product).

The conventions every script follows:

- every implementation runs side by side in one process, float64 throughout;
- before any timing, each implementation's first call is timed (for a fresh jit
  function: trace + optimise + codegen + compile + one run) and its result is
  checked against the reference; a wrong or failing implementation is reported
  as FAIL, not timed, and makes the script exit with status 1;
- each timing is the median over repeats of the mean time of a batch of warm
  calls, batches sized to last at least a few milliseconds, the implementations
  taking turns batch by batch (interleaved) so that a slow phase of a shared
  machine hits all of them alike;
- the jax column appears only when ``import jax`` succeeds (jax is never a
  dependency of jitaic; ``pip install -e ".[bench]"`` installs it);
- the torch.compile column likewise, when ``import torch`` succeeds: it
  compiles the NumPy function itself (TorchDynamo traces NumPy calls into
  torch operations, and Inductor generates C++ loops); torch is never a
  dependency either, and no extra installs it.
"""

from __future__ import annotations

import argparse
import atexit
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

# must happen before numpy/scipy load their BLAS (see the module docstring)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# torch's OpenMP threads would spin after each parallel region, taking the
# cores from whichever implementation is timed next
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba  # noqa: E402
import numpy as np  # noqa: E402

import jitaic  # noqa: E402

try:  # optional comparison only
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
except Exception:  # any import problem just drops the column
    jax = None
    jnp = None

try:  # optional comparison only: torch.compile of the NumPy function itself
    import torch
    import torch._dynamo

    _torch = torch
    # its own thread pool on every core, as XLA's and jitaic's parallel loops
    # (OMP_NUM_THREADS=1 above would give it one)
    torch.set_num_threads(os.cpu_count() or 1)
except Exception:
    torch = _torch = None

# torch.compile (TorchDynamo and Inductor) compiling the unmodified NumPy
# function, NumPy arrays in and out, as jitaic does
TORCH = "torch.compile"

# A builder makes one fresh implementation from the workload's arguments:
# ``build(args) -> (fn, args_for_fn)``; ``fn(*args_for_fn)`` is what gets timed.
Builder = Callable[[tuple], tuple[Callable, tuple]]


# --------------------------------------------------------------------------
# command line and header
# --------------------------------------------------------------------------


@dataclass
class Options:
    quick: bool
    repeats: int
    min_batch_s: float
    filter: str
    busy: str = ""  # where a hog process keeps a CPU busy while measuring, if it does
    markdown: str = ""  # where the report also goes (--markdown), with a plot beside it
    torch: bool = False  # bench_control's torch.compile column (--torch)
    dtype: str = "float64"  # the floating-point type of every workload's arrays (--dtype)

    def selected(self, name: str) -> bool:
        """Whether a workload called ``name`` passes ``--filter``."""
        return not self.filter or self.filter in name


def parse_args(description: str, argv: list[str] | None = None) -> Options:
    """``--quick``, ``--repeats``, ``--filter`` and ``--busy``, the flags every script takes."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--quick", action="store_true", help="fewer repeats, smaller sizes")
    ap.add_argument("--repeats", type=int, default=None, help="default 21; 7 with --quick")
    ap.add_argument("--filter", default="", help="only workloads whose name contains this")
    ap.add_argument("--busy", action="store_true",
                    help="measure with another process keeping one CPU busy (a shared machine)")
    ap.add_argument("--torch", action="store_true",
                    help="bench_control: add torch.compile's column (its first calls unroll "
                         "the Python loops: minutes per workload)")
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64",
                    help="the floating-point type of the workloads' arrays (float32: "
                         "tolerances of float32 arithmetic)")
    ap.add_argument("--markdown", default="", metavar="FILE.md",
                    help="also write the report to FILE.md and a plot of the cached-call "
                         "speed-ups to FILE.svg (matplotlib), for the docs")
    opts = ap.parse_args(argv)
    if opts.markdown:
        _copy_output_to(opts.markdown)
    return Options(
        quick=opts.quick,
        repeats=opts.repeats or (7 if opts.quick else 21),
        min_batch_s=0.005 if opts.quick else 0.02,
        filter=opts.filter,
        busy=start_cpu_hog() if opts.busy else "",
        markdown=opts.markdown,
        torch=opts.torch,
        dtype=opts.dtype,
    )


class _Tee:
    """stdout that also writes to a file: the report is already Markdown."""

    def __init__(self, stream, copy) -> None:
        self.stream, self.copy = stream, copy

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.copy.flush()
        self.stream.flush()


_REPORT: dict[str, str] = {}  # "path": the --markdown file, once opened


def _copy_output_to(path: str) -> None:
    copy = open(path, "w")  # noqa: SIM115  (open until the process exits)
    stdout = sys.stdout
    sys.stdout = _Tee(stdout, copy)
    _REPORT["path"] = path

    def close() -> None:
        sys.stdout = stdout
        copy.close()

    atexit.register(close)


def start_cpu_hog() -> str:
    """Start a process that spins on this process's last CPU until this one
    exits (pinned where the OS allows it); returns where it spins."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    cpu = cpus[-1] if cpus else None
    pin = f"os.sched_setaffinity(0, {{{cpu}}})\n" if cpu is not None else ""
    hog = subprocess.Popen([sys.executable, "-c", f"import os\n{pin}while True:\n    pass\n"])
    atexit.register(hog.kill)
    return f"cpu {cpu}" if cpu is not None else "one CPU (not pinned)"


def print_header(title: str, opts: Options) -> None:
    """The title line and one line of versions, machine and settings."""
    print(f"# {title}{' (--quick)' if opts.quick else ''}")
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"numba {numba.__version__}, jitaic {jitaic.__version__}"
        + (f", jax {jax.__version__}" if jax is not None else ", jax not installed")
        + (f", torch {torch.__version__} ({torch.get_num_threads()} threads)"
           if torch is not None else ", torch not installed")
        + f"; {cpu_model()}, {os.cpu_count()} cpus; "
        f"BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}; "
        f"median of {opts.repeats} repeats; {opts.dtype}"
        + (f"; BUSY: another process spins on {opts.busy}" if opts.busy else "")
        + "\n"
    )


def as_dtype(value, dtype: str):
    """``value`` with its floating-point arrays (in tuples, lists and dicts
    too) converted to ``dtype``, complex ones to the complex type of its
    precision; Python numbers stay as they are, as NumPy's promotion treats
    them (a float32 array times 0.5 stays float32)."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
        complex_ = value.dtype.kind == "c"
        return value.astype(np.result_type(dtype, np.complex64) if complex_ else dtype)
    if isinstance(value, tuple | list):
        return type(value)(as_dtype(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: as_dtype(v, dtype) for k, v in value.items()}
    return value


# Tolerances no check is stricter than for float32 results: rounding errors of
# 2**-24 per operation, summed over reductions of up to 1e7 elements in
# NumPy's pairwise order or a hand-written loop's sequential one.
FLOAT32_TOLERANCE = (1e-4, 1e-5)


def tolerances(rtol: float, atol: float, dtype: str) -> tuple[float, float]:
    """A workload's float64 ``(rtol, atol)``, loosened to float32's where it runs in float32."""
    if dtype == "float32":
        return max(rtol, FLOAT32_TOLERANCE[0]), max(atol, FLOAT32_TOLERANCE[1])
    return rtol, atol


def cpu_model() -> str:
    """The processor's name (benchmark tables differ by CPU: say which one)."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def warm_up(matmul: bool = False) -> None:
    """Pay the one-time costs (numba's first compile in a process, jitaic's imports)
    here, not in whichever implementation happens to compile first.

    ``matmul=True`` also compiles numba's ``np.dot`` / transpose / broadcast
    overloads once (several seconds, shared by every later numba and jitaic
    function in the process) through a small jitaic gradient and a numba loop.
    """
    numba.njit(lambda a: a + 1)(np.ones(2))
    jitaic.jit(lambda a: a * 2.0)(np.ones(2))
    if matmul:
        x, w = np.ones((4, 3)), np.ones((3, 2))
        numba.njit(lambda x, w: np.dot(x.T, np.tanh(np.dot(x, w))))(x, w)
        jitaic.jit(jitaic.grad(lambda w, x: np.tanh(x @ w + w[0]).sum()))(w, x)


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------


def batch_size(fn: Callable, args: tuple, min_batch_s: float) -> int:
    """How many calls of a warm ``fn`` make one timed batch of at least ``min_batch_s``."""
    t0 = time.perf_counter()
    fn(*args)
    one = max(time.perf_counter() - t0, 1e-7)
    return max(1, math.ceil(min_batch_s / one))


def time_interleaved(
    fns: dict[str, tuple[Callable, tuple]], repeats: int, min_batch_s: float
) -> dict[str, float]:
    """Median seconds per call of each warm function.

    The implementations take turns, one batch each per round, so a slow phase
    of a shared machine hits all of them alike instead of one column.
    """
    number = {k: batch_size(fn, args, min_batch_s) for k, (fn, args) in fns.items()}
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, (fn, args) in fns.items():
            n = number[k]
            t0 = time.perf_counter()
            for _ in range(n):
                fn(*args)
            samples[k].append((time.perf_counter() - t0) / n)
    return {k: statistics.median(v) for k, v in samples.items()}


def first_call(fn: Callable, args: tuple) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


# --------------------------------------------------------------------------
# checking
# --------------------------------------------------------------------------


def check(expected, got, rtol: float, atol: float, where: str = "") -> None:
    """``got`` equals ``expected`` to tolerance, with the same shapes and dtypes.

    Both may be pytrees (dicts, tuples, lists) of arrays and scalars; a
    tuple and a list of the same length compare alike.
    """
    if isinstance(expected, Mapping):
        if not isinstance(got, Mapping) or set(got) != set(expected):
            keys = sorted(got) if isinstance(got, Mapping) else type(got).__name__
            raise AssertionError(
                f"{where or 'result'}: got {keys}, expected keys {sorted(expected)}"
            )
        for k in expected:
            check(expected[k], got[k], rtol, atol, f"{where}[{k!r}]")
        return
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            raise AssertionError(
                f"{where or 'result'}: got {type(got).__name__}, expected "
                f"a sequence of {len(expected)}"
            )
        for i, (e, g) in enumerate(zip(expected, got)):
            check(e, g, rtol, atol, f"{where}[{i}]")
        return
    # numba returns every float scalar as a Python float (a float32 sum too)
    boxed_float = isinstance(got, float) and not isinstance(got, np.floating)
    got = np.asarray(got)
    expected = np.asarray(expected)
    prefix = f"{where}: " if where else ""
    if got.shape != expected.shape:
        raise AssertionError(f"{prefix}shape {got.shape} != NumPy's {expected.shape}")
    if got.dtype != expected.dtype and not (boxed_float and expected.dtype.kind == "f"):
        raise AssertionError(f"{prefix}dtype {got.dtype} != NumPy's {expected.dtype}")
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=where)


def error_text(exc: BaseException) -> str:
    """``Type: first line of the message``, as the tables' failure lists show it."""
    msg = [line for line in str(exc).strip().splitlines() if line.strip()]
    return f"{type(exc).__name__}: {msg[0].strip() if msg else ''}"


# --------------------------------------------------------------------------
# implementations
# --------------------------------------------------------------------------


def numpy_impl(fn: Callable) -> Builder:
    return lambda args: (fn, args)


def numba_impl(fn: Callable) -> Builder:
    return lambda args: (numba.njit(fn), args)  # fresh dispatcher: first call compiles


def jitaic_impl(fn: Callable, **options) -> Builder:
    return lambda args: (jitaic.jit(fn, **options), args)  # fresh JitFunction


def to_jax(args: tuple) -> tuple:
    """The arguments with every NumPy array leaf as a jax array (Python scalars stay)."""
    return jax.tree_util.tree_map(
        lambda a: jnp.asarray(a) if isinstance(a, np.ndarray) else a, tuple(args)
    )


def jax_blocking(fn: Callable, **jit_options) -> Callable:
    """``jax.jit(fn)`` that waits for its results (jax dispatches asynchronously)."""
    jitted = jax.jit(fn, **jit_options)

    def call(*args):
        return jax.block_until_ready(jitted(*args))

    return call


def jax_impl(fn: Callable, **jit_options) -> Builder:
    return lambda args: (jax_blocking(fn, **jit_options), to_jax(args))


def torch_impl(fn: Callable) -> Builder:
    """``torch.compile(fn)`` on the NumPy arguments, after forgetting earlier
    compiles (so its first call is timed as a fresh one)."""
    def build(args):
        torch._dynamo.reset()
        return torch.compile(fn), args

    return build


def optional_impls(torch: bool = True) -> list[str]:
    """The comparison columns whose library imports here (torch.compile's
    only if ``torch``)."""
    return (["jax"] if jax is not None else []) + (
        [TORCH] if torch and _torch is not None else [])


@dataclass
class Cell:
    run_ms: float | None = None
    first_s: float | None = None
    error: str | None = None
    fn: Callable | None = field(default=None, repr=False)  # the timed implementation


def prepare(build: Builder, args: tuple, expected, rtol: float, atol: float):
    """Build a fresh implementation, time its first call and check its result.

    Returns ``(cell, fn, fn_args)``; on any failure ``cell.error`` says why.
    """
    cell, fn = Cell(), None
    try:
        fn, args = build(args)
        cell.fn = fn
        cell.first_s, out = first_call(fn, args)
        check(expected, out, rtol, atol)
    except Exception as exc:  # reported in the table and the summary
        cell.error = error_text(exc)
    return cell, fn, args


def run_impls(
    builders: Mapping[str, Builder],
    args: tuple,
    expected,
    opts: Options,
    rtol: float = 1e-10,
    atol: float = 1e-12,
    checks: Mapping[str, tuple[object, float, float]] | None = None,
) -> dict[str, Cell]:
    """Prepare every implementation, then time the correct ones interleaved.

    Each result is checked against ``expected`` (to ``rtol``/``atol``), or for the
    implementations named in ``checks`` against their own ``(expected, rtol, atol)``
    (a gradient timed beside the forward function it differentiates, say).
    """
    checks = checks or {}
    cells, ready = {}, {}
    for impl, build in builders.items():
        want, rt, at = checks.get(impl, (expected, rtol, atol))
        cells[impl], fn, impl_args = prepare(build, args, want, rt, at)
        if cells[impl].error is None:
            ready[impl] = (fn, impl_args)
    for impl, t in time_interleaved(ready, opts.repeats, opts.min_batch_s).items():
        cells[impl].run_ms = 1e3 * t
    return cells


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def fmt_ms(c: Cell | None) -> str:
    if c is None:
        return "-"
    if c.error is not None:
        return "FAIL"
    return f"{c.run_ms:.3f}" if c.run_ms < 10 else f"{c.run_ms:.1f}"


def fmt_s(c: Cell | None) -> str:
    if c is None:
        return "-"
    if c.error is not None:
        return "FAIL"
    return f"{c.first_s:.2f}"


def ratio(a: Cell | None, b: Cell | None) -> str:
    if a is None or b is None or a.run_ms is None or b.run_ms is None:
        return "-"
    return f"{a.run_ms / b.run_ms:.2f}"


def progress(name: str, size: str, cells: Mapping[str, Cell]) -> None:
    """One line on stderr per finished workload, so a long run shows it is alive."""
    print(
        f"  done {name} [{size}]  " + "  ".join(f"{k}={fmt_ms(c)}" for k, c in cells.items()),
        file=sys.stderr,
        flush=True,
    )


def print_table(headers: list[str], rows: Iterable[list[str]], text_columns: int = 2) -> None:
    """A markdown table; the first ``text_columns`` columns left-aligned, the rest right."""
    print("| " + " | ".join(headers) + " |")
    print("|" + "".join("---|" if i < text_columns else "---:|" for i in range(len(headers))))
    for row in rows:  # a | inside a cell (|x|^y) would end it
        print("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")


def failures_of(results: Iterable[tuple[str, Mapping[str, Cell]]]) -> list[tuple[str, str, str]]:
    """``(impl, label, error)`` of every failed cell of ``(label, cells)`` results."""
    return [
        (impl, label, c.error)
        for label, cells in results
        for impl, c in cells.items()
        if c.error is not None
    ]


def finish(failures: list[tuple[str, str, str]], t_start: float) -> int:
    """Print the failure list and the total time; the script's exit status."""
    if failures:
        print("\n## Failures (not timed)\n")
        for impl, label, err in failures:
            print(f"- {impl} on {label}: {err}")
    print(f"\n(total benchmark time {time.perf_counter() - t_start:.0f} s)")
    return 1 if failures else 0


def run_workloads(workloads: Iterable, impls: list[str], opts, run: Callable) -> list:
    """``run(w, impls, rng, opts)`` for each selected workload (one shared rng, so a
    script's inputs do not depend on --filter order); [(workload, cells)]."""
    rng = np.random.default_rng(0)
    results = []
    for w in workloads:
        if not opts.selected(w.name):
            continue
        cells = run(w, impls, rng, opts)
        results.append((w, cells))
        progress(w.name, w.size, cells)
    return results


def print_cached_table(results: list) -> None:
    """The cached-call table of NumPy / numba / jitaic / jax workloads, with ratios,
    and jitaic's serial loops (``parallel=False``) where a script timed them;
    with --markdown, a plot of the same figures beside the report."""
    serial = any(SERIAL in c for _, c in results)
    print("## Cached-call time (ms per call; lower is better)\n")
    if "path" in _REPORT:
        plot = plot_speedups(results, _REPORT["path"].removesuffix(".md") + ".svg")
        print(f"![speed-up over NumPy per workload]({os.path.basename(plot)})\n")
    compiled = any(TORCH in c for _, c in results)
    print_table(
        ["workload", "size", "numpy ms", "numba ms", "jitaic ms", "jax ms"]
        + (["torch.compile ms"] if compiled else [])
        + ["jitaic/numba", "numpy/jitaic", "fastest"]
        + (["serial ms", "jitaic/serial"] if serial else []),
        [
            [w.name, w.size, fmt_ms(c["numpy"]), fmt_ms(c["numba"]), fmt_ms(c["jitaic"])]
            + [fmt_ms(c.get("jax"))] + ([fmt_ms(c.get(TORCH))] if compiled else [])
            + [ratio(c["jitaic"], c["numba"]), ratio(c["numpy"], c["jitaic"]), fastest(c)]
            + ([fmt_ms(c.get(SERIAL)), ratio(c["jitaic"], c.get(SERIAL))] if serial else [])
            for w, c in results
        ],
    )


def fastest(cells: Mapping[str, Cell]) -> str:
    """The implementation with the lowest cached time; "jitaic" when it is
    within 5% of that (one run's noise)."""
    timed = {k: c.run_ms for k, c in cells.items() if c.run_ms is not None and k != SERIAL}
    if not timed:
        return "-"
    best = min(timed, key=timed.get)
    if "jitaic" in timed and timed["jitaic"] <= 1.05 * timed[best]:
        return "jitaic"
    return best


def plot_speedups(results: list, path: str) -> str:
    """Horizontal bars: NumPy's time over each implementation's, per workload
    (log scale; right of 1 is faster than NumPy). Needs matplotlib (the
    ``bench`` extra)."""
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    def timed(cell: Cell | None) -> bool:
        return cell is not None and cell.run_ms is not None

    impls = [i for i in ("numba", "jitaic", "jax", TORCH, SERIAL)
             if any(timed(c.get(i)) for _, c in results)]
    labels = [f"{w.name} {w.size}" for w, _ in results]
    fig, ax = plt.subplots(figsize=(8, 0.5 + 0.32 * len(labels) * len(impls) / 2))
    height = 0.8 / len(impls)
    for k, impl in enumerate(impls):
        speedups = [c["numpy"].run_ms / c[impl].run_ms
                    if timed(c.get(impl)) and timed(c["numpy"]) else 0.0
                    for _, c in results]
        ax.barh([y + k * height for y in range(len(labels))], speedups, height, label=impl)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks([y + 0.4 - height / 2 for y in range(len(labels))], labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"speed-up over NumPy (log scale), {cpu_model()}")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})  # no timestamp: reruns diff cleanly
    plt.close(fig)
    return path


# jitaic with parallel=False: parallel loops must never lose to it, idle or --busy
SERIAL = "jitaic serial"
