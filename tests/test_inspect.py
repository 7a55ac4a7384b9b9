"""Looking inside: ``f.lower(x).graph()`` pictures and ``jitaic.explain``.

Pictures are drawn from the graph and the fusion plan alone (the reference
tier); explain reports on compiled code (marked numba).
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import jitaic
from jitaic.picture import Picture, quoted

TIER = "reference"


def _softmax_layer(x, w):
    h = np.tanh(x @ w)
    e = np.exp(h - h.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _relax(a, n):
    for _ in range(n):
        a[1:-1] = 0.5 * (a[:-2] + a[2:])
    if a.sum() > 0:
        a = a * 2
    return a


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def _clusters(dot: str) -> list[tuple[str, str]]:
    """(label, body text) of every cluster, nested ones included."""
    lines = dot.splitlines()
    found = []
    for k, line in enumerate(lines):
        header = re.match(r'(\s*)subgraph cluster_\d+ \{ label="([^"]*)";', line)
        if header:
            end = lines.index(header.group(1) + "}", k)
            found.append((header.group(2), "\n".join(lines[k + 1:end])))
    return found


def test_picture_groups_fused_kernels_and_marks_blas():
    x, w = np.ones((8, 5)), np.ones((5, 3))
    picture = jitaic.jit(_softmax_layer).lower(x, w).graph()
    assert isinstance(picture, Picture)
    dot = picture.source
    kernels = {label: body for label, body in _clusters(dot) if label.startswith("fused")}
    assert set(kernels) == {"fused kernel over [8, 3]: 2 ops",
                            "fused kernel over [8, 3]: 3 ops"}
    ops_in = {label: re.findall(r'label="(\w+)', body) for label, body in kernels.items()}
    assert ops_in["fused kernel over [8, 3]: 3 ops"] == ["subtract", "exp", "reduce_sum"]
    assert 'label="row loop over [8]"' in dot
    line = _line_of(_softmax_layer, "x @ w")
    assert f'label="matmul  (BLAS)\\nf64[8,3]\\ntest_inspect.py:{line}"' in dot
    assert 'label="x\\nf64[8,5]", shape="invhouse"' in dot
    assert 'label="result 0: f64[8,3]", shape="house"' in dot


def _scaled_positives(x):
    return x[x > 0] * 2 + 1


def test_picture_shows_run_time_extents_as_question_marks():
    dot = jitaic.jit(_scaled_positives).lower(np.ones(6)).graph().source
    assert [label for label, _ in _clusters(dot)] == ["fused kernel over [?]: 2 ops"]


def test_picture_boxes_loops_and_branches_at_their_lines():
    dot = jitaic.jit(_relax, mode="ast").lower(np.ones(6), 3).graph().source
    for_line = _line_of(_relax, "for _ in")
    if_line = _line_of(_relax, "if a.sum()")
    assert f'label="for_loop  test_inspect.py:{for_line}"' in dot
    assert f'label="cond  test_inspect.py:{if_line}"' in dot
    labels = [label for label, _ in _clusters(dot)]
    assert labels.count("body") == 1 and "then" in labels and "else" in labels
    assert 'label="index: ' in dot and 'label="carried 0: f64[6]"' in dot
    assert 'label="writes a"' in dot  # the in-place update of the argument


def test_picture_of_a_gradient_graph():
    loss = jitaic.jit(jitaic.grad(lambda x, w: _softmax_layer(x, w).sum(), argnums=1))
    dot = loss.lower(np.ones((8, 5)), np.ones((5, 3))).graph().source
    assert dot.count("(BLAS)") == 2  # forward x @ w and the backward x.T @ g
    assert 'label="result 0: f64[5,3]"' in dot


def test_picture_renders_to_svg_and_png(tmp_path):
    pygraphviz = pytest.importorskip("pygraphviz")  # the "graph" extra
    picture = jitaic.jit(_relax, mode="ast").lower(np.ones(6), 3).graph()
    svg = picture.svg()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "for_loop" in svg and "fused kernel over [4]" in svg
    png = picture.save(tmp_path / "relax.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    assert (picture.save(tmp_path / "relax.dot").read_text() == picture.source)
    assert pygraphviz.AGraph(string=picture.source).number_of_nodes() > 10


def test_picture_text_from_the_user_stays_data():
    assert quoted('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'

    def f(x):
        return x + 1

    f.__name__ = f.__qualname__ = 'evil" [label="pwned'
    dot = jitaic.jit(f).lower(np.ones(3)).graph().source
    assert dot.startswith('digraph "evil\\" [label=\\"pwned" {')
    pygraphviz = pytest.importorskip("pygraphviz")
    graph = pygraphviz.AGraph(string=dot)
    assert graph.name == 'evil" [label="pwned'


def test_lowered_ir_is_the_optimised_graph():
    lowered = jitaic.jit(_softmax_layer).lower(np.ones((8, 5)), np.ones((5, 3)))
    assert [n.op.name for n in lowered.ir.nodes][:2] == ["matmul", "tanh"]
    assert lowered.as_text().startswith("def _softmax_layer(%x: f64[8,5], %w: f64[5,3])")


# ---------------------------------------------------------------- explain


def _branchy(a, n):
    s = 0.0
    for i in range(n):
        if a[i] > 0:
            s += a[i]
    return np.sort(a) * s + np.dot(a * 1j, a).imag


@pytest.mark.numba
def test_explain_reports_frontend_arguments_and_library_calls():
    report = jitaic.explain(_softmax_layer, np.ones((8, 5)), np.ones((5, 3)))
    text = str(report)
    assert text.startswith("jitaic.explain: _softmax_layer\n")
    assert report.section("jitaic.explain") == [
        "x: float64[8, 5] array, C-contiguous", "w: float64[5, 3] array, C-contiguous"]
    assert report.section("frontend") == [
        "trace: auto: no Python control flow depends on a traced value"]
    line = _line_of(_softmax_layer, "x @ w")
    assert report.section("library calls") == [
        f"BLAS: matmul f64[8,5] @ f64[5,3]  (test_inspect.py:{line})"]
    assert any(k.startswith("row loop over [8]: 3 kernels") for k in report.section("kernels"))
    assert report.section("parallel loops")[0].startswith("none: ")
    assert report.section("NumPy calls") == [
        "none: every operation is a loop jitaic generated"]
    timing = report.section("compile time")
    assert timing[0].startswith("trace ") and "numba" in timing[1]


@pytest.mark.numba
def test_explain_says_why_auto_mode_fell_back_and_what_is_static():
    a = np.array([1.0, -2.0, 3.0])
    report = jitaic.explain(_branchy, a, 3)
    line = _line_of(_branchy, "if a[i] > 0")
    (frontend,) = report.section("frontend")
    assert frontend.startswith(f"ast: auto: Python bool() of a traced array at "
                               f"test_inspect.py:{line} (in _branchy)")
    assert report.section("jitaic.explain")[1] == (
        "n: 3: static (part of the cache key; a new value compiles again)")
    assert report.section("NumPy calls") == ["numba's np.dot"]
    assert report.section("graph")[0].endswith("2 loops or branches")


@pytest.mark.numba
def test_explain_reports_cache_state_of_a_jitted_function():
    f = jitaic.jit(lambda x, scale: x * scale, static_argnames="scale")
    x = np.ones(4)
    f(x, 2.0), f(x, 2.0)
    report = jitaic.explain(f, x, 2.0)
    assert report.section("jitaic.explain")[1] == (
        "scale = 2.0: static (static_argnames); a new value compiles again")
    cache = report.section("cache")
    assert cache[1] == "this specialisation served 1 cached call(s)"
    assert cache[2] == "the function has 1 specialisation(s), 1 miss(es)"


def test_explain_under_the_reference_backend(monkeypatch):
    monkeypatch.setenv("JITAIC_BACKEND", "reference")
    report = jitaic.explain(_softmax_layer, np.ones((8, 5)), np.ones((5, 3)))
    assert report.section("kernels") == ["not compiled (the reference backend is on)"]
    assert report.section("cache")[0] == "not compiled (reference backend)"
