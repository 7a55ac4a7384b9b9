"""The documentation: the site builds strictly, every Python block of the
README and docs runs, and the supported-NumPy page is what the code handles.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# ```python blocks run; ```py blocks are excerpts of jitaic's source
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

sys.path.insert(0, str(ROOT / "docs" / "hooks"))
import supported_numpy  # noqa: E402


def python_blocks(page: Path) -> list[str]:
    return _BLOCK.findall(page.read_text())


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_python_blocks_run(page: Path, tmp_path, monkeypatch, capsys) -> None:
    """A page's blocks run in order in one namespace, as a reader pastes them."""
    blocks = python_blocks(page)
    if not blocks:
        pytest.skip("no Python blocks")
    monkeypatch.chdir(tmp_path)  # blocks that save files save them here
    namespace = {"__name__": f"docs_{page.stem}"}
    for k, block in enumerate(blocks):
        # a file of its own: the AST frontend reads functions' source
        path = tmp_path / f"{page.stem.replace('-', '_')}_block{k + 1}.py"
        path.write_text(block)
        exec(compile(block, str(path), "exec"), namespace)


def test_blocks_are_found() -> None:
    readme, getting_started = python_blocks(PAGES[0]), python_blocks(
        ROOT / "docs" / "getting-started.md")
    assert len(readme) == 1 and "jitaic.explain(predict, x, w)" in readme[0]
    assert len(getting_started) >= 5
    assert not any("@implements" in b for p in PAGES for b in python_blocks(p))


def test_site_builds_strictly(tmp_path) -> None:
    pytest.importorskip("mkdocs")
    out = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                          "-d", str(out)], cwd=ROOT, capture_output=True, text=True,
                         env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    numpy_page = (out / "numpy" / "index.html").read_text()
    assert "np.linalg.solve" in numpy_page and "ndarray.sum" in numpy_page
    for name in ("softmax_layer", "relax", "softmax_layer_grad"):
        svg = (out / "pictures" / f"{name}.svg").read_text()
        assert "<svg" in svg and "fused kernel" in svg
    assert "jitaic.api.jit" in (out / "api" / "index.html").read_text()


def test_every_supported_entry_is_called_by_the_op_table() -> None:
    entries = supported_numpy.entries()
    untested = [e.name for e in entries if not e.rows]
    assert not untested, f"supported but no op-table row calls them: {untested}"
    names = {r.name for r in supported_numpy.op_table().ROWS}
    assert all(set(e.rows) <= names for e in entries)


def test_supported_page_reads_the_dispatch_tables() -> None:
    by_name = {e.name: e for e in supported_numpy.entries()}
    assert by_name["np.exp"].gradient == "yes" and "exp" in by_name["np.exp"].rows
    assert by_name["np.floor"].gradient == "-"  # a step function: no gradient checked
    assert by_name["np.argmax"].gradient == "n/a"  # integer results
    assert by_name["np.absolute"].aliases == ["np.abs"]
    assert by_name["np.linalg.solve"].section == "Linear algebra"
    assert by_name["np.sum"].section == "Reductions"
    assert by_name["np.where"].section == "Indexing"
    assert {"ndarray.sum", "ndarray.T", "ndarray.shape", "np.add.accumulate"} <= set(by_name)
    assert "np.random" not in by_name and "np.packbits" not in by_name
    # a row that calls only the method x.copy() does not cover np.copy
    assert "method_copy" not in by_name["np.copy"].rows
    page = supported_numpy.page()
    assert f"jitaic traces these {len(by_name)} NumPy functions" in page
    assert "| `np.exp` |  | yes |" in page
    assert page.index("## Ufuncs and operators") < page.index("## Linear algebra")


def test_supported_page_matches_what_the_tracer_accepts() -> None:
    """Each listed np.* function is one NumPy dispatches to jitaic (or a
    constructor jitaic replaces); a function not listed is refused."""
    import jitaic
    from jitaic.tracer import numpy_proxy
    from jitaic.tracer.numpy import registry

    handled = {f"np.{f.__name__}" for f in registry.FUNCTIONS}
    handled |= {f"np.{n}" for n in numpy_proxy._OVERRIDES}
    listed = {e.name for e in supported_numpy.entries()}
    for name in listed:
        if name.startswith("np.") and name.count(".") == 1 and not name.endswith("accumulate"):
            ufunc = getattr(np, name[3:])
            assert name in handled or isinstance(ufunc, np.ufunc), name
    with pytest.raises(jitaic.UnsupportedError, match=r"np\.packbits"):
        jitaic.jit(lambda x: np.packbits(x > 0), callbacks=False)(np.ones(3))


def test_readme_is_short_and_links_exist() -> None:
    text = PAGES[0].read_text()
    assert len(text.splitlines()) <= 150
    for link in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / link).exists(), link


_SHELL_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)


def _commands() -> list[tuple[str, str]]:
    """(page, command) for every command of every ```bash block."""
    found = []
    for page in PAGES:
        for block in _SHELL_BLOCK.findall(page.read_text()):
            for line in block.splitlines():
                command = line.split("#", 1)[0].strip()
                found += [(page.name, part.strip()) for part in command.split("&&")
                          if part.strip()]
    return found


def test_shell_blocks_name_scripts_and_modules_that_exist() -> None:
    """Shell blocks are not run (installs, minutes-long benchmarks), but every
    script, module and extra they name exists: a renamed file breaks here."""
    import importlib.util

    pyproject = (ROOT / "pyproject.toml").read_text()
    section = pyproject.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    extras = set(re.findall(r"^(\w+) = ", section, re.M))
    assert {"test", "docs", "graph"} <= extras
    checked = 0
    for page, command in _commands():
        words = [w for w in command.split() if "=" not in w or w.startswith("-")]
        if words[:1] == ["pip"]:
            for extra in re.findall(r"\.\[(\w+)\]", command):
                assert extra in extras, (page, command)
            checked += 1
        elif "-m" in words:
            module = words[words.index("-m") + 1]
            assert importlib.util.find_spec(module) is not None, (page, command)
            checked += 1
        elif words[:1] in (["python"], ["nice"]):
            script = next(w for w in words if w.endswith(".py"))
            assert (ROOT / script).exists() or script == "my_script.py", (page, command)
            checked += 1
    assert checked >= 15
