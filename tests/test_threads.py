"""Parallel loops on a shared machine: the load sampler's arithmetic, the
thread cap compiled code reads, and the source that brackets each parallel loop
(jitaic/lower/threads.py)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest
from helpers import emitted_lines

import jitaic
from jitaic.lower import codegen, loop_ir, loop_passes, threads

# /proc/stat of a 4-CPU machine (user nice system idle iowait irq softirq steal ...)
STAT = """cpu  400 0 40 4000 4 0 4 4 0 0
cpu0 100 1 10 1000 1 0 1 1 0 0
cpu1 100 2 10 1000 1 0 1 1 0 0
cpu2 100 3 10 1000 1 0 1 1 0 0
cpu3 100 4 10 1000 1 0 1 1 0 0
intr 1 2 3
ctxt 5
"""


def test_busy_ticks_count_the_affinity_cpus_busy_columns():
    # busy: user + nice + system + irq + softirq + steal; idle and iowait are not
    assert threads.busy_ticks(STAT, {0}) == 100 + 1 + 10 + 0 + 1 + 1
    assert threads.busy_ticks(STAT, {1, 3}) == (100 + 2 + 10 + 2) + (100 + 4 + 10 + 2)
    assert threads.busy_ticks(STAT, set()) == 0


def _sample(wall, busy_s, own, cpus=2):
    return threads.Sample(wall, round(busy_s * threads.TICKS_PER_S), own, cpus)


@pytest.mark.parametrize("busy_s, own, foreign", [
    (0.2, 0.1, 1.0),  # both CPUs busy, half of it this process: one CPU's worth foreign
    (0.1, 0.1, 0.0),  # only this process ran
    (0.05, 0.1, 0.0),  # tick accounting lagging this process's own clock: not negative
])
def test_foreign_load_is_busy_time_minus_this_process(busy_s, own, foreign):
    before, after = _sample(10.0, 0.0, 5.0), _sample(10.1, busy_s, 5.0 + own)
    assert threads.foreign_load(before, after) == pytest.approx(foreign)
    assert threads.foreign_load(after, after) == 0.0


@pytest.mark.parametrize("cpus, foreign, limit, expected", [
    (2, 0.0, 2, 2), (2, 0.4, 2, 2), (2, 0.6, 2, 1), (2, 1.0, 2, 1), (2, 2.0, 2, 1),
    (8, 3.0, 8, 5), (8, 0.0, 4, 4), (1, 0.0, 2, 1),
])
def test_a_cpu_counts_as_taken_when_others_use_more_than_half_of_it(cpus, foreign, limit,
                                                                    expected):
    assert threads.threads_left(cpus, foreign, limit) == expected


@pytest.mark.parametrize("text, expected", [
    ("max 100000\n", None), ("200000 100000\n", 2), ("150000 100000\n", 1),
    ("50000 100000\n", 1), ("garbage\n", None),
])
def test_cgroup_quota_in_whole_cpus(tmp_path, text, expected):
    path = tmp_path / "cpu.max"
    path.write_text(text)
    assert threads.quota_cpus(str(path)) == expected
    assert threads.quota_cpus(str(tmp_path / "missing")) is None


@pytest.fixture
def cap_of_one(monkeypatch):
    """Parallel loops limited to one thread, as when other processes take
    every CPU but one (the sampler thread, if it runs, keeps it so)."""
    threads.follow_load()  # numba's threading layer loaded, as for a parallel kernel
    monkeypatch.setattr(threads, "threads_left", lambda *args: 1)
    saved = threads._CAP.value
    threads._CAP.value = 1
    try:
        yield
    finally:
        threads._CAP.value = saved


def test_limit_threads_lowers_numba_threads_and_restore_puts_them_back(cap_of_one):
    before = numba.get_num_threads()
    saved = threads.limit_threads()
    assert (saved, numba.get_num_threads(), threads.available()) == (before, 1, 1)
    threads.restore_threads(saved)
    assert numba.get_num_threads() == before


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _chain(x, y):
    return (2 * x + y) * (x - y) + 3 * y * y


@pytest.mark.parametrize("fn, shapes", [(_softmax, [(512, 512)]),
                                        (_chain, [(2**19,), (2**19,)])])
def test_parallel_loops_give_the_same_bits_on_fewer_threads(rng, cap_of_one, monkeypatch,
                                                           fn, shapes):
    args = [rng.standard_normal(s) for s in shapes]
    f = jitaic.jit(fn)
    source = f.lower(*args).source()
    assert "rt.limit_threads()" in source and "rt.restore_threads(" in source
    assert source.index("rt.limit_threads()") < source.index("numba.prange(") \
        < source.index("rt.restore_threads(")
    before = numba.get_num_threads()
    on_one = f(*args)
    assert numba.get_num_threads() == before  # the caller's count is left alone
    monkeypatch.setattr(threads, "threads_left", lambda *args: numba.get_num_threads())
    threads._CAP.value = numba.get_num_threads()
    np.testing.assert_array_equal(f(*args), on_one)
    np.testing.assert_allclose(on_one, fn(*args), rtol=1e-12)


def _emitter() -> codegen.Emitter:
    em = codegen.Emitter(parallel_min_work=1)
    return em


def _lines(em: codegen.Emitter) -> list[str]:
    return emitted_lines(em)


def test_a_short_functions_parallel_loops_stay_in_it():
    em = _emitter()
    with em.loops([("i", 100)], work=100):
        em.store("out", ["i"], "x[i]")
    fn = em.function("f", ["x", "out"])
    assert em.uses_prange and not fn.helpers and "numba.prange" in loop_ir.render(fn)


def test_a_long_functions_parallel_loops_are_functions_of_their_own(monkeypatch):
    """numba's parfor passes then run over the loop, not the whole function;
    the helper takes what the loop reads and gives back what it assigns and
    the rest of the function reads (here a reduction's accumulator)."""
    monkeypatch.setattr(loop_passes, "OUTLINE_FROM_STATEMENTS", 3)
    em = _emitter()
    em.line("acc = 0.0")
    em.line("unused = 1.0")
    with em.loops([("i", 100)], work=100):
        em.line("e = x[i] * 1e-05")
        em.line("acc += e * scale")
        em.store("out", ["i"], "x[i]")
    em.comment("e and out.shape are no reads of e and shape, nor are 'e' and 2e-05")
    em.line("return (acc + unused * 2e-05 + out.shape[0], )")
    fn = em.function("f", ["x", "out", "scale"])
    assert not em.uses_prange and em.launches_threads
    (helper,) = fn.helpers
    assert helper.params == ["acc", "out", "scale", "x"] and helper.uses_prange
    source = loop_ir.render(fn)
    assert source.startswith("@numba.njit(parallel=True, error_model=\"numpy\")\n"
                             f"def {helper.name}(acc, out, scale, x):"), source
    assert f"    acc = {helper.name}(acc, out, scale, x)" in source
    assert source.count("numba.prange") == 1 and "return (acc, )" in source


def test_a_parallel_loop_is_bracketed_by_the_thread_limit():
    em = _emitter()
    with em.loops([("i", 100)], work=100):
        em.store("out", ["i"], "x[i]")
    assert _lines(em) == [
        "numba_threads = rt.limit_threads()", "for i in numba.prange(100):",
        "out[i] = x[i]", "rt.restore_threads(numba_threads)"]


def test_a_loop_that_may_raise_stays_serial_and_unbracketed():
    # numba runs such a prange serially; lowering the thread count around it
    # would leave it lowered when the exception skips the restore
    em = _emitter()
    with em.loops([("i", 100)], work=100):
        with em.if_("x[i] > 1"):
            em.raise_("ValueError('too big')")
    lines = _lines(em)
    assert lines[0] == "for i in range(100):"
    assert not any("threads" in line for line in lines)


def test_a_loop_that_may_raise_keeps_its_per_thread_scratch():
    em = _emitter()
    with em.loops([("i", 100)], work=100):
        em.scratch("lanes = np.empty(8)")
        with em.if_("x[i] > 1"):
            em.raise_("ValueError('too big')")
    lines = _lines(em)
    assert "lanes = np.empty(8)" in lines and "for thread in range(threads):" in lines
    assert lines.index("for thread in range(threads):") < lines.index("lanes = np.empty(8)")
    assert not any("numba.prange" in line or "limit_threads" in line for line in lines)


def test_thread_blocks_are_bracketed_and_fall_back_to_serial_when_raising():
    em = _emitter()
    with em.thread_blocks("r", 64):
        em.store("out", ["r"], "0.0")
    lines = _lines(em)
    assert lines[0] == "numba_threads = rt.limit_threads()"
    assert lines[-1] == "rt.restore_threads(numba_threads)"
    em = _emitter()
    with em.thread_blocks("r", 64):
        em.raise_("ValueError('no')")
    lines = _lines(em)
    assert "for thread in range(threads):" in lines
    assert not any("limit_threads" in line for line in lines)


def _threads_in_subprocess(**env: str) -> list[str]:
    code = textwrap.dedent("""
        import threading, numpy as np, jitaic
        f = jitaic.jit(lambda x: np.tanh(x) * 2.0)
        f(np.ones(2**20))
        print(sorted(t.name for t in threading.enumerate()))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr[-2000:]
    return ast.literal_eval(done.stdout)


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="no /proc/stat to sample")
def test_the_sampler_starts_with_the_first_parallel_kernel_unless_switched_off():
    assert "jitaic-load-sampler" in _threads_in_subprocess()
    assert "jitaic-load-sampler" not in _threads_in_subprocess(JITAIC_FOLLOW_LOAD="0")
