"""Gradients through compiled control flow: cond, for and while loops (AST frontend)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from control_programs import cholesky_in_place, levinson_durbin
from helpers import finite_difference

import jitaic

TIER = "reference"  # the numba tier: tests marked numba and a sample of the rest


def branchy(x, w):
    y = x * w
    if y.sum() > 0:
        z = np.sin(y) * w
    else:
        z = y ** 2 + x
    return z.sum()


def nested_branches(x):
    s = x.sum()
    if s > 1.0:
        if x[0] > 0:
            out = np.exp(x).sum()
        else:
            out = (x * x).sum()
    else:
        out = np.tanh(x).sum() * s
    return out


def recurrent(x, w):
    h = x * 0.0
    acc = 0.0
    for i in range(x.shape[0]):
        h = np.tanh(h * w + x[i])
        acc = acc + h.sum() * x[i]
    return acc


def loop_with_branch(x):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            total = total + x[i] ** 2
        else:
            total = total - np.sin(x[i])
    return total


def converge(x):
    y = x
    while np.abs(y).max() > 1.0:
        y = y * 0.5
    return y.sum()


def damped_orbit(x, w):
    """A data-dependent trip count (tens of iterations: the tape grows) reading w."""
    s = 0.0
    y = x
    while np.sum(y * y) < 100.0:
        y = y * w + 0.1
        s = s + np.sum(np.tanh(y))
    return s + np.sum(y)


def newton_sqrt(a):
    y = a + 1.0
    while np.max(np.abs(y * y - a)) > 1e-12:
        y = 0.5 * (y + a / y)
    return np.sum(y * np.cos(a))


def traced_trip_count(x, w):
    n = np.sum(x > 0)  # a for loop whose bound is a traced integer
    acc = 0.0
    for i in range(n):
        acc = acc + np.sin(x[i] * w[i]) * w[0]
    return acc


def while_in_for(x):
    total = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        while v < 5.0:
            v = v * 1.5 + 0.25
        total = total + v * x[i]
    return total


def for_in_while_in_branch(x):
    out = 0.0
    if x.sum() > 0:
        h = x
        while np.abs(h).sum() < 20.0:
            for _i in range(2):
                h = h * 1.2 + np.sin(h) * 0.1
        out = (h * x).sum()
    else:
        out = (x * x).sum()
    return out


_W = np.array([0.3, -0.7])


def window_of_either_length(a):
    # an if joins lengths 1 and 2 (f64[?]); the short one stretches against _W
    v = a[:1] if a.sum() > 5 else a[:2]
    return np.sum(_W * np.exp(v))


def doubled_each_step(x):
    y = x
    for _i in range(3):  # y's length changes each iteration
        y = np.concatenate([y, np.sin(y)])
    return np.sum(y * y)


CASES = [
    (window_of_either_length, lambda r: (np.full(3, 2.0),), (0,)),
    (window_of_either_length, lambda r: (r.normal(size=3) * 0.5,), (0,)),
    (branchy, lambda r: (r.normal(size=4) + 1.0, np.abs(r.normal(size=4))), (0, 1)),
    (branchy, lambda r: (-np.abs(r.normal(size=4)) - 1.0, np.abs(r.normal(size=4))), (0, 1)),
    (nested_branches, lambda r: (np.abs(r.normal(size=3)) + 1.0,), (0,)),
    (nested_branches, lambda r: (np.array([-0.5, 1.2, 0.9]),), (0,)),
    (nested_branches, lambda r: (r.normal(size=3) * 0.1 - 1.0,), (0,)),
    (recurrent, lambda r: (r.normal(size=5) * 0.5, r.normal(size=5) * 0.5), (0, 1)),
    (loop_with_branch, lambda r: (r.normal(size=6),), (0,)),
    (converge, lambda r: (np.array([3.0, -2.5, 0.5]),), (0,)),
    (damped_orbit, lambda r: (np.linspace(0.1, 0.5, 5), 1.05), (0, 1)),
    (newton_sqrt, lambda r: (np.abs(r.normal(size=4)) + 0.5,), (0,)),
    (traced_trip_count, lambda r: (np.array([0.3, -1.0, 0.7, 0.2]), r.normal(size=4)), (0, 1)),
    (while_in_for, lambda r: (np.abs(r.normal(size=3)) + 0.5,), (0,)),
    (for_in_while_in_branch, lambda r: (np.abs(r.normal(size=3)) + 0.1,), (0,)),
    (for_in_while_in_branch, lambda r: (-np.abs(r.normal(size=3)),), (0,)),
]


def test_gradient_of_a_loop_whose_variable_changes_length(rng) -> None:
    """Traced (auto: the loop unrolls) it has one; a compiled loop would need
    a tape of rows of changing length, so mode="ast" refuses, naming the loop."""
    x = rng.normal(size=2)
    np.testing.assert_allclose(jitaic.grad(doubled_each_step)(x),
                               finite_difference(doubled_each_step, [x], 0), rtol=1e-5)
    with pytest.raises(jitaic.UnsupportedError,
                       match=r"gradient of a loop carrying a variable.*test_autodiff_control_f"):
        jitaic.jit(jitaic.grad(doubled_each_step), mode="ast")(x)


@pytest.mark.parametrize("mode", ["auto", "ast"])
@pytest.mark.parametrize("fn, make, argnums", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_gradient_through_control_flow(fn, make, argnums, mode, rng) -> None:
    args = make(rng)
    grads = jitaic.jit(jitaic.grad(fn, argnums=argnums), mode=mode)(*args)
    for argnum, grad in zip(argnums, grads, strict=True):
        expected = finite_difference(fn, list(args), argnum)
        np.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-7)


def test_loop_gradient_is_a_compiled_loop_not_unrolled(rng) -> None:
    x, w = rng.normal(size=40) * 0.1, rng.normal(size=40) * 0.1
    f = jitaic.jit(jitaic.grad(recurrent, argnums=(0, 1)), mode="ast")
    f(x, w)
    ir = f.specializations()[0].ir
    assert ir.count("for_loop") >= 2  # the recording loop and the reverse loop
    assert ir.count("tanh") < 10  # one body, not 40 unrolled copies


def test_while_gradient_records_a_growable_tape(rng) -> None:
    x = np.linspace(0.1, 0.5, 5)
    f = jitaic.jit(jitaic.value_and_grad(damped_orbit, argnums=(0, 1)), mode="ast")
    value, (gx, gw) = f(x, 1.05)
    assert value == pytest.approx(damped_orbit(x, 1.05), rel=1e-12)
    ir = f.specializations()[0].ir
    assert "tape_new" in ir and "f64[?,5]" in ir  # one row of y per iteration
    assert ir.count("while_loop") >= 1 and ir.count("for_loop") >= 1
    # 40+ iterations: the tape (16 rows at first) has grown and kept its rows
    expected = finite_difference(damped_orbit, [x, 1.05], 0)
    np.testing.assert_allclose(gx, expected, rtol=1e-6)


SECOND_ORDER = [
    (damped_orbit, lambda r: (np.linspace(0.1, 0.5, 5), 1.05)),
    (traced_trip_count, lambda r: (np.array([0.3, -1.0, 0.7, 0.2]), r.normal(size=4))),
    (while_in_for, lambda r: (np.abs(r.normal(size=3)) + 0.5,)),
    (for_in_while_in_branch, lambda r: (np.abs(r.normal(size=3)) + 0.1,)),
]


@pytest.mark.parametrize("fn, make", SECOND_ORDER, ids=[c[0].__name__ for c in SECOND_ORDER])
def test_second_order_through_loops_with_run_time_trip_counts(fn, make, rng) -> None:
    """grad of a directional derivative (a Hessian-vector product) through
    while loops and traced-bound for loops: the inner gradient recomputes the
    loop states instead of reading tapes, and is differentiated like any loop;
    checked against finite differences of the first-order (taped) gradient."""
    args = make(rng)
    v = rng.normal(size=np.shape(args[0]))

    def directional(*a):
        return np.sum(jitaic.grad(fn)(*a) * v)

    hvp = jitaic.grad(directional)(*args)
    expected = finite_difference(directional, list(args), 0)
    np.testing.assert_allclose(hvp, expected, rtol=1e-5, atol=1e-7)


def test_second_derivative_of_a_scalar_while_loop_compiles_and_caches() -> None:
    def f(x):
        y = x
        while y < 10.0:
            y = y * y + 1.0
        return y

    second = jitaic.jit(jitaic.grad(jitaic.grad(f)))
    first = jitaic.grad(f)
    for x in (1.5, 2.5):  # 3 and 2 iterations
        expected = (first(x + 1e-6) - first(x - 1e-6)) / 2e-6
        assert second(x) == pytest.approx(expected, rel=1e-6)
    assert second.cache_info().misses == 1  # a Python float: one specialisation


def test_loop_gradient_runs_the_forward_once_and_reads_saved_results(rng) -> None:
    """The recording loop replaces the forward loop, and the backward body reads
    the saved next state (tanh's output) instead of recomputing tanh."""
    x, w = rng.normal(size=6) * 0.1, rng.normal(size=6) * 0.1
    f = jitaic.jit(jitaic.value_and_grad(recurrent, argnums=(0, 1)), mode="ast")
    value, _ = f(x, w)
    assert value == pytest.approx(recurrent(x, w), rel=1e-12)
    ir = f.specializations()[0].ir
    assert ir.count("for_loop") == 2  # recording forward + reverse, no second forward
    assert ir.count("tanh") == 1

    y0 = np.linspace(0.1, 0.5, 5)
    g = jitaic.jit(jitaic.value_and_grad(damped_orbit, argnums=(0, 1)), mode="ast")
    value, _ = g(y0, 1.05)
    assert value == pytest.approx(damped_orbit(y0, 1.05), rel=1e-12)
    ir = g.specializations()[0].ir
    assert ir.count("while_loop") == 1 and ir.count("for_loop") == 1


def window_energy(x):
    s = 0.0
    for j in range(x.shape[0] - 2):
        w = x[j:j + 3]
        s = s + np.sum(w * w) * x[j + 1]
    return s


def test_gradient_through_windows_with_a_traced_start(rng) -> None:
    x = rng.normal(size=7)
    f = jitaic.jit(jitaic.grad(window_energy), mode="ast")
    np.testing.assert_allclose(f(x), finite_difference(window_energy, [x], 0), rtol=1e-6)
    ir = f.specializations()[0].ir
    # loops, not 5 unrolled windows: the recording loop reads the windows to
    # save each one's sum, the reverse loop to backpropagate (its own reads
    # need no check: bounded)
    assert ir.count("for_loop") == 2 and ir.count("dyn_getitem") <= 7
    assert ir.count("dyn_getitem[bounded=True") >= 2


def test_tapes_kept_between_calls_give_the_same_gradients() -> None:
    """The compiled gradient keeps each tape's grown buffer for the next call:
    a longer loop, then a shorter one, then the longer one again."""
    f = jitaic.jit(jitaic.grad(damped_orbit), mode="ast")
    long_x, short_x = np.linspace(0.1, 0.5, 5), np.linspace(1.0, 2.0, 5)
    first = f(long_x, 1.05)
    np.testing.assert_allclose(f(short_x, 1.05), finite_difference(damped_orbit,
                                                                   [short_x, 1.05], 0),
                               rtol=1e-6)
    np.testing.assert_array_equal(f(long_x, 1.05), first)


# ---------------------------------------------------------------- undo logs
# Loops that change a carried array by stores only save what the stores
# overwrite (autodiff/control_flow.py, "undo logs"), not the array.


def column_sweep(d, c):
    """A Thomas-style forward sweep: one column stored per iteration."""
    out = np.zeros_like(d)
    out[:, 0] = d[:, 0]
    for j in range(1, d.shape[1]):
        out[:, j] = d[:, j] - c[:, j] * out[:, j - 1]
    return (out * out).sum()


def factorise(A):
    """Cholesky: element stores read back right away (A[i, j] /= A[j, j]
    after A[i, j] -= ...), an inner loop with traced bounds."""
    out = cholesky_in_place(A.copy())
    return (np.sin(out) * out).sum()


def wrapped_stores(x, w):
    """Stores and reads at negative indices, equal to positive ones at run time."""
    x = x.copy()
    for i in range(1, x.shape[0]):
        x[-i] = x[-i] * w[i] + x[x.shape[0] - i - 1]
        x[i - 1] = x[i - x.shape[0] - 1] * 0.5 + x[-i]
    return (x ** 2).sum()


def levinson(r):
    """np.flip of slices with run-time lengths, updated in place."""
    y = levinson_durbin(r)
    return (y * y).sum()


def short_rows(x, w):
    """Rows written by an inner loop that runs only while its row is in
    range: the outer loop logs row i before the inner loop, at indices past
    the end too (where nothing is stored, and nothing may raise)."""
    x = x.copy()
    n = x.shape[0]
    for i in range(n + 2):
        for j in range(n - i):
            x[i, j] = x[i, j] * w[j] + x[i - 1, j]
    return (x * x).sum()


def paired_sweeps(a, b):
    """One inner loop changing two carried arrays: two logged regions."""
    a = a.copy()
    b = b.copy()
    for i in range(1, a.shape[0]):
        for j in range(i):
            a[i, j] = a[i, j] + b[i - 1, j] * a[i - 1, j]
            b[i, j] = b[i, j] * a[i, j]
    return (a * b).sum()


def column_passes(x):
    """A static inner loop storing down column i: the logged region is
    the column x[:, i]."""
    x = x.copy()
    for i in range(1, x.shape[1]):
        for j in range(x.shape[0]):
            x[j, i] = np.tanh(x[j, i] + x[j, i - 1])
    return (x * x).sum()


def indirect_stores(x, w, idx):
    """Stores at an index read from an array (saved in the log) and at a
    carried counter (recomputed from the iteration's saved counter)."""
    x = x.copy()
    k = 0
    for i in range(w.shape[0]):
        x[idx[i]] = x[idx[i]] * w[i] + x[k]
        x[k] = np.sin(x[k]) + w[i]
        k = (k + 2) % x.shape[0]
    return (x * x).sum()


UNDO_CASES = [
    (column_sweep, lambda r: (r.normal(size=(3, 6)), r.normal(size=(3, 6)) * 0.3), (0, 1)),
    (factorise, lambda r: ((lambda m: m @ m.T + 5 * np.eye(5))(r.random((5, 5))),), (0,)),
    (wrapped_stores, lambda r: (r.normal(size=6), r.normal(size=6)), (0, 1)),
    (levinson, lambda r: (0.5 * r.random(7) / 7,), (0,)),
    (short_rows, lambda r: (r.normal(size=(4, 4)), r.normal(size=4) * 0.5), (0, 1)),
    (paired_sweeps, lambda r: (r.normal(size=(5, 5)) * 0.5, r.normal(size=(5, 5)) * 0.5),
     (0, 1)),
    (column_passes, lambda r: (r.normal(size=(4, 6)),), (0,)),
    (indirect_stores, lambda r: (r.normal(size=5), r.normal(size=7) * 0.5,
                                 np.array([3, 0, 4, 4, 1, 2, 0])), (0, 1)),
]


@pytest.mark.parametrize("fn, make, argnums", UNDO_CASES,
                         ids=[c[0].__name__ for c in UNDO_CASES])
def test_gradients_through_logged_stores(fn, make, argnums, rng) -> None:
    args = make(rng)
    grads = jitaic.jit(jitaic.grad(fn, argnums=argnums))(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for argnum, grad in zip(argnums, grads, strict=True):
        np.testing.assert_allclose(grad, finite_difference(fn, list(args), argnum),
                                   rtol=1e-5, atol=1e-7)


def relaxation(x, w):
    for _ in range(5):
        x = x + 0.1 * np.exp(-x * w)
    return (x * x).sum()


def test_a_loop_gradient_saves_exponentials_instead_of_recomputing_them(rng) -> None:
    """The recording loop stacks exp's result per iteration (5 x 4); the
    reverse loop reads it (exp's VJP needs nothing else): one exp in the
    gradient, not two."""
    x, w = rng.normal(size=4), rng.random(4)
    g = jitaic.jit(jitaic.grad(relaxation, argnums=(0, 1)))
    grads = g(x, w)
    for argnum, grad in enumerate(grads):
        np.testing.assert_allclose(grad, finite_difference(relaxation, [x, w], argnum),
                                   rtol=1e-6, atol=1e-8)
    ir = g.specializations()[0].ir
    assert ir.count("= exp ") == 1 and "f64[5,4]" in ir


def test_a_column_sweep_logs_columns_not_the_array(rng) -> None:
    d, c = rng.normal(size=(4, 50)), rng.normal(size=(4, 50)) * 0.3
    g = jitaic.jit(jitaic.grad(column_sweep, argnums=(0, 1)))
    g(d, c)
    spec = g.specializations()[0]
    assert spec.frontend == "ast"
    # one stack of the overwritten columns (49 x 4); no (50, 4, 50) stack of
    # the whole array, and none of the column index (the loop index: recomputed)
    assert "f64[49,4]" in spec.ir and "f64[50,4,50]" not in spec.ir
    assert "i64[49]" not in spec.ir


def test_cholesky_inner_loop_logs_one_element_not_the_matrix(rng) -> None:
    """The inner loop (traced bounds: tapes) pushes the element its first
    store overwrites, not the 8x8 matrix per iteration; the second store
    writes the same element (undoing the first restores it), and the
    indices (i from outside, the loop index j) are recomputed. It also
    pushes its dot product, which the reverse loop reads instead of
    computing it again."""
    m = rng.random((8, 8))
    g = jitaic.jit(jitaic.grad(factorise))
    g(m @ m.T + 8 * np.eye(8))
    ir = g.specializations()[0].ir
    tapes = re.findall(r"tape_new\[dtype=(\w+), shape=(\([^)]*\))", ir)
    assert tapes == [("float64", "()")] * 2


def test_cholesky_outer_loop_logs_the_row_its_inner_loop_writes(rng) -> None:
    """The outer loop counts the inner loop as one store into row i: it logs
    that row (7 iterations x 8), not the matrix per iteration (8 x 8 x 8)."""
    m = rng.random((8, 8))
    g = jitaic.jit(jitaic.grad(factorise))
    g(m @ m.T + 8 * np.eye(8))
    ir = g.specializations()[0].ir
    assert "f64[7,8]" in ir
    assert "f64[8,8,8]" not in ir
    # A[i, i] once (its two stores write one element), and no index
    assert "f64[7]" in ir and "i64[7]" not in ir


def test_cholesky_replay_compares_only_the_index_that_differs(rng) -> None:
    """The reverse replay reads A[i, j] back from the store that wrote it
    (``A[i, j] /= A[j, j]`` after ``A[i, j] -= ...``) and asks whether the
    read of A[j, j] is that element: only j against i, row i being one value
    on both sides. No mask combined with a known True and no select by a
    constant condition is left (numba compiles a gradient statement by
    statement)."""
    m = rng.random((8, 8))
    a = m @ m.T + 8 * np.eye(8)
    g = jitaic.jit(jitaic.grad(factorise))
    np.testing.assert_allclose(g(a), finite_difference(factorise, [a], 0),
                               rtol=1e-5, atol=1e-7)
    ir = g.specializations()[0].ir
    assert "bitwise_and" not in ir
    constants = set(re.findall(r"(%\d+): bool\[\] = constant", ir))
    assert not any(re.search(rf"= where {c}, ", ir) for c in constants)


def test_a_nested_loop_that_does_not_run_reads_no_row_past_the_end(rng) -> None:
    x, w = rng.normal(size=(4, 4)), rng.normal(size=4)
    value, grads = jitaic.jit(jitaic.value_and_grad(short_rows, argnums=(0, 1)))(x, w)
    assert value == pytest.approx(short_rows(x, w), rel=1e-12)
    np.testing.assert_allclose(grads[0], finite_difference(short_rows, [x, w], 0),
                               rtol=1e-5, atol=1e-7)


def test_a_row_read_adds_into_the_row_of_the_whole_cotangent() -> None:
    """y's cotangent has a whole part (y * y) and one element (y[2, 3], met
    first going backwards): the element is added into the whole one, with
    no zero array of y's shape."""
    def f(x):
        y = np.sin(x)
        return (y * y).sum() + y[2, 3]

    x = np.linspace(0.1, 2.0, 20).reshape(4, 5)
    g = jitaic.jit(jitaic.grad(f))
    expected = np.sin(2 * x) + np.where(np.arange(20).reshape(4, 5) == 13, np.cos(x), 0)
    np.testing.assert_allclose(g(x), expected, rtol=1e-13)
    ir = g.specializations()[0].ir
    assert "fill=0.0, shape=(4, 5)" not in ir and ir.count("setitem") == 1
