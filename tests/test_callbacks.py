"""NumPy functions jitaic has no lowering for, computed by NumPy and called
back from the compiled code: values against NumPy, the fusion report and the
log, loops, what is refused (data-dependent shapes, writes, views,
gradients) and ``callbacks=False``; np.random's global stream drawn from
when the code runs.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
from helpers import assert_same
from numpy.random import rand

import jitaic
from jitaic.ir.ops.callbacks import resolve
from jitaic.tracer.numpy.callbacks import _literal


def uncompiled(x, m):
    bits = np.packbits(x > 0)
    counts, _ = np.histogram(x * 2, bins="sturges")  # a tuple, one part unread
    return (bits * 2, np.unpackbits(bits), np.pad(m, 1, mode="mean"), counts,
            np.pad(m, 1, mode="median").sum(axis=0),
            np.median(np.histogram(x, bins=[-1.0, 0.0, 2.0])[0]))


def test_numpy_computes_what_jitaic_does_not_lower(rng, caplog) -> None:
    """packbits, unpackbits, np.pad's statistic modes (its handler lowers the
    others), np.histogram of a rule's bins or given edges: NumPy's own
    values, each call site logged once."""
    x, m = rng.normal(size=8), rng.normal(size=(3, 4))
    f = jitaic.jit(uncompiled)
    with caplog.at_level(logging.INFO, logger="jitaic"):
        assert_same(f(x, m), uncompiled(x, m))
        assert_same(f(x + 1, m), uncompiled(x + 1, m))
    called_back = [r.getMessage() for r in caplog.records if "called back" in r.getMessage()]
    assert len(called_back) == 6 and called_back[0].startswith(
        "np.packbits has no native lowering: NumPy computes it, called back from the compiled "
        "code at test_callbacks.py:")
    report = f.lower(x, m).fusion_report()
    assert "numpy_call (not fused: NumPy called back: numpy.packbits)  # test_callbacks.py" \
        in report


def transform_rows(x):
    total = np.zeros(x.shape[1] + 2)
    for i in range(x.shape[0]):
        total += np.abs(np.pad(x[i] * (i + 1), 1, mode="median"))
    return total


def test_a_callback_in_a_loop_body(rng) -> None:
    x = rng.normal(size=(4, 8))
    assert_same(jitaic.jit(transform_rows, mode="ast")(x), transform_rows(x))


def test_a_shape_the_data_decides_is_refused_when_tracing_or_when_it_runs() -> None:
    """Stand-in values of the arguments' shapes tell most such functions
    apart; one they do not raises when its shape turns out different."""
    with pytest.raises(jitaic.UnsupportedError,
                       match="np.histogram_bin_edges through the NumPy callback: the shape of "
                             "its result depends"):
        jitaic.jit(lambda x: np.histogram_bin_edges(x, bins="doane"))(np.arange(6.0))
    edges = jitaic.jit(lambda x: np.histogram_bin_edges(x, bins="fd"))
    assert_same(edges(np.arange(6.0)), np.histogram_bin_edges(np.arange(6.0), bins="fd"))
    with pytest.raises(ValueError, match=r"np.histogram_bin_edges returned an array of shape "
                                         r"\(2,\) where tracing it gave \(3,\).* at "
                                         r"test_callbacks.py:\d+"):
        edges(np.array([0.0, 0.0, 0.0, 0.0, 0.0, 30.0]))


def putmask(a):
    np.putmask(a, a > 0, 0.0)
    return a


@pytest.mark.parametrize("fn, why", [
    (putmask, "it writes into its arguments"),
    (lambda x: np.lib.stride_tricks.sliding_window_view(x, (2, 2)), "it returns a view"),
    (lambda x: np.apply_over_axes(np.sum, x, [0]), "the argument <function sum"),
])
def test_what_the_callback_refuses(fn, why: str) -> None:
    with pytest.raises(jitaic.UnsupportedError, match=why):
        jitaic.jit(fn)(np.ones((3, 3)))


def test_gradients_through_a_callback_are_refused_naming_it() -> None:
    with pytest.raises(jitaic.UnsupportedError,
                       match=r"the gradient of np.pad, which NumPy computes .* at "
                             r"test_callbacks.py:\d+"):
        jitaic.grad(lambda x: np.pad(x, 1, mode="mean").sum())(np.arange(3.0))


def test_callbacks_false_is_strict() -> None:
    with pytest.raises(jitaic.UnsupportedError, match=r"np.packbits is not supported by jitaic"):
        jitaic.jit(np.packbits, callbacks=False)(np.ones(4) > 0)
    with pytest.raises(jitaic.UnsupportedError, match=r"np.pad\(mode='mean'\) is not supported"):
        jitaic.jit(lambda x: np.pad(x, 1, mode="mean"), callbacks=False)(np.ones(4))


def test_only_classes_of_numbers_stand_for_dtypes() -> None:
    """np.float32 and float are dtypes by name; dict would be NumPy's object
    dtype, a different meaning: refused."""
    assert (_literal(np.float32, "np.f"), _literal(float, "np.f")) == ("float32", "float64")
    with pytest.raises(jitaic.UnsupportedError, match="np.f with the argument <class 'dict'>"):
        _literal(dict, "np.f")


def test_only_numpy_functions_resolve() -> None:
    """A graph names its callback by a dotted path: nothing but NumPy may run."""
    assert resolve("numpy.fft.fft") is np.fft.fft
    with pytest.raises(ValueError, match="os.system is not a NumPy function"):
        resolve("os.system")


_TOUCH = '__import__("os").system("touch {}")'


def test_keyword_names_never_become_code(tmp_path) -> None:
    """np.pad takes any keyword (it checks them per mode): one that is no
    Python name is refused, not written into the call."""
    marker = tmp_path / "ran"
    evil = f'a=1))\n{_TOUCH.format(marker)}\ndef g():\n    x = (dict(b'
    with pytest.raises(jitaic.UnsupportedError,
                       match=r"np.pad with the keyword argument 'a=1\)\).*not a "
                             r"Python name.* at test_callbacks.py:\d+"):
        jitaic.jit(lambda x: np.pad(x, 1, mode="mean", **{evil: 1}))(np.ones(3))
    assert not marker.exists()


def test_literals_are_written_as_builtin_values(tmp_path) -> None:
    """A str, int or float subclass's own __repr__ never writes the call."""
    marker = tmp_path / "ran"

    class Text(str):
        def __repr__(self):
            return _TOUCH.format(marker)

    class Number(int):
        __repr__ = Text.__repr__

    assert type(_literal(Text("x"), "np.f")) is str
    assert type(_literal(Number(2), "np.f")) is int
    f = jitaic.jit(lambda x: np.pad(x, 1, mode=Text("mean"), stat_length=Number(1)))
    assert_same(f(np.array([-1.0, 2.0])), np.array([-1.0, -1.0, 2.0, 2.0]))
    assert not marker.exists()


def test_numpys_error_for_the_arguments_names_the_line() -> None:
    with pytest.raises(ValueError, match=r"'order' must be either 'little' or 'big' at "
                                         r"test_callbacks.py"):
        jitaic.jit(lambda x: np.packbits(x > 0, bitorder="middle"))(np.ones(4))


def draws(x):
    np.random.rand(3)  # unread: it draws all the same
    noise = np.random.normal(0.0, 1.0, size=x.shape)
    total = 0.0
    for _ in range(3):
        total += np.random.uniform()
    return x + noise + rand(2).sum() + total


def reseeds(x):
    np.random.seed(5)
    return x * np.random.randn(*x.shape)


@pytest.mark.parametrize("fn", [draws, reseeds])
def test_np_random_draws_from_numpys_stream_when_it_runs(fn) -> None:
    """The numbers the Python function draws for the same seed, call after
    call (never frozen into the code; tracing draws nothing)."""
    x = np.arange(4.0)
    f = jitaic.jit(fn)
    np.random.seed(0)
    want = [fn(x), fn(x)]
    np.random.seed(0)
    assert_same([f(x), f(x)], want)


@pytest.mark.parametrize("fn, why", [
    (lambda x: np.random.RandomState(0).normal(size=4) + x,
     "np.random.RandomState is not supported .* pass random numbers"),
    (lambda x: np.random.shuffle(x), "it writes into its arguments"),
])
def test_random_states_and_shuffles_are_refused(fn, why: str) -> None:
    with pytest.raises(jitaic.UnsupportedError, match=why):
        jitaic.jit(fn)(np.arange(4.0))


def test_noise_from_the_global_stream_passes_no_gradient_of_its_own() -> None:
    np.random.seed(3)
    got = jitaic.grad(lambda w: (w * np.random.normal(size=3)).sum())(np.ones(3))
    np.random.seed(3)
    np.testing.assert_array_equal(got, np.random.normal(size=3))
