"""Jitted and transformed functions pickle, deepcopy and run in other processes
(jitaic/serialize.py): by reference when their module names them, by value
(cloudpickle) otherwise; options and static arguments travel along."""

from __future__ import annotations

import copy
import importlib.util
import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
import shipped
from helpers import assert_same

import jitaic


def _power_sum(x, p):
    return (x ** p).sum()


def test_a_decorated_module_function_pickles_by_reference() -> None:
    assert pickle.loads(pickle.dumps(shipped.scaled_norm)) is shipped.scaled_norm
    assert copy.deepcopy(shipped.scaled_norm) is shipped.scaled_norm
    # jit(grad(energy)) bears energy's name, which leads to energy: by value
    copied = copy.deepcopy(shipped.energy_grad)
    assert copied is not shipped.energy_grad
    x = np.linspace(-1.0, 1.0, 5)
    assert_same(copied(x), shipped.energy_grad(x))


def test_lambdas_and_closures_travel_by_value_with_their_options() -> None:
    offset = 3.0
    f = jitaic.jit(lambda x, p: (x + offset) ** p, static_argnums=1, mode="trace",
                   parallel=False, compile="sync")
    g = pickle.loads(pickle.dumps(f))
    assert g is not f and g._static_names == {"p"} and g._mode == "trace"
    assert not g._parallel and g._compile_mode == "sync"
    x = np.arange(4.0)
    assert_same(g(x, 2), (x + offset) ** 2)
    assert_same(copy.deepcopy(f)(x, 3), (x + offset) ** 3)


def test_gradients_pickle_with_their_argnums_and_aux() -> None:
    x, p = np.linspace(0.5, 2.0, 5), np.float64(3.0)
    cases = [
        (jitaic.grad(_power_sum, argnums=(0, 1)), (x, p)),
        (jitaic.jit(jitaic.value_and_grad(lambda x: (x ** 3).sum())), (x,)),
        (jitaic.jit(jitaic.grad(lambda x: ((x * x).sum(), x.max()), has_aux=True)), (x,)),
    ]
    for transformed, args in cases:
        assert_same(pickle.loads(pickle.dumps(transformed))(*args), transformed(*args))


def test_a_vjp_pullback_pickles() -> None:
    x = np.linspace(0.5, 2.0, 5)
    _, pullback = jitaic.vjp(lambda x: np.tanh(x) * 2.0, x)
    cotangent = np.arange(5.0)
    (expected,) = pullback(cotangent)
    (got,) = pickle.loads(pickle.dumps(pullback))(cotangent)
    assert_same(got, expected)
    np.testing.assert_allclose(expected, cotangent * 2.0 * (1 - np.tanh(x) ** 2), rtol=1e-13)


def _apply(fn, x):
    return fn(x)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_jitted_functions_run_in_a_process_pool(method) -> None:
    """A pool of fresh interpreters: by reference, by value, and a gradient."""
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    x = np.linspace(-1.0, 1.0, 7)
    offset = 0.5
    by_value = jitaic.jit(lambda v: np.exp(v) + offset)
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        norm = pool.submit(shipped.scaled_norm, x, 2.0).result(timeout=300)
        shifted = pool.submit(_apply, by_value, x).result(timeout=300)
        gradient = pool.submit(_apply, shipped.energy_grad, x).result(timeout=300)
    assert_same(norm, shipped.scaled_norm(x, 2.0))
    assert_same(shifted, np.exp(x) + offset)
    t = np.tanh(x)
    np.testing.assert_allclose(gradient, 2 * t * (1 - t * t), rtol=1e-12)


_FORK_AFTER_PARALLEL = textwrap.dedent("""
    import multiprocessing, sys
    sys.path.insert(0, sys.argv[1])
    import shipped
    parent = [shipped.damped_sum(seed) for seed in range(4)]  # parallel kernels ran
    with multiprocessing.get_context("fork").Pool(2) as pool:
        children = pool.map(shipped.damped_sum, range(4))
    assert children == parent, (children, parent)
    print("ok")
""")


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="no fork start method here")
@pytest.mark.parametrize("layer", ["default", "omp"])
def test_a_process_that_ran_parallel_kernels_forks_working_children(layer) -> None:
    """Fork (Python 3.11's default on Linux) after parallel loops ran: the
    workers run the jitted functions too. The tbb dependency is numba's
    fork-safe threading layer; GNU OpenMP kills a forked child that starts a
    parallel region, so there the child compiles serial code instead."""
    env = dict(os.environ)
    if layer != "default":
        if importlib.util.find_spec(f"numba.np.ufunc.{layer}pool") is None:
            pytest.skip(f"numba has no {layer} threading layer here")
        env["NUMBA_THREADING_LAYER"] = layer
    done = subprocess.run([sys.executable, "-c", _FORK_AFTER_PARALLEL,
                           os.path.dirname(os.path.abspath(__file__))],
                          capture_output=True, text=True, timeout=120, env=env)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr[-2000:]


def test_unpickling_the_same_function_again_reuses_its_specialisations() -> None:
    """dask ships a function with every task: each copy after the first is the
    object the first built, so its compiled code is not loaded again."""
    scale = 3.0
    f = jitaic.jit(lambda x: x * scale)
    payload = pickle.dumps(f)
    first, again = pickle.loads(payload), pickle.loads(payload)
    assert first is again and first is not f
    np.testing.assert_array_equal(first(np.ones(3)), np.full(3, 3.0))
    assert again.cache_info().misses == 1
    other = pickle.loads(pickle.dumps(jitaic.jit(lambda x: x * scale, mode="ast")))
    assert other is not first
