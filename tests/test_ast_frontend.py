"""The AST frontend: Python control flow on traced values, compiled natively.

* Every program of ``control_programs.py``, in modes "auto" and "ast", against
  the plain function run on copies: return values and mutated arguments.
* Which frontend auto mode picked, and the structured ops in the IR (loops
  appear once: they are not unrolled).
* Constructs the frontend rejects: the right exception, the construct named,
  and the ``test_ast_frontend.py:LINE`` of the offending line (each such line
  carries a ``# <- error`` marker that ``lines_of`` finds).

Jitted functions are shared between tests (``jitted``), so each program
compiles once per specialisation for the whole module.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import sys
import textwrap

import numpy as np
import pytest
from control_programs import CONTROL_OPS, PROGRAMS, Program
from helpers import assert_same, copy_tree, seed_of

import jitaic
from jitaic import config
from jitaic.api import AUTO_UNROLL_NODES
from jitaic.errors import JitaicError

# The reference interpreter runs these tests, numba a fixed sample of them and
# those marked numba (conftest.py: the test pyramid).
TIER = "reference"

FILE = os.path.basename(__file__)
MARK = "# <- error"
MODES = ("auto", "ast")
PROGRAM_IDS = [p.name for p in PROGRAMS]


def program_params() -> list:
    return [pytest.param(p, m, id=f"{p.name}-{m}") for p in PROGRAMS for m in MODES]


# ---------------------------------------------------------------- helpers

_JITTED: dict[tuple[str, str], jitaic.JitFunction] = {}


def jitted(prog: Program, mode: str) -> jitaic.JitFunction:
    """One JitFunction per (program, mode) for the whole module."""
    key = (prog.name, mode)
    if key not in _JITTED:
        _JITTED[key] = jitaic.jit(prog.fn, mode=mode)
    return _JITTED[key]


def datasets(prog: Program) -> list[tuple]:
    return [make(np.random.default_rng(seed_of(prog.name, k)))
            for k, make in enumerate(prog.datasets)]


def spec_key(args: tuple) -> tuple:
    """What selects a specialisation: array shapes/dtypes and Python int values
    (lists and tuples of them by their items)."""
    return tuple((a.shape, a.dtype.str) if isinstance(a, np.ndarray)
                 else ("float",) if isinstance(a, float)
                 else (type(a).__name__, spec_key(a)) if isinstance(a, (list, tuple))
                 else ("static", a) for a in args)


def compiled(prog: Program, mode: str) -> jitaic.JitFunction:
    """The program's JitFunction with every data set's specialisation compiled."""
    f = jitted(prog, mode)
    for args in datasets(prog):
        f.lower(*args)
    return f


def tolerances(dtype: np.dtype) -> tuple[float, float]:
    if dtype == np.float32:
        return 1e-5, 1e-6
    if dtype.kind == "f":
        return 1e-9, 1e-12
    return 0.0, 0.0


def check_same(got: object, want: object, path: str) -> None:
    """Same structure, values and (for NumPy arrays and scalars) dtypes."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, type(want)), f"{path}: {type(got).__name__} != {type(want)}"
        assert len(got) == len(want), f"{path}: length {len(got)} != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            check_same(g, w, f"{path}[{i}]")
        return
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), f"{path}: {got!r}"
        for key in want:
            check_same(got[key], want[key], f"{path}[{key!r}]")
        return
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{path}: NumPy gives an array, jit a {type(got)}"
        assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} != NumPy's {want.dtype}"
        assert got.shape == want.shape, f"{path}: shape {got.shape} != NumPy's {want.shape}"
    else:
        assert isinstance(got, (np.generic, int, float)) and not isinstance(got, np.ndarray), (
            f"{path}: NumPy gives a scalar {want!r}, jit {got!r}")
        if isinstance(want, np.generic):
            assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} != NumPy's {want.dtype}"
    rtol, atol = tolerances(np.asarray(want).dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=path)


def control_ops(ir: str) -> dict[str, int]:
    """How many times each structured control-flow op appears in IR text."""
    return {op: len(re.findall(rf"= {op}\b", ir)) for op in CONTROL_OPS}


def n_loops(*fns) -> int:
    """``while`` and ``for`` statements in the functions' source."""
    count = 0
    for fn in fns:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        count += sum(isinstance(n, (ast.While, ast.For)) for n in ast.walk(tree))
    return count


def lines_of(fn, mark: str = MARK) -> list[int]:
    """The lines of ``fn`` carrying the marker."""
    lines, start = inspect.getsourcelines(fn)
    return [start + i for i, text in enumerate(lines) if mark in text]


def assert_names_line(exc: BaseException, fn, *needles: str) -> str:
    """The message names a marked line of ``fn`` (any of them, where a
    statement and the assignment inside it are both fair answers) and each
    needle."""
    msg = str(exc)
    wanted = [f"{FILE}:{n}" for n in lines_of(fn)]
    assert wanted and any(w in msg for w in wanted), f"none of {wanted} in {msg!r}"
    for needle in needles:
        assert needle in msg, f"{needle!r} not in {msg!r}"
    return msg


# ---------------------------------------------------------------- the corpus


def test_corpus() -> None:
    assert len(PROGRAMS) >= 20
    assert len({p.name for p in PROGRAMS}) == len(PROGRAMS)
    assert {p.data_dependent for p in PROGRAMS} == {True, False}
    for op in CONTROL_OPS:
        assert any(op in p.ir_ops for p in PROGRAMS), op
    for p in PROGRAMS:  # at least two specialisations each
        assert len({spec_key(args) for args in datasets(p)}) >= 2, p.name


@pytest.mark.parametrize("prog", PROGRAMS, ids=PROGRAM_IDS)
def test_datasets_cover_every_line(prog: Program) -> None:
    """Together the data sets run every line of the program (every branch taken)."""
    codes = {prog.fn.__code__, *(h.__code__ for h in prog.helpers)}
    hit: set[tuple[object, int]] = set()

    def tracer(frame, event, arg):
        if frame.f_code in codes:
            if event == "line":
                hit.add((frame.f_code, frame.f_lineno))
            return tracer
        return None

    for args in datasets(prog):
        sys.settrace(tracer)
        try:
            with np.errstate(all="ignore"):
                prog.fn(*copy_tree(args))
        finally:
            sys.settrace(None)
    for code in codes:
        lines = {line for _, _, line in code.co_lines() if line is not None}
        missed = sorted(lines - {code.co_firstlineno} - {ln for c, ln in hit if c is code})
        assert not missed, f"{code.co_name}: lines {missed} never run by the data sets"


@pytest.mark.parametrize("prog, mode", program_params())
def test_program_matches_numpy(prog: Program, mode: str) -> None:
    f = jitted(prog, mode)
    all_args = datasets(prog)
    for k, args in enumerate(all_args):
        mine, theirs = copy_tree(args), copy_tree(args)
        with np.errstate(all="ignore"):
            want = prog.fn(*theirs)
        got = f(*mine)
        check_same(got, want, f"data set {k}: result")
        check_same(mine, theirs, f"data set {k}: arguments after the call")
    n_specs = len({spec_key(args) for args in all_args})
    assert f.cache_info().misses == n_specs
    # A second call of the first data set is a cache hit with the same answer.
    mine, theirs = copy_tree(all_args[0]), copy_tree(all_args[0])
    with np.errstate(all="ignore"):
        want = prog.fn(*theirs)
    check_same(f(*mine), want, "repeat call: result")
    check_same(mine, theirs, "repeat call: arguments")
    assert f.cache_info().misses == n_specs


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("prog", PROGRAMS, ids=PROGRAM_IDS)
def test_frontend_choice(prog: Program, mode: str) -> None:
    """Auto mode falls back to the AST frontend exactly when control flow needs
    a traced value or a plain trace would unroll a loop past AUTO_UNROLL_NODES;
    mode="ast" always uses it."""
    f = compiled(prog, mode)
    expected = []
    for args in {spec_key(a): a for a in datasets(prog)}.values():  # first-seen order
        if mode == "ast" or prog.data_dependent:
            expected.append("ast")
        else:
            big = trace_size(prog.fn, args) > AUTO_UNROLL_NODES
            expected.append("ast" if big else "trace")
    assert [s.frontend for s in f.specializations()] == expected


def trace_size(fn, args) -> int:
    """Nodes a plain trace records (Python loops unrolled), no compile."""
    f = jitaic.jit(fn, mode="trace")
    traced, _, _ = f._trace(*f._bind(args, {}))
    return sum(1 for _ in traced.graph.walk())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("prog", PROGRAMS, ids=PROGRAM_IDS)
def test_ir_structure(prog: Program, mode: str) -> None:
    """The AST frontend's IR holds cond/while_loop/for_loop, every loop exactly
    once (not unrolled); the tracer's IR holds none (static control flow)."""
    f = compiled(prog, mode)
    loops = n_loops(prog.fn, *prog.helpers)
    for spec in f.specializations():
        counts = control_ops(spec.ir)
        if spec.frontend == "trace":
            assert counts == dict.fromkeys(CONTROL_OPS, 0), spec.ir
            continue
        for op in CONTROL_OPS:
            assert (counts[op] > 0) == (op in prog.ir_ops), f"{op}: {counts}\n{spec.ir}"
        assert counts["for_loop"] + counts["while_loop"] == loops - prog.python_loops, spec.ir


@pytest.mark.numba  # reads the generated source
def test_hundred_iteration_loop_is_one_for_loop() -> None:
    prog = next(p for p in PROGRAMS if p.name == "row_accumulate")
    x = np.random.default_rng(0).normal(size=(100, 3))
    lowered = jitted(prog, "ast").lower(x)
    ir = lowered.as_text()
    assert control_ops(ir) == {"cond": 0, "while_loop": 0, "for_loop": 1}, ir
    assert len(ir.splitlines()) < 30, ir  # no trace of 100 unrolled iterations
    assert "index=(99,)" not in ir
    assert "for " in lowered.source() and "range(" in lowered.source()
    # The carried accumulator started as the Python int 0 and became a float.
    assert re.search(r"f64\[\] = for_loop", ir), ir
    # Auto mode traces short static loops (no traced value needed) but keeps a
    # long one a loop: a trace past AUTO_UNROLL_NODES is redone with the AST frontend.
    short = jitted(prog, "auto").lower(x[:5])
    assert "for_loop" not in short.as_text() and short.frontend == "trace"
    auto = jitted(prog, "auto").lower(x)
    assert control_ops(auto.as_text())["for_loop"] == 1 and auto.frontend == "ast"


def test_rewritten_source() -> None:
    prog = next(p for p in PROGRAMS if p.name == "mixed_while")
    args = datasets(prog)[0]
    src = jitted(prog, "ast").lower(*args).rewritten_source()
    assert "__jitaic_rt.while_stmt" in src, src
    assert "while " not in src, src
    compile(src, "<rewritten>", "exec")  # it is valid Python
    assert jitted(prog, "auto").lower(*args).rewritten_source() == src
    prog = next(p for p in PROGRAMS if p.name == "power_iteration")
    src = jitted(prog, "ast").lower(*datasets(prog)[0]).rewritten_source()
    assert "__jitaic_rt.while_stmt" in src and "__jitaic_rt.and_" in src, src
    # A trace-frontend specialisation has no rewritten source.
    static = next(p for p in PROGRAMS if p.name == "cumsum_inplace")
    assert jitted(static, "auto").lower(*datasets(static)[0]).rewritten_source() == ""

    prog = next(p for p in PROGRAMS if p.name == "if_in_for")
    src = jitted(prog, "ast").lower(*datasets(prog)[0]).rewritten_source()
    assert "__jitaic_rt.for_range" in src and "__jitaic_rt.if_stmt" in src, src
    prog = next(p for p in PROGRAMS if p.name == "conditional_expression")
    src = jitted(prog, "ast").lower(*datasets(prog)[0]).rewritten_source()
    assert "__jitaic_rt.ifexp" in src, src


# ---------------------------------------------------------------- static control flow


def short_prefix_sums(x):
    out = np.zeros(x.shape[0])
    for i in range(1, x.shape[0]):
        out[i] = x[:i].sum()  # a slice bound from the loop index
    return out


def test_loop_with_index_dependent_slice_stays_a_loop() -> None:
    """x[:i] inside a loop has a run-time length: the loop is not unrolled."""
    x = np.random.default_rng(1).normal(size=10)
    f = jitaic.jit(short_prefix_sums, mode="ast")
    np.testing.assert_allclose(f(x), short_prefix_sums(x), rtol=1e-12)
    assert control_ops(f.lower(x).as_text())["for_loop"] == 1


def static_python_loop(x, n):
    # Python ints only: mode="ast" runs these as plain Python while tracing.
    k, total = 0, 0
    while k < n:
        total += k
        k += 1
    y = x + total
    if not (n > 2 and total > 1):
        y = -y
    return y if n > 2 else -y


def test_static_while_if_and_ifexp_in_ast_mode() -> None:
    f = jitaic.jit(static_python_loop, mode="ast")
    x = np.arange(3.0)
    np.testing.assert_allclose(f(x, 4), static_python_loop(x, 4))
    ir = f.lower(x, 4).as_text()
    assert control_ops(ir) == dict.fromkeys(CONTROL_OPS, 0), ir


def static_test_traced_state(x, n):
    k = 0
    while k < n:  # a static test, but x is traced: one while_loop, not unrolled
        x = x * 2 + k
        k += 1
    return x


def test_while_with_static_test_and_traced_state() -> None:
    f = jitaic.jit(static_test_traced_state, mode="ast")
    x = np.arange(3.0)
    np.testing.assert_allclose(f(x, 40), static_test_traced_state(x, 40), rtol=1e-12)
    assert control_ops(f.lower(x, 40).as_text())["while_loop"] == 1


def auto_with_try_but_static(x):
    try:
        y = x * 2
    except ValueError:
        y = x
    return y


def test_auto_mode_traces_constructs_the_ast_frontend_rejects() -> None:
    # Without control flow on traced values auto mode never needs the rewrite.
    f = jitaic.jit(auto_with_try_but_static)
    x = np.arange(3.0)
    np.testing.assert_allclose(f(x), x * 2)
    assert f.specializations()[0].frontend == "trace"


# ---------------------------------------------------------------- mode="trace"


def branch_on_sum(x):
    if x.sum() > 0:  # <- error
        return x
    return -x


def test_trace_mode_refuses_control_flow_on_traced_values() -> None:
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(branch_on_sum, mode="trace")(np.ones(3))
    assert_names_line(info.value, branch_on_sum, 'mode="ast"')


def test_invalid_mode() -> None:
    with pytest.raises(ValueError, match="mode"):
        jitaic.jit(branch_on_sum, mode="python")


# ---------------------------------------------------------------- rejected constructs


def uses_try(x):
    try:  # <- error
        y = x * 2
    except ValueError:
        y = x
    if y.sum() > 0:
        y = -y
    return y


def uses_with(x):
    with np.errstate(all="ignore"):  # <- error
        y = np.log(x)
    return y


def uses_yield(x):
    yield x * 2  # <- error


def uses_yield_from(x):
    yield from (x, x)  # <- error


COUNTER = 0


def uses_global(x):
    global COUNTER  # <- error
    return x + COUNTER


def make_nonlocal():
    total = 0

    def uses_nonlocal(x):
        nonlocal total  # <- error
        return x + total

    return uses_nonlocal


uses_nonlocal = make_nonlocal()


def uses_class(x):
    class Box:  # <- error
        pass

    return x


def uses_async_def(x):
    async def helper():  # <- error
        return 1

    return x


def halves_until_small(x):
    if x.sum() < 1.0:
        return x
    return halves_until_small(x / 2)  # <- error


def prints_traced(x):
    if x.sum() > 0:
        print("x is", x)  # <- error
    return x


REJECTED = [
    (uses_try, "try/except"), (uses_with, "with"),
    (uses_yield, "yield"), (uses_yield_from, "yield from"), (uses_global, "global"),
    (uses_nonlocal, "nonlocal"), (uses_class, "class definition"), (uses_async_def, "async def"),
    (prints_traced, "printing or formatting a traced array"),
    (halves_until_small, "recursion"),
]


def doubled_n_times(x, n):
    if n == 0:  # a Python int: the recursion ends while tracing
        return x
    return doubled_n_times(x * 2, n - 1)


@pytest.mark.parametrize("mode", MODES)
def test_recursion_with_a_static_base_case(mode: str) -> None:
    x = np.arange(3.0)
    np.testing.assert_array_equal(jitaic.jit(doubled_n_times, mode=mode)(x, 3), x * 8)


@pytest.mark.parametrize("fn, construct", REJECTED, ids=[f.__name__ for f, _ in REJECTED])
def test_rejected_construct(fn, construct: str) -> None:
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(fn, mode="ast")(np.arange(1.0, 7.0))
    assert_names_line(info.value, fn, construct, "not supported")


def test_rejected_construct_after_auto_fallback() -> None:
    # Auto mode meets `if y.sum() > 0` and falls back; the rewrite rejects the try.
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(uses_try)(np.arange(1.0, 7.0))
    assert_names_line(info.value, uses_try, "try/except")


def mask_in_loop(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[x > i, ...].sum()  # <- error
    return total


def mask_in_while_test(x):
    n = 1
    while x[x > n, ...].sum() > 10:  # <- error
        n += 1
    return n


def boolean_mask_in_branch(x):
    if x.sum() > 0:
        x = x[x > 0, ...]  # <- error
    return x


def integer_array_index(x, idx):
    if x.sum() > 0:
        x = x * 2
    return x[idx]  # <- error


@pytest.mark.parametrize("mode", MODES)
def test_integer_array_index_after_a_branch(mode: str) -> None:
    x, idx = np.array([1.0, -2.0, 3.0, 4.0]), np.array([0, 2, -1, 2])
    np.testing.assert_array_equal(jitaic.jit(integer_array_index, mode=mode)(x, idx),
                                  integer_array_index(x, idx))


@pytest.mark.parametrize("fn, args, construct", [
    (mask_in_loop, (np.ones(100),), "traced boolean mask together with other indices"),
    (boolean_mask_in_branch, (np.ones(4),), "traced boolean mask together with other"),
], ids=["mask_in_loop", "boolean_mask"])
@pytest.mark.parametrize("mode", MODES)
def test_rejected_indexing(fn, args, construct: str, mode: str) -> None:
    """Index forms jitaic does not compile (x[mask] alone is supported)."""
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(fn, mode=mode)(*args)
    assert_names_line(info.value, fn, construct)


@pytest.mark.parametrize("fn, args", [
    pytest.param(mask_in_loop, (np.ones(100),), id="for_body"),
    pytest.param(mask_in_while_test, (np.arange(30.0),), id="while_test"),
    pytest.param(boolean_mask_in_branch, (np.ones(4),), id="then_branch"),
    pytest.param(uses_try, (np.ones(3),), id="fence"),
])
def test_errors_name_the_users_function(fn, args) -> None:
    """Errors raised inside a rewritten body name the user's function, not the
    frontend's generated helpers (__jitaic_body_N and friends)."""
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(fn, mode="ast")(*args)
    assert "__jitaic" not in str(info.value), str(info.value)


# ---------------------------------------------------------------- variables and shapes


def assigned_in_one_branch_add(x):
    if x.sum() > 0:
        y = x * 2
    return y + 1  # <- error


def assigned_in_one_branch_method(x):
    if x.sum() > 0:
        y = x * 2
    return y.sum()  # <- error


def assigned_in_one_branch_returned(x):
    if x.sum() > 0:
        y = x * 2
    return y  # <- error


def assigned_in_one_branch_ufunc(x):
    if x.sum() > 0:
        y = x * 2
    return np.sin(y)  # <- error


@pytest.mark.parametrize("fn", [
    pytest.param(assigned_in_one_branch_add, id="add"),
    pytest.param(assigned_in_one_branch_method, id="method"),
    pytest.param(assigned_in_one_branch_returned, id="returned"),
    pytest.param(assigned_in_one_branch_ufunc, id="ufunc"),
])
@pytest.mark.parametrize("mode", MODES)
def test_variable_assigned_in_one_branch_only(fn, mode: str) -> None:
    # Python raises UnboundLocalError on the path that skips the assignment;
    # jitaic compiles both paths, so it must refuse (never hand back a sentinel).
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(fn, mode=mode)(np.arange(3.0))
    assert_names_line(info.value, fn, "assigned")


def test_undefined_variable_error_names_it() -> None:
    with pytest.raises(jitaic.UnsupportedError, match="'y'"):
        jitaic.jit(assigned_in_one_branch_method, mode="ast")(np.arange(3.0))


def grows_in_for(x, n):
    y = x
    for _i in range(n):
        y = np.concatenate([y, x])
    return y


def grows_in_while(x):
    y = x
    while y.sum() < 100:
        y = np.concatenate([y, y])
    return y


def shrinks_in_for(z, c):
    for _i in range(6):
        z = z * z + c
        keep = np.abs(z) < 2
        z, c = z[keep], c[keep]
    return z


def length_differs_between_branches(x):
    if x.sum() > 0:
        y = x[:2]
    else:
        y = x[:3]
    return y * 2


def length_differs_after_a_run_time_index(x, i):
    x[i] += 1.0  # may raise IndexError when it runs
    if x.sum() > 0:
        y = x[:2]
    else:
        y = x[:3]
    return y


@pytest.mark.parametrize("fn, all_args", [
    (grows_in_for, [(np.ones(3), 4), (np.arange(2.0), 0)]),
    (grows_in_while, [(np.ones(3),), (np.full(2, 60.0),)]),
    (shrinks_in_for, [(np.zeros(12), np.linspace(-2.5, 1.0, 12))]),
    (length_differs_between_branches, [(np.ones(4),), (-np.ones(4),)]),
    (length_differs_after_a_run_time_index, [(np.ones(4), np.array(0)),
                                             (-np.ones(4), np.array(3))]),
], ids=lambda case: getattr(case, "__name__", ""))
def test_lengths_that_differ_between_paths_are_run_time_lengths(fn, all_args) -> None:
    """NumPy's variable may have another length on each path, or each
    iteration: jitaic's has a run-time length there (f64[?] in the IR)."""
    f = jitaic.jit(fn, mode="ast")
    for k, args in enumerate(all_args):
        mine, theirs = copy_tree(args), copy_tree(args)
        check_same(f(*mine), fn(*theirs), f"call {k}: result")
        check_same(mine, theirs, f"call {k}: arguments after the call")
    assert "f64[?]" in f.lower(*all_args[0]).as_text()


def ndim_differs_between_branches(x):
    if x.sum() > 0:  # <- error
        y = x.reshape(1, -1)  # <- error
    else:
        y = x + 1.0  # <- error
    return y


def ndim_differs_after_a_run_time_index(x, i):
    x[i] += 1.0  # may raise IndexError when it runs
    if x.sum() > 0:  # <- error
        y = x.reshape(1, -1)  # <- error
    else:
        y = x + 1.0  # <- error
    return y


def test_ndim_differs_between_branches() -> None:
    """The error names the variable and the lines computing its two shapes."""
    with pytest.raises(jitaic.ShapeError) as info:
        jitaic.jit(ndim_differs_between_branches)(np.ones(4))
    message = assert_names_line(info.value, ndim_differs_between_branches, "y", "(1, 4)",
                                "(4,)", "number of dimensions")
    first, second = (f"{FILE}:{n}" for n in lines_of(ndim_differs_between_branches)[1:])
    assert first in message and second in message, message


def test_ndim_differs_between_branches_after_code_that_may_raise() -> None:
    """jitaic's limit, not NumPy's error: refused while tracing, as a ShapeError,
    not made a check that raises a plain ValueError when the code runs."""
    with pytest.raises(jitaic.ShapeError) as info:
        jitaic.jit(ndim_differs_after_a_run_time_index)(np.ones(4), np.array(0))
    assert_names_line(info.value, ndim_differs_after_a_run_time_index, "y", "(1, 4)", "(4,)")


def writes_the_argument_then_rebinds(x):
    z = x
    for _i in range(3):  # <- error
        z[0] += 1
        z = z * 2
    return x, z


def writes_a_view_then_rebinds(x):
    z = x
    for _i in range(3):  # <- error
        z[0] += 1
        z = z[::-1]
    return x, z


def writes_through_an_outer_window(x, y):
    z = y.copy()
    for i in range(3):  # <- error
        z[0] += 1
        z = x[i + 1:i + 3]
    return x, z


def writes_an_aliased_array_then_rebinds(x):
    z = x * 1.0
    alias, kept = z, [z]
    for _i in range(3):  # <- error
        z[0] += 1
        z = z * 2
    return alias, kept, z


def writes_a_fresh_array_then_rebinds(x):
    z = x * 1.0
    for _i in range(3):
        z[0] += 1
        z = z * 2
    return z


@pytest.mark.parametrize("fn, args, needles", [
    (writes_the_argument_then_rebinds, (np.arange(4.0),), ("'z'", "z.copy()")),
    (writes_a_view_then_rebinds, (np.arange(4.0),), ("'z'", "z.copy()")),
    (writes_through_an_outer_window, (np.arange(5.0), np.ones(2)), ("'z'", "outside")),
    (writes_an_aliased_array_then_rebinds, (np.arange(4.0),), ("'z'", "another name")),
], ids=lambda case: getattr(case, "__name__", ""))
def test_writes_into_a_rebound_loop_variable_that_others_see_are_refused(fn, args,
                                                                        needles) -> None:
    """NumPy's write reaches every name of the array; the loop carries the
    variable as a value, so such a write would be lost (it was, silently)."""
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(fn, mode="ast")(*args)
    assert_names_line(info.value, fn, "written in place", *needles)
    x = np.arange(4.0)
    check_same(jitaic.jit(writes_a_fresh_array_then_rebinds, mode="ast")(x),
               writes_a_fresh_array_then_rebinds(x), "result")


# ------------------------------------------ lists and dicts changed in traced control flow
# A branch or loop body is traced once: a list it appends to must not get one
# item whatever happens when the code runs.


def appends_in_a_static_loop(x):
    out = []
    if x.sum() > 0:  # data-dependent: the AST frontend traces the function
        x = x * 2
    for i in range(3):
        out.append(x[i] * i)
    return np.stack(out)


def appends_row_results(x):
    rows = []
    for row in x:
        if row.sum() > 0:
            rows.append(row)
        else:
            rows.append(-row)
    return rows


def grows_in_a_helper(x):
    def collect(into, v):
        into.append(v)

    out = [x]
    for i in range(2):
        collect(out, out[-1] + i)
    return out


def nested_state(x):
    hist = {"sum": x.sum(), "steps": [x]}
    for i in range(x.shape[0]):
        hist["sum"] = hist["sum"] + x[i]
        hist["steps"][0] = hist["steps"][0] * 0.5
    return hist


def appends_in_one_branch(x):
    out = [x]
    if x.sum() > 0:  # <- error
        out.append(x)
    return out


def structure_differs_between_branches(x):
    if x.sum() > 0:  # <- error
        t = (x, 1)
    else:
        t = (x,)
    return t


def tuple_assigned_in_one_branch(x):
    if x.sum() > 0:
        t = (x, 1)
    return t[0]  # <- error


def tuple_in_both_branches(x):
    if x.sum() > 0:
        t = (x, 1)
    else:
        t = (-x, 1)
    return t


def appends_in_traced_for(x):
    out = []
    for i in range((x > 0).sum()):  # <- error
        out.append(x * i)
    return out


def appends_in_while(x):
    out = []
    while x.sum() < 10:  # <- error
        x = x + 1
        out.append(x)
    return out


def appends_in_a_long_loop(x):
    out = []
    if x.sum() > 0:
        x = -x
    for i in range(1001):  # <- error
        out.append(x * i)
    return out


def appends_then_raises_on_one_path(x):
    out = [x]
    y = x
    if x.sum() > 0:
        out.append(x * 3)
        y = np.ones(2) + x  # NumPy's ValueError on this path, after the append
    else:
        y = x * 2
    return out, y


def test_a_branch_that_raises_leaves_the_list_as_it_was() -> None:
    """The failed trace of a branch must not leave its append behind (the
    other branch read its traced item: KeyError)."""
    f = jitaic.jit(appends_then_raises_on_one_path, mode="ast")
    x = np.arange(1.0, 4.0)
    check_same(f(-x), appends_then_raises_on_one_path(-x), "result")
    with pytest.raises(ValueError):
        appends_then_raises_on_one_path(x)
    with pytest.raises(ValueError):
        f(x)


CONTAINER_CASES = [
    (appends_in_a_static_loop, [(np.arange(4.0),), (-np.arange(4.0),)]),
    (appends_row_results, [(np.array([[1.0, -3.0], [2.0, 1.0], [-1.0, 0.5]]),)]),
    (grows_in_a_helper, [(np.arange(3.0),)]),
    (nested_state, [(np.arange(4.0),)]),
    (tuple_in_both_branches, [(np.arange(3.0),), (-np.arange(3.0),)]),
]


@pytest.mark.parametrize("fn, all_args", CONTAINER_CASES,
                         ids=[fn.__name__ for fn, _ in CONTAINER_CASES])
def test_containers_changed_in_control_flow(fn, all_args) -> None:
    f = jitaic.jit(fn, mode="ast")
    for k, args in enumerate(all_args):
        check_same(f(*copy_tree(args)), fn(*copy_tree(args)), f"call {k}: result")


def test_a_dict_carried_by_a_loop_stays_a_loop() -> None:
    """Its items are loop variables: the loop is not unrolled."""
    ir = jitaic.jit(nested_state, mode="ast").lower(np.arange(40.0)).as_text()
    assert control_ops(ir)["for_loop"] == 1, ir


@pytest.mark.parametrize("fn, args, needles", [
    pytest.param(appends_in_one_branch, (np.arange(3.0),), ("'out'", "differently"),
                 id="one_branch"),
    pytest.param(structure_differs_between_branches, (np.arange(3.0),),
                 ("'t'", "structure"), id="structure"),
    pytest.param(tuple_assigned_in_one_branch, (np.arange(3.0),), ("'t'", "assigned"),
                 id="undefined"),
    pytest.param(appends_in_traced_for, (np.arange(3.0),), ("'out'", "np.empty"),
                 id="traced_for"),
    pytest.param(appends_in_while, (np.arange(3.0),), ("'out'", "np.empty"), id="while"),
    pytest.param(appends_in_a_long_loop, (np.arange(3.0),), ("'out'", "1001"),
                 id="long_loop"),
])
def test_containers_changed_in_control_flow_refused(fn, args, needles) -> None:
    with pytest.raises(jitaic.UnsupportedError) as info:
        jitaic.jit(fn, mode="ast")(*args)
    assert_names_line(info.value, fn, *needles)


# ---------------------------------------------------------------- more semantics


def tuple_early_return(x):
    if x.sum() > 0:
        return x, 1.0
    return -x, 2.0


def first_assigned_in_loop(x):
    for i in range(x.shape[0]):
        last = x[i] * 2
    return last


def first_assigned_in_while(x):
    k = 0
    while x[k] < 0:
        found = x[k]
        k += 1
    return found + k


def while_counter_index(x):
    k = 0
    while x[k] < 0:
        k += 1
    return k, x[k]


def while_writes_argument(x):
    while x.max() > 1:
        x[:] = x / 2
    return x


def while_aug_assigns_argument(x):
    while x.max() > 1:
        x /= 2
    return x.sum()


def for_aug_assigns_argument(x):
    for i in range(x.shape[0]):
        if x[i] > 0:
            x *= 0.5
    return x.sum()


def branch_aug_assigns_argument(x):
    if x.max() > 1:
        x /= 2
    return x.sum()


def branch_writes_through_view(x):
    row = x[0]
    if row.sum() < 0:
        row *= -1
    return x


def loop_writes_through_view(x):
    for i in range(x.shape[0]):
        row = x[i]
        row *= 2
    return x


def float32_loop_accumulator(x):
    acc = 0
    for i in range(x.shape[0]):
        acc = acc + x[i]
    return acc


def traced_trip_count(x):
    k = (x > 0).sum()  # a traced int: the for_loop's bound is a run-time value
    acc = 0.0
    for i in range(k):
        acc += x[i]
    for i in range(x.shape[0] - 1, 0, -2):  # a negative step
        acc -= x[i] * i
    return acc


SEMANTICS = [
    (traced_trip_count, [(np.array([1.0, 2.0, -3.0, 4.0, 0.5]),),
                         (np.array([-1.0, -2.0, -3.0, -4.0, -0.5]),)]),
    (float32_loop_accumulator, [(np.arange(4, dtype=np.float32),)]),
    (tuple_early_return, [(np.arange(3.0),), (-np.arange(1.0, 4.0),)]),
    (first_assigned_in_loop, [(np.arange(4.0),)]),
    (first_assigned_in_while, [(np.array([-1.0, -2.0, 3.0]),)]),
    (while_counter_index, [(np.array([-1.0, -2.0, 3.0]),)]),
    (while_writes_argument, [(np.array([1.0, 3.0, 6.0, 10.0]),)]),
    (while_aug_assigns_argument, [(np.array([1.0, 3.0, 6.0, 10.0]),)]),
    (for_aug_assigns_argument, [(np.array([1.0, -3.0, 6.0]),)]),
    (branch_aug_assigns_argument, [(np.array([1.0, 3.0]),), (np.array([0.5, 0.25]),)]),
    (branch_writes_through_view, [(np.array([[1.0, -3.0], [-6.0, 10.0]]),)]),
    (loop_writes_through_view, [(np.array([[1.0, -3.0], [-6.0, 10.0]]),)]),
]


@pytest.mark.parametrize("fn, all_args", SEMANTICS, ids=[
    (case.values if hasattr(case, "values") else case)[0].__name__ for case in SEMANTICS])
def test_semantics_match_numpy(fn, all_args) -> None:
    f = jitaic.jit(fn, mode="ast")
    for k, args in enumerate(all_args):
        mine, theirs = copy_tree(args), copy_tree(args)
        want = fn(*theirs)
        got = f(*mine)
        check_same(got, want, f"call {k}: result")
        check_same(mine, theirs, f"call {k}: arguments after the call")


def and_python_bool(x):
    return (x > 0) & True


def logical_and_python_bool(x):
    return np.logical_and(x.sum() > 0, True)


def add_python_bool(x):
    return x + True


@pytest.mark.parametrize("fn", [and_python_bool, logical_and_python_bool, add_python_bool])
def test_python_bool_operand(fn) -> None:
    # What `err > tol and it < maxit` becomes while `it` is still a Python int.
    x = np.array([1.0, -2.0, 3.0])
    check_same(jitaic.jit(fn, mode="trace")(x), fn(x), "result")


def test_region_constants_do_not_outlive_their_region() -> None:
    """Constants are cached per region; a region's block list is freed when it
    closes, so a later region can get the same id(). A constant asked for in
    the new region must be emitted there, not taken from the dead one (else
    codegen meets a value it never defined: KeyError, depending on memory
    layout, e.g. for `x[i] *= -1` inside an `if` inside a `for`)."""
    from jitaic.tracer.core import TraceContext

    value = 1.25
    with TraceContext() as ctx:
        builder = ctx.builder
        builder.open_block()
        dead = id(builder._blocks[-1])
        first = ctx.constant(value)
        builder.close_block()
        for _ in range(1000):  # CPython hands the freed list's memory out again
            builder.open_block()
            if id(builder._blocks[-1]) == dead:
                break
        else:
            pytest.skip("no block reused the closed block's id")
        second = ctx.constant(value)
        assert any(node.output is second for node in builder._blocks[-1]), (
            "the constant comes from a closed region" if second is first else "?")


def test_window_past_the_end_shortens_as_in_numpy() -> None:
    """x[k:k + 3] with a run-time k: NumPy shortens the window at either end
    (or empties it), and so does jitaic."""
    def windows(x, k):
        return x[k:k + 3].sum(), x[k - 1:k + 2]

    x = np.arange(6.0)
    f = jitaic.jit(windows)
    for k in (-7, -4, -1, 0, 3, 4, 5, 6, 9):
        got, want = f(x, np.int64(k)), windows(x, k)
        assert got[0] == want[0] and np.array_equal(got[1], want[1]), k


def _loop_windows(x, n):
    s = 0.0
    for i in range(n):
        s += x[i:i + 3].sum()
    return s


def _static_windows(x):
    s = 0.0
    for i in range(1, x.shape[0] - 2):
        s += x[i - 1:i + 3].sum()
    return s


def test_loop_index_windows_keep_a_static_length_only_where_they_fit() -> None:
    """A for-loop index with static bounds proves that x[i - 1:i + 3] fits, so
    the window keeps length 4; with a run-time bound it may run past the end,
    and its length is decided when it runs, as NumPy's is."""
    x = np.arange(7.0)
    static = jitaic.jit(_static_windows, mode="ast")
    assert static(x) == _static_windows(x)
    assert "f64[4] = dyn_getitem" in static.lower(x).as_text()
    loop = jitaic.jit(_loop_windows, mode="ast")
    for n in (0, 3, 5, 7, 9):
        assert loop(x, np.int64(n)) == _loop_windows(x, n), n
    assert "f64[?] = dyn_getitem" in loop.lower(x, np.int64(9)).as_text()
    assert jitaic.jit(_loop_windows, mode="ast")(x[:2], 4) == _loop_windows(x[:2], 4)


def _view_read_in_both_branches(a, b, c):
    v = b[None]  # a view: its node is recorded where it is first read
    a += 1.0
    if c < 0.5:
        out = np.where(a > 2.0, a, v)  # first read: inside this branch
    else:
        out = np.where(a > 0.0, v, a)  # not the other branch's value
    return out + v  # nor the one after the if


def _view_read_first_in_a_loop(x, n):
    v = x[::-1]
    total = np.zeros_like(x)
    for _ in range(n):
        total = total + v  # first read inside the loop body
    return total * v


@pytest.mark.parametrize("c", [0.2, 0.9])
def test_a_view_first_read_in_a_branch_is_recorded_again_outside_it(c) -> None:
    args = (np.arange(6.0).reshape(2, 3), np.array(0.25), np.array(c))
    f = jitaic.jit(_view_read_in_both_branches, mode="ast")
    with config.override(checks=True):  # the verifier: every value defined before use
        assert_same(f(args[0].copy(), *args[1:]), _view_read_in_both_branches(
            args[0].copy(), *args[1:]))
    g = jitaic.jit(_view_read_first_in_a_loop, mode="ast")
    with config.override(checks=True):
        assert_same(g(np.arange(4.0), 3), _view_read_first_in_a_loop(np.arange(4.0), 3))


@pytest.mark.parametrize("prog", PROGRAMS, ids=PROGRAM_IDS)
def test_every_node_points_at_a_line_of_the_program(prog: Program) -> None:
    """Nodes the AST rewrite makes (cond, loops, their bodies' nodes) carry the
    line of the construct they came from: a line of the program or a helper."""
    lines = set()
    for fn in (prog.fn, *prog.helpers):
        source, first = inspect.getsourcelines(fn)
        lines |= {(inspect.getsourcefile(fn), first + i) for i in range(len(source))}
    f = jitaic.jit(prog.fn, mode="ast")
    for make in prog.datasets:
        with config.override(backend="reference"):  # the graph is all it reads
            graph = f.lower(*make(np.random.default_rng(seed_of(prog.name)))).ir
        for node in graph.walk():
            assert node.loc is not None, node.op.name
            assert (node.loc.filename, node.loc.lineno) in lines, (node.op.name, node.loc)


def _three_structures(x, n):
    for i in range(n):  # <- for
        x[i] = x[i] * 2.0
    if x.sum() > 0:  # <- if
        x = x - 1.0
    while x.max() > 1.0:  # <- while
        x = x * 0.5
    return x


def test_control_flow_nodes_are_located_at_their_statement() -> None:
    """cond / for_loop / while_loop carry the line of the if / for / while
    (the IR, pictures, explain and errors show it), not a line of the body."""
    graph = jitaic.jit(_three_structures, mode="ast").lower(np.arange(4.0), 3).ir
    located = {n.op.name: n.loc.lineno for n in graph.nodes if n.regions}
    assert located == {"for_loop": lines_of(_three_structures, "<- for")[0],
                       "cond": lines_of(_three_structures, "<- if")[0],
                       "while_loop": lines_of(_three_structures, "<- while")[0]}


def _loop_with_a_broken_body(x, n):
    for _ in range(n):
        x[0] = x[:2] + 1.0  # NumPy: ValueError, on the first iteration
    k = 0
    while k < 1 and x[0] > 5.0:
        x = x + np.ones(4)  # NumPy: ValueError (shapes (3,) and (4,))
        k += 1
    return x


def test_a_loop_body_that_always_fails_raises_only_if_the_loop_runs() -> None:
    """A static error in a loop body (a shape mismatch) is NumPy's error on
    the first iteration: raised when the loop runs, not when it is traced."""
    f = jitaic.jit(_loop_with_a_broken_body, mode="ast")
    np.testing.assert_array_equal(f(np.arange(3.0), np.int64(0)), np.arange(3.0))
    for x, n, message in [(np.arange(3.0), 2, "setting an array element with a sequence"),
                          (np.full(3, 6.0), 0, "could not be broadcast together")]:
        with pytest.raises(ValueError, match=message):
            _loop_with_a_broken_body(x.copy(), n)
        with pytest.raises(ValueError, match=message + r".*test_ast_frontend\.py:\d+"):
            f(x.copy(), np.int64(n))


def _float32_sums(x, n):
    v = x.argmax()  # int64
    k = 0
    while k < n:
        v = x.sum(dtype=np.float32)
        k += 1
    return v


def test_a_variable_widened_by_a_loop_leaves_it_with_the_computed_dtype() -> None:
    """int64 before the loop, a float32 sum in it: the variable leaves the
    loop as float32, NumPy's dtype after any iteration (the fuzzer found
    float64)."""
    f = jitaic.jit(_float32_sums, mode="ast")
    x = np.arange(5.0)
    got, want = f(x, np.int64(2)), _float32_sums(x, 2)
    assert type(got) is type(want) is np.float32 and got == want



def test_a_loop_that_runs_0_times_refuses_to_change_a_variables_dtype() -> None:
    """NumPy leaves the int64 that came in when the loop never runs: a dtype
    that depends on the data, refused when it happens (after any iteration
    the loop gives NumPy's float32)."""
    f = jitaic.jit(_float32_sums, mode="ast")
    with pytest.raises(jitaic.UnsupportedError, match=r"loop variable 'v' has dtype int64 before "
                       r"the loop \(computed at test_ast_frontend\.py:\d+\) and float32 "
                       r"after an iteration \(computed at test_ast_frontend\.py:\d+\).*"
                       r"at test_ast_frontend\.py:\d+"):
        f(np.arange(5.0), np.int64(0))
    assert f(np.arange(5.0), np.int64(1)) == np.float32(10.0)


def _uint64_after_int64(a, n):
    v = a.astype(np.int64)
    for _ in range(n):
        v = a  # uint64, not read from v
    return v


def test_a_variable_each_iteration_computes_afresh_is_carried_in_their_dtype() -> None:
    """int64 before the loop, uint64 in it: NumPy's join of the two is float64,
    which rounded 2**64 - 1 and then cast it back to 0 (found by the fuzzer).
    An iteration that does not read the variable decides its dtype alone."""
    f = jitaic.jit(_uint64_after_int64, mode="ast")
    a = np.array([2**64 - 1, 2**53 + 1, 5], dtype=np.uint64)
    got = f(a, np.int64(3))
    assert got.dtype == np.uint64 and got.tolist() == a.tolist()


def _uint64_from_int64(a, b, n):
    v = a.astype(np.int64)
    for _ in range(n):
        v = np.maximum(v, 0).astype(np.uint64) + b  # reads v
    return v


def test_a_loop_variable_no_one_dtype_holds_exactly_is_refused_or_peeled() -> None:
    """The first iteration reads an int64, the next ones a uint64: no dtype
    carries both (float64 rounds past 2**53). A constant range peels the
    first iteration; a run-time bound is refused, naming both dtypes."""
    a = np.array([2**63 - 1, 5], dtype=np.uint64)
    b = np.array([2**63, 1], dtype=np.uint64)
    three = jitaic.jit(lambda a, b: _uint64_from_int64(a, b, 3), mode="ast")
    assert_same(three(a, b), _uint64_from_int64(a, b, 3))
    with pytest.raises(jitaic.UnsupportedError, match=r"loop variable v has dtype int64 before "
                       r"the loop \(computed at test_ast_frontend\.py:\d+\) and uint64 after "
                       r"an iteration .*would be float64, which does not hold every uint64 "
                       r"value.*at test_ast_frontend\.py:\d+"):
        jitaic.jit(_uint64_from_int64, mode="ast")(a, b, np.int64(3))


def _wrapping_first_iteration(a, n):
    v = a
    for _ in range(n):
        v = np.rint(-v) * 1.5  # -v of a uint64 wraps; of the float64 it becomes, does not
    return v


def _widening_first_iteration(a, n):
    v = a
    for _ in range(n):
        v = (v + 0.5) * -2  # v is float64 in the first iteration's add already
    return v


def test_a_first_iteration_that_computes_in_the_narrower_dtype_is_peeled_or_refused() -> None:
    """v comes in as uint64 and leaves an iteration as float64: NumPy's first
    iteration negates the uint64 (2**64 - 1 from 1), a loop carrying float64
    negated 1.0 (found by the fuzzer). A constant range peels the first
    iteration, a run-time one is refused naming the operation; a first
    iteration whose operations compute in the carried dtype anyway stays one
    loop."""
    a = np.array([1, 2**63], dtype=np.uint64)
    three = jitaic.jit(lambda a: _wrapping_first_iteration(a, 3), mode="ast")
    assert_same(three(a), _wrapping_first_iteration(a, 3))
    with pytest.raises(jitaic.UnsupportedError, match=r"and negative \(computed at "
                       r"test_ast_frontend\.py:\d+\) computes with it in a way that depends on "
                       r"that dtype \(uint64\).*at test_ast_frontend\.py:\d+"):
        jitaic.jit(_wrapping_first_iteration, mode="ast")(a, np.int64(3))
    widening = jitaic.jit(_widening_first_iteration, mode="ast")
    assert_same(widening(a, np.int64(3)), _widening_first_iteration(a, 3))
    graph = widening.lower(a, np.int64(3)).ir
    assert [n.op.name for n in graph.walk()].count("for_loop") == 1


def _python_number_after_an_iteration(x, n):
    v = np.float64(2.0)
    i = 0
    while i < n:
        v = 1.5  # a Python float: x * v keeps x's float32
        i += 1
    return x * v


def test_a_variable_an_iteration_makes_a_python_number_is_one_after_the_loop() -> None:
    """NEP 50: after an iteration v is the Python float, weak; the loop
    carried it as the float64 it came in as, and x * v was float64 (the
    fuzzer found a complex64 carried for a Python int)."""
    f = jitaic.jit(_python_number_after_an_iteration, mode="ast")
    x = np.arange(3, dtype=np.float32)
    got, want = f(x, np.int64(2)), _python_number_after_an_iteration(x, 2)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    with pytest.raises(jitaic.UnsupportedError, match=r"loop variable 'v' has dtype float64 "
                       r"before the loop .* and a Python float after an iteration"):
        f(x, np.int64(0))


def _numpy_of_the_loop_index(x, n):
    v = x.astype(np.uint8)
    for k in range(n):
        v = np.isnan(k)  # k is a Python int; what np.isnan makes of it is an np.bool
    return v


def test_numpy_functions_of_python_numbers_give_numpy_scalars() -> None:
    """Not weak (NEP 50 keeps only operators on Python numbers Python's): the
    loop leaves v an np.bool, not the uint8 it came in with (the fuzzer found
    uint8)."""
    f = jitaic.jit(_numpy_of_the_loop_index, mode="ast")
    x = np.array(4, np.int8)
    got, want = f(x, np.int64(2)), _numpy_of_the_loop_index(x, 2)
    assert type(got) is type(want) is np.bool_ and got == want
    with pytest.raises(jitaic.UnsupportedError, match="loop variable 'v' has dtype uint8"):
        f(x, np.int64(0))


def _changed_but_unread(x, n):
    v = x.argmax()
    for _ in range(n):
        v = v * 0.5
    s = 0  # a Python int: weak, it takes the dtype of the iterations (NEP 50)
    for i in range(n):
        s += x[i]
    return x, s


def test_a_loop_that_runs_0_times_leaves_unread_and_python_scalar_variables_alone() -> None:
    f = jitaic.jit(_changed_but_unread, mode="ast")
    x = np.arange(3.0)
    for n in (0, 2):
        got, want = f(x, np.int64(n)), _changed_but_unread(x, n)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]

CSR_ROWS = np.array([0, 2, 3, 3, 6], np.uint32)  # a matrix the function closes over
CSR_COLUMNS = np.array([0, 3, 1, 0, 2, 3], np.uint32)


def csr_product_of_constants(values, x):
    y = np.zeros(CSR_ROWS.size - 1)
    for i in range(CSR_ROWS.size - 1):
        row = slice(CSR_ROWS[i], CSR_ROWS[i + 1])
        y[i] = values[row] @ x[CSR_COLUMNS[CSR_ROWS[i]:CSR_ROWS[i + 1]]]
    return y


@pytest.mark.parametrize("mode", MODES)
def test_constant_arrays_read_at_traced_indices(mode: str) -> None:
    """NumPy cannot index a constant array with a traced loop index: the
    rewritten read makes it a constant of the trace, and the loop stays one."""
    values, x = np.arange(1.0, 7.0), np.array([1.0, -2.0, 3.0, 0.5])
    f = jitaic.jit(csr_product_of_constants, mode=mode)
    np.testing.assert_array_equal(f(values, x), csr_product_of_constants(values, x))
    if mode == "ast":
        assert f.lower(values, x).as_text().count("for_loop") == 1


def _guarded_minimum(a, b):
    if b.sum() == 0 or a.min() > 1.0:
        return b + 1.0
    return b


@pytest.mark.parametrize("b", [np.zeros(1), np.ones(1)])
def test_the_right_operand_of_or_runs_only_where_the_left_does_not_decide(b) -> None:
    """``a.min()`` of an empty array raises only when Python evaluates it: when
    the left operand, traced, is false."""
    f = jitaic.jit(_guarded_minimum, mode="ast")
    a = np.zeros(0)
    if b.sum() == 0:
        np.testing.assert_array_equal(f(a, b), _guarded_minimum(a, b))
        return
    with pytest.raises(ValueError, match=r"zero-size array to reduction operation minimum.*"
                       r"test_ast_frontend\.py:\d+"):
        f(a, b)


def leapfrog(x, v):
    state = (x, v)
    for _ in range(5):
        x, v = state
        state = (x + 0.1 * v, v - 0.1 * x)  # a tuple variable, rebound each iteration
    return state


def pair_with_a_new_dtype(s):
    r = (s, s)
    for i in range(2, 3):
        r = (s * 1.5, s + i)  # its first item leaves as float64
    return r


def growing_list(x):
    out = [x]
    for i in range(3):
        out = out + [x * i]
    return out


def test_tuple_variables_are_carried_item_by_item() -> None:
    """A loop-carried tuple of traced values was left out of the loop's
    carried values, so its items leaked out of the body (KeyError while
    compiling); now each item is carried, dtype changes included."""
    x, v = np.ones(3), np.linspace(0.0, 1.0, 3)
    assert_same(jitaic.jit(leapfrog, mode="ast")(x, v), leapfrog(x, v))
    assert_same(jitaic.jit(pair_with_a_new_dtype, mode="ast")(np.int8(3)),
                pair_with_a_new_dtype(np.int8(3)))


def test_a_variable_that_changes_structure_in_a_loop_is_refused() -> None:
    with pytest.raises(JitaicError, match=r"loop variable 'out' changes its structure in "
                                          r"the loop .* at test_ast_frontend.py:\d+"):
        jitaic.jit(growing_list, mode="ast")(np.ones(2))
