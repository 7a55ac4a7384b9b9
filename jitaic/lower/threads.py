"""How many threads a parallel loop may use now: the CPUs other processes leave idle.

numba splits a ``prange`` statically, one contiguous share per thread, and
the loop ends when its slowest thread does. When another process keeps one of
the CPUs busy, the thread sharing that CPU gets a fraction of it and the whole
loop waits: on a 2-CPU machine with one busy CPU, a row softmax took 1.0 ms on
two threads and 0.45 ms on one (benchmarks/ ``--busy``). numba's dynamic
chunks (``set_parallel_chunksize``) did not help: the last chunk still waits
for the slow thread, and small chunks cost more than they save.

So compiled code brackets each parallel loop with ``limit_threads()`` /
``restore_threads()``: for the loop, numba's thread count (this OS thread's)
drops to ``cap``, the CPUs of this process's affinity that other processes
left idle over the last sampling period. A daemon thread measures that from
``/proc/stat`` (busy time of those CPUs minus this process's own CPU time)
and stores it where compiled code reads it: a global that LLVM links by name,
so kernels cached on disk stay valid in every process. Results do not depend
on the thread count (rows never split an accumulation; thread blocks are
fixed at compile time).

Where ``/proc/stat`` does not exist (not Linux), or with the ``follow_load``
knob off, ``cap`` stays at numba's thread count and nothing is sampled.
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numba
from llvmlite import binding as llvm
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from jitaic import config

_CAP_SYMBOL = "jitaic_thread_cap"
_CALLS_SYMBOL = "jitaic_parallel_calls"
_CAP = ctypes.c_int64(numba.config.NUMBA_NUM_THREADS)
_CALLS = ctypes.c_int64(0)  # parallel loops run: the sampler naps while none do
llvm.add_symbol(_CAP_SYMBOL, ctypes.addressof(_CAP))
llvm.add_symbol(_CALLS_SYMBOL, ctypes.addressof(_CALLS))

SAMPLE_S = 0.1  # sampling period while parallel loops run
NAP_S = 1.0  # ... and while none do


def _global(builder, name: str) -> ir.GlobalVariable:
    """The external int64 ``name`` (resolved by ``llvm.add_symbol``)."""
    existing = builder.module.globals.get(name)
    if existing is not None:
        return existing
    variable = ir.GlobalVariable(builder.module, ir.IntType(64), name)
    variable.linkage = "external"
    return variable


@intrinsic
def _load_cap(typingctx):
    """The thread cap, counting the call (the sampler naps while no parallel
    loop asks for it)."""
    def codegen(context, builder, sig, args):
        counter = _global(builder, _CALLS_SYMBOL)
        builder.store(builder.add(builder.load(counter), ir.Constant(ir.IntType(64), 1)),
                      counter)
        return builder.load(_global(builder, _CAP_SYMBOL))

    return types.int64(), codegen


def _threading_layer_function(builder, name: str, function_type: ir.FunctionType):
    """numba's threading-layer function ``name``, called by symbol (as numba's
    own parfor code does), so the caller can be cached on disk. The types must
    be the ones numba's parfor lowering declares in the same module."""
    return cgutils.get_or_insert_function(builder.module, function_type, name)


def _launched(context=None) -> None:
    """numba's threading layer loaded (it registers the symbols called here),
    now and, through the code library being lowered, before a process loads
    that code from a cache (numba's own parfors do the same)."""
    from numba.np.ufunc.parallel import _launch_threads

    _launch_threads()
    if context is not None:
        context.active_code_library._reload_init.add(_launch_threads)


@intrinsic
def _get_num_threads(typingctx):
    _launched()

    def codegen(context, builder, sig, args):
        _launched(context)
        # numba declares it returning intp; the C function returns an int
        function = _threading_layer_function(builder, "get_num_threads",
                                             ir.FunctionType(ir.IntType(64), []))
        count = builder.trunc(builder.call(function, []), ir.IntType(32))
        return builder.sext(count, ir.IntType(64))

    return types.int64(), codegen


@intrinsic
def _set_num_threads(typingctx, count):
    _launched()

    def codegen(context, builder, sig, args):
        _launched(context)
        function = _threading_layer_function(
            builder, "set_num_threads", ir.FunctionType(ir.VoidType(), [ir.IntType(32)]))
        builder.call(function, [builder.trunc(args[0], ir.IntType(32))])
        return context.get_dummy_value()

    return types.void(types.int64), codegen


# These are inlined into their callers, not cached on their own: the
# intrinsics above then lower inside the caller's code library, which records
# that loading it from a cache needs numba's threading layer first. (A cached
# callee's library, loaded from disk, no longer carries that note to callers
# compiled later: such a caller, loaded in a fresh process, crashed.)


@numba.njit(inline="always")
def limit_threads():
    """Lower this thread's numba thread count to ``cap`` for a parallel loop;
    returns the count ``restore_threads`` puts back."""
    saved = _get_num_threads()
    cap = _load_cap()
    if cap < saved:
        _set_num_threads(cap)
    return saved


@numba.njit(inline="always")
def restore_threads(saved):
    if _get_num_threads() != saved:
        _set_num_threads(saved)


@numba.njit(inline="always")
def available():
    """Threads a parallel region may use now: numba's count, at most ``cap``."""
    return min(_get_num_threads(), _load_cap())


# ----------------------------------------------------------------- sampling


@dataclass(frozen=True)
class Sample:
    wall: float  # seconds (time.monotonic)
    busy: int  # clock ticks the sampled CPUs spent on any process, or in steal
    own: float  # this process's CPU seconds (every thread)
    cpus: int  # the CPUs sampled: this process's affinity


TICKS_PER_S = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# /proc/stat's per-CPU columns: user nice system idle iowait irq softirq steal
_BUSY_COLUMNS = (0, 1, 2, 5, 6, 7)


def busy_ticks(stat: str, cpus: set[int]) -> int:
    """Busy clock ticks of ``cpus`` in the text of ``/proc/stat``."""
    total = 0
    for line in stat.splitlines():
        label, _, rest = line.partition(" ")
        if label.startswith("cpu") and label[3:].isdigit() and int(label[3:]) in cpus:
            columns = rest.split()
            total += sum(int(columns[k]) for k in _BUSY_COLUMNS if k < len(columns))
    return total


def sample(stat: str | None = None) -> Sample:
    cpus = os.sched_getaffinity(0)
    if stat is None:
        with open("/proc/stat") as file:
            stat = file.read()
    return Sample(time.monotonic(), busy_ticks(stat, cpus), time.process_time(), len(cpus))


def foreign_load(before: Sample, after: Sample) -> float:
    """CPUs' worth of time other processes took on this process's CPUs
    between two samples."""
    wall = after.wall - before.wall
    if wall <= 0:
        return 0.0
    busy = (after.busy - before.busy) / TICKS_PER_S
    return max(0.0, (busy - (after.own - before.own)) / wall)


def threads_left(cpus: int, foreign: float, limit: int) -> int:
    """Threads for parallel loops when other processes take ``foreign`` CPUs of
    ``cpus``: a CPU counts as taken when more than half of it is (a thread
    sharing it would run the loop's slowest share), at most ``limit``."""
    return max(1, min(limit, int(cpus - foreign + 0.5)))


def quota_cpus(path: str = "/sys/fs/cgroup/cpu.max") -> int | None:
    """CPUs the cgroup's quota allows (cgroup v2, rounded down), or None."""
    try:
        with open(path) as file:
            quota, period = file.read().split()[:2]
    except (OSError, ValueError):
        return None
    return None if quota == "max" else max(1, int(quota) // int(period))


class _Sampler:
    def __init__(self) -> None:
        self.started_in: int | None = None  # pid of the process whose thread runs
        self.lock = threading.Lock()

    def start(self) -> None:
        if self.started_in == os.getpid() or not config.get("follow_load"):
            return
        with self.lock:
            if self.started_in == os.getpid() or not os.path.exists("/proc/stat"):
                return
            self.started_in = os.getpid()
            thread = threading.Thread(target=self._run, name="jitaic-load-sampler",
                                      daemon=True)
            thread.start()

    def _run(self) -> None:
        limit = min(numba.config.NUMBA_NUM_THREADS, quota_cpus() or os.cpu_count() or 1)
        before, seen, period = sample(), _CALLS.value, SAMPLE_S
        while True:
            time.sleep(period)
            after = sample()
            _CAP.value = threads_left(after.cpus, foreign_load(before, after), limit)
            before, calls = after, _CALLS.value
            period, seen = (SAMPLE_S if calls != seen else NAP_S), calls


_SAMPLER = _Sampler()


def follow_load() -> None:
    """Start sampling the machine's load (once per process), and have numba
    register its threading layer's symbols: called before a kernel with
    parallel loops is compiled or loaded."""
    _launched()
    _SAMPLER.start()


# ----------------------------------------------------------------- layers


@functools.cache
def _threading_layer() -> str:
    _launched()  # numba picks its layer here
    return numba.threading_layer()


def parallel_loops_pay() -> bool:
    """Whether kernels get parallel loops at all: not in a child forked from
    a GNU OpenMP process (below), and not on numba's ``workqueue`` layer
    (what is left without tbb and OpenMP). On this 2-core machine workqueue
    made every parallel loop slower than the serial one, from 2.3x at 2^18
    elements to 1.07x at 2^22 (a chain; plain numba prange alike), and it
    aborts the process when two Python threads start parallel regions at once."""
    return not SERIAL_ONLY and _threading_layer() != "workqueue"


# ----------------------------------------------------------------- fork

# True in a process forked from one whose parallel loops ran on GNU OpenMP:
# a parallel region kills such a child ("fork() called from a process already
# using GNU OpenMP"), so its specialisations compile without parallel loops.
# (numba's tbb layer, a dependency where it has wheels, is fork-safe.)
SERIAL_ONLY = False
_unsafe_fork_hooks: list[Callable[[], None]] = []


def on_unsafe_fork(hook: Callable[[], None]) -> None:
    """Call ``hook`` in a child forked after GNU OpenMP ran (it drops the
    compiled code that would start parallel regions)."""
    _unsafe_fork_hooks.append(hook)


def _fork_kills_parallel_regions() -> bool:
    from numba.np.ufunc import parallel

    if not parallel._is_initialized or numba.threading_layer() != "omp":
        return False
    from numba.np.ufunc import omppool

    return getattr(omppool, "openmp_vendor", "GNU") == "GNU"


def _after_fork_in_child() -> None:
    global SERIAL_ONLY
    # the sampler thread did not survive the fork: the child starts its own
    _CAP.value = numba.config.NUMBA_NUM_THREADS
    _SAMPLER.started_in = None
    _SAMPLER.lock = threading.Lock()
    if _fork_kills_parallel_regions():
        SERIAL_ONLY = True
        for hook in _unsafe_fork_hooks:
            hook()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
