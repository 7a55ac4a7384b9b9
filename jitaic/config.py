"""Every debug knob in one table: read from the environment, overridable in code.

    with jitaic.config.override(backend="reference"):
        f(x)        # runs the NumPy reference interpreter instead of numba
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

# numba's OpenMP workers (libgomp) spin for up to 300,000 pause instructions
# (milliseconds here) after each parallel loop before they sleep. A
# multi-threaded BLAS called meanwhile (NumPy's, by the caller between two
# calls) then waits out their time slices: a 0.7 ms product after a parallel
# call took 8 ms. 10,000 spins keep back-to-back parallel loops as fast
# (bench_core unchanged) and cut that to ~2.7 ms. libgomp reads the variable
# when it loads (numba loads it for the first parallel compile or call), so
# this is set on import and applies if numba has not started its threads
# yet; a value the user set is kept.
GOMP_SPINCOUNT = "10000"
os.environ.setdefault("GOMP_SPINCOUNT", GOMP_SPINCOUNT)


OFF = ("", "off", "0", "none")  # values of JITAIC_CACHE_DIR that turn the disk cache off


def default_cache_dir() -> str:
    """The platform's per-user cache directory, ``jitaic`` in it."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~/AppData/Local")
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME", "")
        base = base if os.path.isabs(base) else os.path.expanduser("~/.cache")
    return os.path.join(base, "jitaic")


@dataclass(frozen=True)
class Knob:
    env: str
    default: object
    parse: type
    doc: str


KNOBS: dict[str, Knob] = {
    "debug": Knob("JITAIC_DEBUG", 0, int,
                  "1: log each compile (INFO, logger 'jitaic'); 2: also the optimised IR, "
                  "each graph pass's time and the rewrite rules that fired (DEBUG); 3: "
                  "also the generated source"),
    "dump_ir": Knob("JITAIC_DUMP_IR", "", str,
                    "log the IR around passes (DEBUG): a comma-separated list of "
                    "before:<pass> and after:<pass> (graph passes: passes/pipeline.py; "
                    "loop passes: lower/loop_ir.py), 'loops' (each generated "
                    "function's loop IR after its passes), or 'all'"),
    "backend": Knob("JITAIC_BACKEND", "numba", str,
                    "'numba', or 'reference' to run the NumPy reference interpreter"),
    "compile": Knob("JITAIC_COMPILE", "sync", str,
                    "'sync' or 'background': the default of jit(compile=...); background "
                    "runs the Python function while a new specialisation compiles on a "
                    "worker thread"),
    "disable_jit": Knob("JITAIC_DISABLE_JIT", False, lambda s: s not in ("", "0"),
                        "call the Python function unchanged"),
    "callbacks": Knob("JITAIC_CALLBACKS", True, lambda s: s not in ("", "0"),
                      "a NumPy function jitaic does not lower is called back from the "
                      "compiled code (NumPy computes it; logged once per call site); 0 "
                      "refuses it with UnsupportedError (the default of jit(callbacks=))"),
    "checks": Knob("JITAIC_CHECKS", False, lambda s: s not in ("", "0"),
                   "verify the IR after tracing and after every pass"),
    "hot_calls": Knob("JITAIC_HOT_CALLS", 100, int,
                      "cached calls after which a specialisation is served by a compiled "
                      "shape dispatcher (~0.6 µs a call instead of ~1.6); 0 turns it off"),
    "exact_math": Knob("JITAIC_EXACT_MATH", False, lambda s: s not in ("", "0"),
                       "exp/expm1/log/log1p/tanh/pow/arctan/arctan2/arcsin/arccos (and float32 "
                       "sin/cos) call libm instead of jitaic's vectorisable versions (within "
                       "1-2 ulp of exact; read when a specialisation compiles)"),
    "numpy_blas": Knob("JITAIC_NUMPY_BLAS", True, lambda s: s not in ("", "0"),
                       "float matrix products call NumPy's own BLAS the way NumPy's matmul "
                       "does (same results bit for bit); 0: numba's np.dot, which calls the "
                       "BLAS scipy bundles (read when a specialisation compiles)"),
    "buffer_cache_mb": Knob("JITAIC_BUFFER_CACHE_MB", 256, int,
                            "freed arrays of 4 MiB and more that compiled code allocated are "
                            "kept (up to 8, this many MiB in all) for the next allocation of "
                            "their size, which then makes no page faults; 0: every array is "
                            "freed at once (read when a specialisation compiles)"),
    "follow_load": Knob("JITAIC_FOLLOW_LOAD", True, lambda s: s not in ("", "0"),
                        "parallel loops run on the CPUs other processes leave idle, "
                        "sampled from /proc/stat every 0.1 s by a daemon thread (Linux; "
                        "lower/threads.py); 0: always on numba's thread count (read when "
                        "the first parallel kernel compiles)"),
    "cache_dir": Knob("JITAIC_CACHE_DIR", default_cache_dir(), str,
                      "where compiled specialisations stay across processes (default: the "
                      "platform's user cache directory, e.g. ~/.cache/jitaic): a later process "
                      "compiling the same function for the same argument types loads the "
                      "machine code instead of compiling; 'off' turns it off "
                      "(lower/disk_cache.py, python -m jitaic.cache)"),
    "max_specializations": Knob("JITAIC_MAX_SPECIALIZATIONS", 64, int,
                                "specialisations one function keeps in memory (each ~3 MB of "
                                "machine code); beyond it the least recently used goes "
                                "(a later call for it loads it from the disk cache); 0: no bound"),
    "cache_mb": Knob("JITAIC_CACHE_MB", 1024, int,
                     "the disk cache's size bound in MiB: least recently used entries are "
                     "deleted beyond it"),
}

_overrides: list[dict[str, object]] = []
_from_env: dict[str, object] = {}
# 1 while overridden_or_disabled(): compiled hot dispatchers read it (lower/dispatch.py).
BYPASS = np.zeros(1, np.int64)


def reload() -> None:
    """Re-read the environment (it is read once, at import: calls stay cheap)."""
    _from_env.clear()
    for name, knob in KNOBS.items():
        raw = os.environ.get(knob.env)
        _from_env[name] = knob.default if raw is None else knob.parse(raw)
    BYPASS[0] = overridden_or_disabled()


def get(name: str) -> object:
    for layer in reversed(_overrides):
        if name in layer:
            return layer[name]
    return _from_env[name]


def overridden_or_disabled() -> bool:
    """Cheap check for the call fast path: any override active, or jit disabled."""
    return bool(_overrides) or bool(_from_env["disable_jit"])


reload()


@contextlib.contextmanager
def override(**values: object) -> Iterator[None]:
    """Temporarily set knobs by name, e.g. ``override(backend="reference")``."""
    unknown = set(values) - set(KNOBS)
    if unknown:
        raise KeyError(f"unknown jitaic config knob(s): {sorted(unknown)}")
    _overrides.append(values)
    BYPASS[0] = 1
    try:
        yield
    finally:
        _overrides.pop()
        BYPASS[0] = overridden_or_disabled()


def dump_requested(when: str, name: str) -> bool:
    """Whether ``JITAIC_DUMP_IR`` asks for the IR ``when`` ("before", "after")
    the pass ``name``."""
    wanted = {s.strip() for s in str(get("dump_ir")).split(",") if s.strip()}
    return "all" in wanted or f"{when}:{name}" in wanted


def debug_log() -> logging.Logger:
    """The ``jitaic`` logger, writing to stderr when ``JITAIC_DEBUG`` or
    ``JITAIC_DUMP_IR`` is set and the application configured no logging
    (Python drops INFO and DEBUG records then)."""
    log = logging.getLogger("jitaic")
    wanted = get("debug") or get("dump_ir")
    if wanted and not log.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("jitaic: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.DEBUG)
    return log
