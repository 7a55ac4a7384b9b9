"""Compiled specialisations kept on disk across processes: on by default,
verified before use, private to the user, bounded in size.

Layout of the cache directory (``config.cache_directory()``)::

    <root>/                   0700, owned by the user
      <key>/                  one entry per generated module
        jitaic_<key>.py       the module's source (key: hash of it and of _code_stamp)
        __pycache__/          numba's index (.nbi) and machine code (.nbc) for it
        manifest.json         versions, size and SHA-256 of every file above, loads
        lock                  held (flock) while the entry is checked, compiled or written

Generated source is a pure function of the graph, the argument types and
jitaic's code (no addresses or counters of a process), so a later process
generating the same module finds its entry, and numba's own ``cache=True``
loads the machine code instead of compiling it (the first call of a parallel
sum: ~2 s compiled, a few tens of ms loaded). numba keys its index by the CPU
and its features as well: another machine compiles and adds its own code to
the entry.

Nothing is read before it is verified. An entry is used only when its
manifest matches the versions of this process and every file it lists has
the recorded size and hash, is owned by the user and is writable by nobody
else; anything else (truncated, damaged, swapped or foreign files) is
deleted with one warning and compiled again. A root directory owned by
another user or writable by group or others is not used at all (one warning;
specialisations compile in memory). Writes are atomic (a temporary file
renamed into place) and made under the entry's lock, so processes compiling
the same function at once wait for the first and load what it wrote.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import pathlib
import shutil
import stat
import sys
import threading
import types
import warnings

import llvmlite
import numba
import numpy as np
from numba.core import caching

from jitaic import config
from jitaic.errors import user_stacklevel

try:
    import fcntl
except ImportError:  # Windows: entries are written atomically, but not locked
    fcntl = None

FORMAT = 1
MANIFEST = "manifest.json"
LOCK = "lock"


class CacheWarning(UserWarning):
    """The disk cache was not used, or an entry of it was replaced."""


def _stamped_files() -> list[tuple[str, pathlib.Path]]:
    """The code generator's modules (kernels/ and any subpackage included),
    by their path under jitaic/lower."""
    lower = pathlib.Path(__file__).parent
    return sorted((p.relative_to(lower).as_posix(), p) for p in lower.rglob("*.py"))


@functools.cache
def _code_stamp() -> str:
    """What compiled code depends on besides its own source."""
    digest = hashlib.sha256()
    for name, path in _stamped_files():
        digest.update(name.encode())
        digest.update(path.read_bytes())
    digest.update(repr(_versions()).encode())
    return digest.hexdigest()


@functools.cache
def _versions() -> dict[str, str]:
    import jitaic

    return {"jitaic": jitaic.__version__, "numba": numba.__version__,
            "llvmlite": llvmlite.__version__, "numpy": np.__version__,
            "python": sys.version, "format": str(FORMAT)}


_warned: set[str] = set()
_warn_lock = threading.Lock()


def _warn_once(topic: str, message: str) -> None:
    with _warn_lock:
        if topic in _warned:
            return
        _warned.add(topic)
    warnings.warn(message, CacheWarning, stacklevel=user_stacklevel())


# ---------------------------------------------------------------- trust checks

def _private(info: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else."""
    owner = getattr(os, "getuid", lambda: info.st_uid)()
    return info.st_uid == owner and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _make_private_dirs(path: str) -> None:
    """``os.makedirs`` with every directory it creates 0700, the parents too
    (XDG's rule for a missing cache directory; makedirs gives parents the
    umask's mode)."""
    missing = []
    while path and not os.path.lexists(path):
        missing.append(path)
        path = os.path.dirname(path)
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it
            os.mkdir(folder, 0o700)


def usable_root(root: str) -> bool:
    """Create ``root`` (0700) if needed; whether it may be trusted and written.
    Warns once per directory when it may not."""
    try:
        _make_private_dirs(root)
        info = os.stat(root)
    except OSError as exc:
        _warn_once(f"root:{root}", f"jitaic's cache directory {root!r} cannot be created "
                   f"({exc}); compiling in memory (JITAIC_CACHE_DIR moves it, "
                   f"JITAIC_CACHE_DIR=off turns it off)")
        return False
    if not stat.S_ISDIR(info.st_mode) or not _private(info) or not os.access(root, os.W_OK):
        _warn_once(f"root:{root}", f"jitaic's cache directory {root!r} is not a directory "
                   f"owned by this user and writable by nobody else; compiling in memory "
                   f"(JITAIC_CACHE_DIR moves it, JITAIC_CACHE_DIR=off turns it off)")
        return False
    return True


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _entry_files(entry: str, stem: str) -> list[str]:
    """The files of an entry, relative to it: the module and numba's files for it."""
    files = [f"{stem}.py"]
    pycache = os.path.join(entry, "__pycache__")
    if os.path.isdir(pycache):
        files += sorted(f"__pycache__/{name}" for name in os.listdir(pycache)
                        if name.startswith(stem + ".") and name.endswith((".nbi", ".nbc")))
    return files


def _read_manifest(entry: str) -> dict | None:
    path = os.path.join(entry, MANIFEST)
    try:
        if not _private(os.lstat(path)):
            return None
        with open(path, "rb") as file:
            manifest = json.loads(file.read())
        return manifest if isinstance(manifest, dict) else None
    except (OSError, ValueError):
        return None


def _verified(entry: str, stem: str, manifest: dict | None) -> bytes | None:
    """The module's source when the entry is whole and ours, else None."""
    if manifest is None or manifest.get("versions") != _versions() \
            or manifest.get("stamp") != _code_stamp():
        return None
    files = manifest.get("files")
    if not isinstance(files, dict) or set(files) != set(_entry_files(entry, stem)):
        return None  # a file missing, or one numba would read that nobody checked
    folders = [entry, *([os.path.join(entry, "__pycache__")] if len(files) > 1 else [])]
    try:
        if not all(_private(os.lstat(folder)) for folder in folders):
            return None
    except OSError:
        return None
    source = None
    for name, record in files.items():
        path = os.path.join(entry, name)
        try:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or not _private(info):
                return None
            with open(path, "rb") as file:
                data = file.read()
        except OSError:
            return None
        if [len(data), _digest(data)] != record:
            return None
        if name == f"{stem}.py":
            source = data
    return source


def _write_private(path: str, data: bytes) -> None:
    """Atomically: a temporary file (0600) renamed onto ``path``."""
    partial = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def _record(entry: str, stem: str, loads: int, compiles: int) -> None:
    """Write the manifest of the files the entry holds now (made private first)."""
    files = {}
    pycache = os.path.join(entry, "__pycache__")
    if os.path.isdir(pycache):
        os.chmod(pycache, 0o700)
    for name in _entry_files(entry, stem):
        path = os.path.join(entry, name)
        os.chmod(path, 0o600)  # numba writes with the process's umask
        with open(path, "rb") as file:
            data = file.read()
        files[name] = [len(data), _digest(data)]
    manifest = {"versions": _versions(), "stamp": _code_stamp(), "files": files,
                "loads": loads, "compiles": compiles}
    _write_private(os.path.join(entry, MANIFEST), json.dumps(manifest).encode())


def is_entry_name(name: str) -> bool:
    """An entry's directory name: 32 hex digits of its key."""
    return len(name) == 32 and all(c in "0123456789abcdef" for c in name)


def _own_entry(entry: str) -> None:
    """``entry`` as a directory this user owns and nobody else may write: a
    symlink (never followed), a file, or a directory another user owns or
    others may write that stands there is deleted first (one warning)."""
    try:
        info = os.lstat(entry)
    except FileNotFoundError:
        with contextlib.suppress(FileExistsError):  # another process made it
            os.mkdir(entry, 0o700)
        return
    if stat.S_ISDIR(info.st_mode) and _private(info):
        return
    _warn_once("damaged", f"jitaic's cache held damaged, foreign or outdated files (first: "
                          f"{entry!r}); they were deleted and compiled again")
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(entry)
    else:
        os.unlink(entry)
    os.mkdir(entry, 0o700)


def _clear_entry(entry: str) -> None:
    """Delete everything of an entry but its lock (another process may wait on it)."""
    for item in os.scandir(entry):
        if item.name == LOCK:
            continue
        if item.is_dir(follow_symlinks=False):
            shutil.rmtree(item.path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(item.path)


@contextlib.contextmanager
def _locked(entry: str, blocking: bool = True):
    """Hold the entry's lock; yields False when ``blocking`` is off and another
    process holds it."""
    descriptor = os.open(os.path.join(entry, LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is None:
            yield True
            return
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(descriptor)  # releases the lock


# ---------------------------------------------------------------- load or compile

def _module(name: str, path: str, source: bytes) -> types.ModuleType:
    """The generated module, executed from ``source`` (the verified bytes; never
    re-read from disk, and no ``.pyc`` is written)."""
    module = sys.modules.get(name)
    if module is not None and module.__file__ == path:
        return module  # numba finds its cache beside the module's file
    module = types.ModuleType(name)
    module.__file__ = path
    exec(compile(source, path, "exec"), module.__dict__)
    # numba names a function's environment after its module and imports that
    # module again when it loads the cached code
    sys.modules[name] = module
    return module


class _EntryCacheImpl(caching.CompileResultCacheImpl):
    # numba's files go beside the module, in the entry the manifest covers,
    # whatever NUMBA_CACHE_DIR says
    _locator_classes = [getattr(caching, "InTreeCacheLocator", None)
                        or caching._InTreeCacheLocator]


class _EntryCache(caching.FunctionCache):
    _impl_class = _EntryCacheImpl


def _njit(fn, signature: tuple, parallel: bool):
    """numba's dispatcher for ``fn`` with its machine code cached in the entry
    (compiled, or loaded, for ``signature``)."""
    dispatcher = numba.njit(error_model="numpy", parallel=parallel)(fn)
    cache = _EntryCache(fn)
    pycache = os.path.join(os.path.dirname(fn.__code__.co_filename), "__pycache__")
    if cache.cache_path != pycache:  # NUMBA_CACHE_LOCATOR_CLASSES overrides ours
        raise OSError(f"numba caches elsewhere ({cache.cache_path!r})")
    dispatcher._cache = cache
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba.NumbaWarning)  # "cannot cache": compiles
        dispatcher.compile(signature)
    return dispatcher


def load_or_compile(root: str, source: str, fn_name: str, signature: tuple,
                    parallel: bool):
    """(numba's dispatcher for ``fn_name`` of the module ``source``, compiled for
    ``signature`` or loaded from the cache in ``root``; whether it was loaded;
    the module's path). None when ``root`` may not be used."""
    if not usable_root(root):
        return None
    key = _digest((_code_stamp() + source).encode())[:32]
    stem, entry = f"jitaic_{key}", os.path.join(root, key)
    path = os.path.join(entry, f"{stem}.py")
    try:
        _own_entry(entry)
        with _locked(entry):
            manifest = _read_manifest(entry)
            verified = _verified(entry, stem, manifest)
            if verified is None:
                if os.path.lexists(os.path.join(entry, MANIFEST)):
                    _warn_once("damaged", f"jitaic's cache held damaged, foreign or "
                               f"outdated files (first: {entry!r}); they were deleted "
                               f"and compiled again")
                # without a manifest: a compile cut short (the process ended
                # after writing the source), cleared without a word
                _clear_entry(entry)
                _write_private(path, source.encode())
                manifest = {}
            module = _module(f"jitaic_generated_{key}", path, verified or source.encode())
            dispatcher = _njit(getattr(module, fn_name), signature, parallel)
            loaded = bool(dispatcher.stats.cache_hits)
            _record(entry, stem, int(manifest.get("loads", 0)) + loaded,
                    int(manifest.get("compiles", 0)) + (not loaded))
    except OSError as exc:
        _warn_once(f"write:{root}", f"jitaic's cache directory {root!r} cannot be "
                   f"written ({exc}); compiling in memory")
        return None
    if not loaded:
        evict(root, int(config.get("cache_mb")) << 20, keep=key)
    return dispatcher, loaded, path


# ---------------------------------------------------------------- size, inspection

def _entries(root: str) -> list[os.DirEntry]:
    """The entries that hold something (an evicted one keeps its lock file)."""
    if not os.path.isdir(root):
        return []
    return [item for item in os.scandir(root)
            if item.is_dir(follow_symlinks=False) and is_entry_name(item.name)
            and os.path.exists(os.path.join(item.path, MANIFEST))]


def _size(entry: str) -> int:
    total = 0
    for folder, _, names in os.walk(entry):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(folder, name)).st_size
    return total


def _last_use(entry: str) -> float:
    try:
        return os.stat(os.path.join(entry, MANIFEST)).st_mtime  # rewritten on each use
    except OSError:
        return 0.0


def evict(root: str, limit_bytes: int, keep: str = "") -> int:
    """Delete least recently used entries until the cache holds at most
    ``limit_bytes`` (never ``keep``, nor an entry another process holds);
    returns how many went."""
    entries = sorted(_entries(root), key=lambda e: _last_use(e.path))
    sizes = {e.name: _size(e.path) for e in entries}
    total, evicted = sum(sizes.values()), 0
    for item in entries:
        if total <= limit_bytes:
            break
        if item.name == keep:
            continue
        with _locked(item.path, blocking=False) as held:
            if held:  # the empty directory and its lock stay: another process may wait
                _clear_entry(item.path)
                total -= sizes[item.name]
                evicted += 1
    return evicted


def prune(root: str) -> int:
    """Delete what other versions of jitaic (or of its dependencies) wrote in
    ``root``, a directory jitaic owns; returns how many entries went. An entry
    another process holds (compiling: no manifest yet) stays, as in ``evict``;
    one without a lock is of an older format and goes, as do the first
    format's modules (``jitaic_<key>.py`` and numba's files for them in
    ``__pycache__``, in ``root`` itself). Nothing else is touched: ``root``
    may hold other tools' files."""
    if not os.path.isdir(root):
        return 0
    pruned = 0
    for item in os.scandir(root):
        if _first_format(item):
            if item.is_dir(follow_symlinks=False):
                shutil.rmtree(item.path, ignore_errors=True)
            else:
                os.unlink(item.path)
            pruned += 1
            continue
        if not item.is_dir(follow_symlinks=False) or not is_entry_name(item.name) \
                or os.listdir(item.path) == [LOCK] \
                or (_read_manifest(item.path) or {}).get("stamp") == _code_stamp():
            continue
        if not os.path.exists(os.path.join(item.path, LOCK)):
            shutil.rmtree(item.path, ignore_errors=True)
            pruned += 1
            continue
        with _locked(item.path, blocking=False) as held:
            if held:
                _clear_entry(item.path)
                pruned += 1
    return pruned


def _first_format(item: os.DirEntry) -> bool:
    """A module of the first format (a file in the root), or the folder of
    numba's files for such modules."""
    def module_file(name: str) -> bool:
        return name.startswith("jitaic_") and is_entry_name(name[7:39])

    if item.is_dir(follow_symlinks=False):
        names = os.listdir(item.path) if item.name == "__pycache__" else []
        return bool(names) and all(map(module_file, names))
    return item.is_file(follow_symlinks=False) and module_file(item.name) \
        and item.name[39:] == ".py"


def summary(root: str) -> dict[str, object]:
    """Location, size, entries and the loads and compiles recorded in them."""
    entries = _entries(root)
    manifests = [_read_manifest(e.path) or {} for e in entries]
    loads = sum(int(m.get("loads", 0)) for m in manifests)
    compiles = sum(int(m.get("compiles", 0)) for m in manifests)
    return {"directory": root, "entries": len(entries),
            "bytes": sum(_size(e.path) for e in entries),
            "limit_bytes": int(config.get("cache_mb")) << 20,
            "current": sum(m.get("stamp") == _code_stamp() for m in manifests),
            "loads": loads, "compiles": compiles,
            "hit_rate": loads / (loads + compiles) if loads + compiles else 0.0,
            "last_use": max((_last_use(e.path) for e in entries), default=None)}


def clear(root: str) -> int:
    """Delete every entry no process is using, and the locks of emptied ones;
    returns how many entries went."""
    cleared = evict(root, -1)
    for item in os.scandir(root) if os.path.isdir(root) else ():
        if item.is_dir(follow_symlinks=False) and is_entry_name(item.name) \
                and os.listdir(item.path) == [LOCK]:
            with _locked(item.path, blocking=False) as held:
                if held:  # a process about to write it compiles in memory, once
                    shutil.rmtree(item.path, ignore_errors=True)
    return cleared


def directory() -> str | None:
    """The cache directory in use, or None when ``JITAIC_CACHE_DIR=off``."""
    root = str(config.get("cache_dir"))
    return None if root.lower() in config.OFF else os.path.abspath(os.path.expanduser(root))
