"""jit(compile="background"): NumPy's results at once, compiled code once ready."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from helpers import assert_same

import jitaic
from jitaic import api, config
from jitaic.errors import CompileError


def _scale_into(x, out):
    out[:] = np.tanh(x) * 2.0
    return out.sum() + np.sin(x).mean()


@pytest.fixture
def held_compiler(monkeypatch):
    """Background compiles wait until the test releases them."""
    release = threading.Event()
    compile_now = api.Specialization.compile

    def held(spec, leaves):
        release.wait(60)
        compile_now(spec, leaves)

    monkeypatch.setattr(api.Specialization, "compile", held)
    yield release
    release.set()


def test_calls_run_the_function_itself_until_the_compile_is_done(held_compiler) -> None:
    f = jitaic.jit(_scale_into, compile="background")
    x = np.linspace(-1.0, 1.0, 50)
    got_out, want_out = np.zeros(50), np.zeros(50)
    for _ in range(3):  # mutation included: the user's own function ran
        assert_same(f(x, got_out), _scale_into(x, want_out))
        np.testing.assert_array_equal(got_out, want_out)
    (spec,) = f.specializations()
    assert spec.pending and spec.compiled is None
    assert f.cache_info().compiled + f.cache_info().loaded == 0
    held_compiler.set()
    lowered = f.lower(x, got_out)  # waits for the compile
    assert "def " in lowered.source() and not spec.pending
    got_out[:] = 0.0
    assert_same(f(x, got_out), _scale_into(x, want_out))
    assert_same(got_out, want_out)  # compiled tanh: within an ulp of NumPy's
    info = f.cache_info()  # the suite's disk cache may hold the kernel: loaded
    assert (info.misses, info.compiled + info.loaded, info.hits) == (1, 1, 3)


def test_a_gradient_runs_the_reference_interpreter_meanwhile(held_compiler) -> None:
    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)

    g = jitaic.jit(jitaic.grad(loss), compile="background")
    w, x = np.linspace(-1, 1, 3), np.linspace(0, 2, 12).reshape(4, 3)
    meanwhile = g(w, x)
    assert g.specializations()[0].compiled is None
    held_compiler.set()
    g.lower(w, x)
    np.testing.assert_allclose(meanwhile, g(w, x), rtol=1e-12)
    t = np.tanh(x @ w)
    np.testing.assert_allclose(meanwhile, x.T @ (2 * t * (1 - t * t)), rtol=1e-12)


def test_tracing_errors_surface_on_the_first_call() -> None:
    f = jitaic.jit(lambda x: np.packbits(x > 0), compile="background", callbacks=False)
    with pytest.raises(jitaic.UnsupportedError, match="np.packbits is not supported"):
        f(np.ones(4))


def test_a_failed_background_compile_raises_on_every_later_call(monkeypatch) -> None:
    first_call_done = threading.Event()

    def broken(spec, leaves):
        first_call_done.wait(timeout=60)  # fails after the first call, whatever the load
        raise CompileError("internal error: the generated code did not compile")

    monkeypatch.setattr(api.Specialization, "compile", broken)
    f = jitaic.jit(lambda x: x + 1.0, compile="background")
    x = np.ones(3)
    f(x)  # runs the function itself while the compile fails on the worker
    first_call_done.set()
    f.specializations()[0]._pending.exception(timeout=60)
    for _ in range(2):
        with pytest.raises(CompileError, match="did not compile"):
            f(x)


def test_the_knob_sets_the_default_and_bad_modes_are_refused(held_compiler) -> None:
    with config.override(compile="background"):
        f = jitaic.jit(lambda x: x * 3.0)
        assert_same(f(np.arange(3.0)), np.arange(3.0) * 3.0)
    assert f.specializations()[0].pending
    held_compiler.set()
    sync = jitaic.jit(lambda x: x * 3.0, compile="sync")
    with config.override(compile="background"):
        sync(np.arange(3.0))
    assert sync.specializations()[0].compiled is not None
    with pytest.raises(ValueError, match="compile must be one of"):
        jitaic.jit(lambda x: x, compile="lazy")


def _running_energy(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        d = x[i] - x[i - 1]
        total += d * d
    return total


def _heat_steps(u, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def test_loops_over_scalars_compile_before_the_first_call_returns(held_compiler) -> None:
    """Their Python version runs at interpreter speed: waiting is cheaper.
    Loops over arrays run at NumPy's speed and go on compiling meanwhile."""
    held_compiler.set()
    scalar = jitaic.jit(_running_energy, mode="ast", compile="background")
    x = np.linspace(0.0, 1.0, 200) ** 2
    assert_same(scalar(x), _running_energy(x))
    assert not scalar.specializations()[0].pending
    assert scalar.specializations()[0].compiled is not None
    assert not api._has_scalar_loop(jitaic.jit(_heat_steps, mode="ast").lower(
        x, np.int64(3)).ir)
