"""The persistent cache (jitaic/lower/disk_cache.py): deterministic sources,
entries loaded across processes, verified before use, private to the user,
bounded in size, shared safely by processes compiling at once."""

from __future__ import annotations

import json
import logging
import os
import re
import stat
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from helpers import assert_same

import jitaic
from jitaic import config
from jitaic.lower import disk_cache

TESTS = os.path.dirname(os.path.abspath(__file__))


def _run(code: str, cache: str, **env: str) -> subprocess.CompletedProcess:
    """``code`` as a script in a fresh interpreter using the cache directory
    ``cache`` (a file: the AST frontend reads the functions' source)."""
    script = os.path.join(os.path.dirname(cache), f"script_{abs(hash(code))}.py")
    with open(script, "w") as file:
        file.write(textwrap.dedent(code))
    environment = dict(os.environ, JITAIC_CACHE_DIR=cache, **env)
    return subprocess.run([sys.executable, script], env=environment, capture_output=True,
                          text=True, timeout=600, check=True)


def _product_and_sum(x, w):
    return np.tanh(x @ w).sum(axis=0) + np.exp(x).mean()


def _args():
    rng = np.random.default_rng(3)
    return rng.random((6, 4)), rng.random((4, 3))


def _compile(root: str):
    """A fresh jitted function called once with the cache in ``root``: (its
    result, whether the machine code came from disk)."""
    f = jitaic.jit(_product_and_sum)
    with config.override(cache_dir=root):
        result = f(*_args())
    return result, f.specializations()[0].from_disk


def _entry(root: str) -> str:
    (entry,) = [e.path for e in os.scandir(root) if e.is_dir()]
    return entry


def _files(entry: str) -> dict[str, str]:
    """The entry's files by kind: py, nbi, nbc, manifest."""
    found = {}
    for folder, _, names in os.walk(entry):
        for name in names:
            kind = "manifest" if name == "manifest.json" else name.rsplit(".", 1)[-1]
            found.setdefault(kind, os.path.join(folder, name))
    return found


def test_generated_sources_are_the_same_in_every_process() -> None:
    # the op table, the program corpus, their gradients, products, LAPACK and
    # control flow, rendered in two processes with different hash seeds
    script = os.path.join(TESTS, "render_sources.py")
    runs = [subprocess.run([sys.executable, script], capture_output=True, text=True,
                           check=True, env=dict(os.environ, PYTHONHASHSEED=seed)).stdout
            for seed in ("1", "2")]
    first, second = (json.loads(run) for run in runs)
    assert len(first) > 700
    assert first == second


def test_a_new_process_loads_products_lapack_loops_and_gradients(tmp_path) -> None:
    code = """
        import numpy as np, jitaic
        def chain(x, w):
            return np.tanh(x @ w).sum(axis=0), x.T @ x[:, 0]
        def solve(a):
            return np.linalg.solve(a, np.ones(a.shape[0])), np.linalg.cholesky(a @ a.T)
        def loop(x):
            while x.sum() < 100.0:
                x = x * 1.5 + 1.0
            return x
        def loss(w, x):
            return np.sum(np.tanh(x @ w) ** 2)
        def loop_loss(w, y):  # its gradient keeps a tape
            total = 0.0
            while total < 20.0:
                y = np.tanh(y * w + 0.5)
                total += y.mean()
            return np.sum(y)
        rng = np.random.default_rng(0)
        x, w, a = rng.random((8, 4)), rng.random((4, 3)), rng.random((5, 5)) + 5 * np.eye(5)
        for f, args in ((chain, (x, w)), (solve, (a,)), (loop, (x,)),
                        (jitaic.grad(loss), (w, x)), (jitaic.grad(loop_loss), (x[0], x[1]))):
            g = jitaic.jit(f)
            g(*args)
            print(int(g.specializations()[0].from_disk), end="")
    """
    root = str(tmp_path / "cache")
    assert _run(code, root).stdout == "00000"
    assert _run(code, root).stdout == "11111"
    assert _run("import jitaic.cache as c; print(c.info()['loads'])", root).stdout == "5\n"


def test_import_jitaic_loads_no_compiler(tmp_path) -> None:
    # numba, LLVM and scipy load on the first compile, not on import (~0.4 s);
    # autodiff, the AST frontend (astor) and dask support on first use
    code = """
        import sys
        import jitaic
        print(sorted(m for m in ("numba", "llvmlite", "scipy", "astor", "jitaic.autodiff",
                                 "jitaic.scale.dask_arrays") if m in sys.modules))
        jitaic.grad
        print("jitaic.autodiff" in sys.modules, "grad" in dir(jitaic))
    """
    assert _run(code, str(tmp_path / "cache")).stdout == "[]\nTrue True\n"


def test_entries_are_private_and_listed_with_hashes(tmp_path) -> None:
    root = str(tmp_path / "cache")
    _compile(root)
    entry = _entry(root)
    for folder, _, names in os.walk(root):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
        for name in names:
            assert stat.S_IMODE(os.stat(os.path.join(folder, name)).st_mode) == 0o600
    manifest = json.loads(open(os.path.join(entry, "manifest.json")).read())
    assert set(_files(entry)) == {"py", "nbi", "nbc", "manifest", "lock"}
    assert manifest["versions"]["jitaic"] == jitaic.__version__
    assert len(manifest["files"]) == 3 and manifest["compiles"] == 1
    assert _compile(root)[1]  # the next function with this source loads it


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
@pytest.mark.parametrize("kind", ["py", "nbi", "nbc", "manifest"])
def test_a_damaged_entry_is_replaced_with_one_warning(tmp_path, kind, damage) -> None:
    root = str(tmp_path / "cache")
    expected, _ = _compile(root)
    path = _files(_entry(root))[kind]
    data = open(path, "rb").read()
    replaced = {"truncate": data[: len(data) // 2], "garbage": os.urandom(len(data)),
                "empty": b""}[damage]
    with open(path, "wb") as file:
        file.write(replaced)
    disk_cache._warned.clear()
    with pytest.warns(disk_cache.CacheWarning, match="damaged, foreign or outdated"):
        result, from_disk = _compile(root)
    assert not from_disk
    assert_same(result, expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _compile(root)[1]  # whole again: loaded, no warning


def test_swapped_machine_code_is_not_loaded(tmp_path) -> None:
    # an entry's .nbc replaced by another entry's (valid numba data, wrong code)
    root = str(tmp_path / "cache")
    expected, _ = _compile(root)
    first = _entry(root)
    f = jitaic.jit(lambda x: x * 2.0)
    with config.override(cache_dir=root):
        f(np.ones(3))
    (second,) = [e.path for e in os.scandir(root) if e.path != first]
    with open(_files(first)["nbc"], "wb") as file:
        file.write(open(_files(second)["nbc"], "rb").read())
    disk_cache._warned.clear()
    with pytest.warns(disk_cache.CacheWarning):
        result, from_disk = _compile(root)
    assert not from_disk
    assert_same(result, expected)


def test_a_directory_others_can_write_is_not_used(tmp_path) -> None:
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    os.chmod(root, 0o770)
    disk_cache._warned.clear()
    with pytest.warns(disk_cache.CacheWarning, match="writable by nobody else"):
        result, from_disk = _compile(str(root))
    assert not from_disk and os.listdir(root) == []
    assert_same(result, _product_and_sum(*_args()))


def test_a_file_others_can_write_is_replaced(tmp_path) -> None:
    root = str(tmp_path / "cache")
    _compile(root)
    os.chmod(_files(_entry(root))["nbc"], 0o666)
    disk_cache._warned.clear()
    with pytest.warns(disk_cache.CacheWarning):
        assert not _compile(root)[1]
    assert stat.S_IMODE(os.stat(_files(_entry(root))["nbc"]).st_mode) == 0o600


def _replaced_without_warnings(root: str) -> None:
    """The next compile replaces the entry, and the one after loads it silently."""
    disk_cache._warned.clear()
    with pytest.warns(disk_cache.CacheWarning, match="damaged, foreign or outdated"):
        assert not _compile(root)[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _compile(root)[1]


def test_an_entry_directory_others_can_write_is_replaced(tmp_path) -> None:
    root = str(tmp_path / "cache")
    _compile(root)
    os.chmod(_entry(root), 0o770)
    _replaced_without_warnings(root)
    assert stat.S_IMODE(os.stat(_entry(root)).st_mode) == 0o700


def test_a_symlinked_entry_is_replaced_and_its_target_left_alone(tmp_path) -> None:
    root = str(tmp_path / "cache")
    _compile(root)
    entry = _entry(root)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "notes.txt").write_text("keep me")
    for name in os.listdir(entry):  # the entry's files, moved behind a link
        os.rename(os.path.join(entry, name), victim / name)
    os.rmdir(entry)
    os.symlink(victim, entry)
    _replaced_without_warnings(root)
    assert not os.path.islink(entry) and (victim / "notes.txt").read_text() == "keep me"


def test_a_compile_cut_short_is_cleared_without_a_warning(tmp_path) -> None:
    """A process that ended after writing an entry's source and before its
    manifest (Ctrl-C, or the end of a script during a background compile)."""
    root = str(tmp_path / "cache")
    _compile(root)
    os.unlink(_files(_entry(root))["manifest"])
    disk_cache._warned.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not _compile(root)[1]
        assert _compile(root)[1]


def test_missing_parents_of_the_cache_directory_are_private(tmp_path) -> None:
    root = tmp_path / "home" / ".cache" / "jitaic"
    old = os.umask(0)
    try:
        assert disk_cache.usable_root(str(root))
    finally:
        os.umask(old)
    for folder in (root, root.parent, root.parent.parent):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a file to another user needs root")
def test_files_of_another_user_are_not_loaded(tmp_path) -> None:
    root = str(tmp_path / "cache")
    _compile(root)
    os.chown(_files(_entry(root))["nbi"], 12345, -1)
    disk_cache._warned.clear()
    with pytest.warns(disk_cache.CacheWarning):
        assert not _compile(root)[1]
    os.chown(root, 12345, -1)
    with pytest.warns(disk_cache.CacheWarning, match="owned by this user"):
        assert not _compile(root)[1]


def test_user_text_never_becomes_code(tmp_path) -> None:
    # a function name and a file name with line breaks end up in comments
    marker = tmp_path / "ran"
    payload = f'\n__import__("pathlib").Path({str(marker)!r}).touch()\n'
    namespace: dict = {"np": np}
    exec(compile("def f(x):\n    return np.exp(x) + 1.0\n", f"user{payload}.py", "exec"),
         namespace)
    fn = namespace["f"]
    fn.__name__ = fn.__qualname__ = f'f"""{payload}"""'
    for root in (str(tmp_path / "cache"), "off"):
        f = jitaic.jit(fn)
        with config.override(cache_dir=root):
            assert_same(f(np.ones(3)), np.exp(np.ones(3)) + 1.0)
        assert not marker.exists()
        assert "\\n__import__" in f.lower(np.ones(3)).source()


def test_processes_compiling_at_once_write_each_entry_once(tmp_path) -> None:
    code = """
        import numpy as np, jitaic
        f = jitaic.jit(lambda x: np.sqrt(x).sum() + x.max())
        x = np.arange(1000.0)
        assert f(x) == np.sqrt(x).sum() + x.max()
        print(int(f.specializations()[0].from_disk))
    """
    root = str(tmp_path / "cache")
    environment = dict(os.environ, JITAIC_CACHE_DIR=root)
    started = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=environment,
                                stdout=subprocess.PIPE, text=True) for _ in range(4)]
    loaded = [int(p.communicate(timeout=600)[0]) for p in started]
    assert [p.returncode for p in started] == [0] * 4
    assert sorted(loaded) == [0, 1, 1, 1]
    manifest = json.loads(open(os.path.join(_entry(root), "manifest.json")).read())
    assert (manifest["compiles"], manifest["loads"]) == (1, 3)


def test_size_bound_evicts_least_recently_used(tmp_path) -> None:
    root = str(tmp_path / "cache")
    with config.override(cache_dir=root):
        for k in range(3):
            jitaic.jit(lambda x: x * 2.0)(np.ones(k + 1))  # three entries
    entries = [e.path for e in os.scandir(root)]
    for age, entry in enumerate(entries):  # entries[0] used longest ago
        os.utime(os.path.join(entry, "manifest.json"), (1e9 + age, 1e9 + age))
    total = disk_cache.summary(root)["bytes"]
    assert disk_cache.summary(root)["entries"] == 3
    assert disk_cache.evict(root, total - 1) == 1
    assert not os.path.exists(os.path.join(entries[0], "manifest.json"))
    assert disk_cache.summary(root)["entries"] == 2
    assert disk_cache.clear(root) == 2 and disk_cache.summary(root)["entries"] == 0


def test_off_writes_nothing_and_default_follows_the_platform(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert config.default_cache_dir() == str(tmp_path / "xdg" / "jitaic")
    def refuse(*_):
        raise AssertionError("the disk cache was used with JITAIC_CACHE_DIR=off")

    monkeypatch.setattr(disk_cache, "load_or_compile", refuse)
    for off in ("off", "OFF", "0", ""):
        with config.override(cache_dir=off):
            assert disk_cache.directory() is None
            f = jitaic.jit(_product_and_sum)
            assert_same(f(*_args()), _product_and_sum(*_args()))
            assert not f.specializations()[0].from_disk


def test_command_line_shows_and_clears(tmp_path) -> None:
    root = str(tmp_path / "cache")
    _compile(root)
    _compile(root)
    shown = _run("import sys, jitaic.cache as c; sys.exit(c.main([]))", root).stdout
    assert f"directory:  {root}" in shown
    assert "entries:    1 (1 of this version)" in shown
    assert "loads:      1, compiles: 1 (hit rate 50%)" in shown
    cleared = _run("import sys, jitaic.cache as c; sys.exit(c.main(['--clear']))", root)
    assert cleared.stdout == f"deleted 1 entries from {root}\n"
    assert disk_cache.summary(root)["entries"] == 0 and os.listdir(root) == []


def test_prune_and_clear_touch_nothing_but_entries(tmp_path) -> None:
    """JITAIC_CACHE_DIR=~/.cache (without /jitaic) must not cost other tools
    their caches; a directory others may write is not pruned at all."""
    root = tmp_path / "cache"
    (root / "pip" / "http").mkdir(parents=True, mode=0o700)
    (root / "notes.txt").write_text("keep")
    os.chmod(root, 0o700)
    assert disk_cache.prune(str(root)) == 0 and disk_cache.clear(str(root)) == 0
    assert sorted(os.listdir(root)) == ["notes.txt", "pip"]
    os.chmod(root, 0o770)
    with pytest.raises(subprocess.CalledProcessError) as refused:
        _run("import sys, jitaic.cache as c; sys.exit(c.main(['--prune']))", str(root))
    assert "nothing deleted" in refused.value.stderr


_DISK_CACHE_SCRIPT = """
import numpy as np, jitaic

def softmax_sum(x, w):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).sum(), np.tanh(x * w).sum(axis=0)

f = jitaic.jit(softmax_sum)
x = np.random.default_rng(0).standard_normal((600, 300))
total, columns = f(x, 0.5)
spec = f.specializations()[0]
print(spec.from_disk, repr(float(total)), repr(float(columns[7])))
"""


def test_disk_cache_loads_a_later_process_s_specialisation(tmp_path) -> None:
    """With JITAIC_CACHE_DIR a second process compiling the same function for
    the same argument types loads the machine code (parallel row loop, buffer
    cache, vectorised math) and computes the same results."""
    env = {**os.environ, "JITAIC_CACHE_DIR": str(tmp_path / "cache")}

    def run() -> list[str]:
        done = subprocess.run([sys.executable, "-c", _DISK_CACHE_SCRIPT], env=env,
                              capture_output=True, text=True, check=True)
        return done.stdout.split()

    first, second = run(), run()
    assert first[0] == "False" and second[0] == "True", (first, second)
    assert first[1:] == second[1:]
    assert list((tmp_path / "cache").glob("*/jitaic_*.py"))
    stale = tmp_path / "cache" / ("0" * 32)  # an entry of an older format: no lock
    (stale / "__pycache__").mkdir(parents=True)
    first = tmp_path / "cache" / "__pycache__"  # the first format's numba files
    first.mkdir()
    (first / f"jitaic_{'1' * 32}.f-1.py311.nbi").write_bytes(b"")
    assert disk_cache.prune(str(tmp_path / "cache")) == 2
    assert not stale.exists() and not first.exists()
    assert list((tmp_path / "cache").glob("*/jitaic_*.py"))  # the current version's stay


def test_an_unwritable_cache_directory_warns_and_compiles(tmp_path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    f = jitaic.jit(_product_and_sum)
    disk_cache._warned.clear()
    with jitaic.config.override(cache_dir=str(blocker / "cache")):
        with pytest.warns(disk_cache.CacheWarning, match="cannot be created"):
            got = f(*_args())
    assert_same(got, _product_and_sum(*_args()))
    assert not f.specializations()[0].from_disk


def test_compiles_and_loads_are_logged_and_counted(tmp_path, caplog) -> None:
    root = str(tmp_path / "cache")
    messages = []
    for _ in range(2):
        f = jitaic.jit(_product_and_sum)
        with caplog.at_level(logging.INFO, logger="jitaic"), \
                config.override(cache_dir=root, debug=1):
            f(*_args())
        messages.append(caplog.records[-1].getMessage())
        caplog.clear()
        info = f.cache_info()
        assert info.misses == info.compiled + info.loaded == 1
    assert info.loaded == 1
    assert re.fullmatch(r"compiled _product_and_sum for \(f64\[6,4\], f64\[4,3\]\) in "
                        r"[\d.]+ s \(trace [\d.]+, numba typing [\d.]+, LLVM [\d.]+\)",
                        messages[0]), messages[0]
    assert re.fullmatch(r"loaded _product_and_sum for \(f64\[6,4\], f64\[4,3\]\) from the "
                        r"disk cache in \d+ ms \(traced in [\d.]+ s\)", messages[1]), messages[1]


def test_a_name_with_a_newline_cannot_forge_a_log_line(caplog) -> None:
    def f(x):
        return x + 1.0

    f.__qualname__ = "f\njitaic: loaded evil"
    with caplog.at_level(logging.INFO, logger="jitaic"), \
            config.override(debug=1, cache_dir="off"):  # compiled, not loaded
        jitaic.jit(f)(np.ones(2))
    (message,) = [r.getMessage() for r in caplog.records if "compiled" in r.getMessage()]
    assert message.startswith("compiled 'f\\njitaic: loaded evil' for (f64[2])")


def test_prune_spares_an_entry_another_process_is_writing(tmp_path) -> None:
    # an entry being compiled has its lock held and no manifest yet; a suite
    # starting meanwhile prunes other versions' entries, not this one
    root = str(tmp_path / "cache")
    _compile(root)
    entry = _entry(root)
    os.unlink(os.path.join(entry, "manifest.json"))  # as before the first write ends
    with disk_cache._locked(entry):
        assert disk_cache.prune(root) == 0
    assert os.path.exists(_files(entry)["nbc"])
    assert disk_cache.prune(root) == 1 and os.listdir(entry) == ["lock"]


def test_the_code_stamp_covers_every_module_of_the_code_generator() -> None:
    """An edit to any lowering rule must retire the kernels compiled before it."""
    names = {name for name, _ in disk_cache._stamped_files()}
    assert {"compile.py", "codegen.py", "kernels/scalar.py", "kernels/indexing.py",
            "kernels/__init__.py"} <= names
    lower = os.path.dirname(disk_cache.__file__)
    on_disk = {os.path.relpath(os.path.join(d, f), lower).replace(os.sep, "/")
               for d, _, files in os.walk(lower) for f in files if f.endswith(".py")}
    assert names == on_disk
