"""Compiled specialisations kept on disk across processes (``JITAIC_CACHE_DIR``).

A generated module is written to the cache directory (in a subdirectory per
version of jitaic's lowering code, see ``prune``) as a file named by a
hash of its source and of everything compiled into it (jitaic's lowering
code, which generated code calls and inlines, and the numba, llvmlite, NumPy
and Python versions), and compiled with numba's own ``cache=True``: numba
keeps the machine code next to the file (in ``__pycache__``) and a later
process compiling the same function for the same argument types loads it
instead of compiling (the first call of a parallel sum: ~2 s compiled, a few
tens of ms loaded).

The source names everything the code depends on: constants are arguments, and
an address a kernel calls through (NumPy's BLAS) is a literal in the source,
so a process where it differs writes another file. A function numba cannot
cache (one that reaches a ctypes pointer as a global) compiles as usual.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import pathlib
import shutil
import sys
import warnings

import llvmlite
import numba
import numpy as np


@functools.cache
def _code_stamp() -> str:
    """What compiled code depends on besides its own source."""
    lower = pathlib.Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(lower.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    versions = (numba.__version__, llvmlite.__version__, np.__version__, sys.version)
    digest.update(repr(versions).encode())
    return digest.hexdigest()


def module_function(directory: str, source: str, fn_name: str):
    """(``fn_name`` from the generated module ``source``, imported from its
    file in ``directory`` (written there the first time), that file's path);
    None, with a warning, when the directory cannot be written."""
    key = hashlib.sha256((_code_stamp() + source).encode()).hexdigest()[:32]
    directory = os.path.join(directory, _code_stamp()[:16])
    path = os.path.join(directory, f"jitaic_{key}.py")
    if not os.path.exists(path):
        try:
            os.makedirs(directory, exist_ok=True)
            partial = f"{path}.{os.getpid()}.tmp"
            with open(partial, "w") as file:
                file.write(source)
            os.replace(partial, path)  # never a half-written module
        except OSError as exc:
            warnings.warn(f"JITAIC_CACHE_DIR={directory!r} cannot be written ({exc}); "
                          f"compiling without the disk cache", stacklevel=2)
            return None
    name = f"jitaic_generated_{key}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        # numba names a function's environment after its module and imports
        # that module again when it loads the cached code
        sys.modules[name] = module
    return getattr(module, fn_name), path


def prune(directory: str) -> int:
    """Delete the subdirectories of ``directory`` that other versions of jitaic
    (or of its dependencies) filled; returns how many went. Each version's
    modules live in a subdirectory named after its stamp, so a changed
    lowering module does not leave its predecessor's ~100 MB behind."""
    current = _code_stamp()[:16]
    stale = [entry for entry in os.scandir(directory)
             if entry.is_dir() and entry.name != current] if os.path.isdir(directory) else []
    for entry in stale:
        shutil.rmtree(entry.path, ignore_errors=True)
    return len(stale)


def compile_cached(fn, signature: tuple, parallel: bool):
    """numba's dispatcher for ``fn`` with its on-disk cache, compiled (or loaded)
    for ``signature``; and whether the machine code came from the cache."""
    entry = numba.njit(error_model="numpy", parallel=parallel, cache=True)(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba.NumbaWarning)  # "cannot cache": compiles
        entry.compile(signature)
    return entry, bool(entry.stats.cache_hits)
