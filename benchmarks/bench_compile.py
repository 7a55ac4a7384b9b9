"""First-call (compile) time of realistic functions, cold and from the disk cache.

    python benchmarks/bench_compile.py                 # the whole corpus
    python benchmarks/bench_compile.py --filter grad   # names containing "grad"

Every measurement runs in a fresh process (``python bench_compile.py --child
NAME``): ``import jitaic`` is timed; then the first call of a one-line jitted
function (the process's start-up of the compiler: numba and LLVM load on
jitaic's first compile, ~0.5 s, paid once per process); then the first call
of ``jitaic.jit(fn)`` on the entry's arguments of ``compile_corpus.CORPUS``. Each function runs
twice: with an empty cache directory (cold: trace, passes, code generation,
numba's typing and LLVM, split as jitaic and numba record them), then in a
new process on the directory the first one filled (loaded). numba's own
cache of jitaic's runtime helpers (``jitaic/lower/__pycache__``) is left as
it is: it is filled once per installation, and so is Python's bytecode
cache (``__pycache__``): children run without PYTHONDONTWRITEBYTECODE, and
one child runs first to fill it, as an installed jitaic has it. Memory per
specialisation is the growth of the child's resident set over the function's
first call.

Targets (issue #18): median first call <= 0.5 s and max <= 5 s cold; median
<= 50 ms loaded from the disk cache; ``import jitaic`` <= 0.3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _resident_bytes() -> int:
    try:
        with open("/proc/self/statm") as file:
            return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def child(name: str) -> dict[str, object]:
    """Import jitaic and make the first call of one corpus function."""
    start = time.perf_counter()
    import jitaic
    import_seconds = time.perf_counter() - start
    import numpy as np

    sys.path.insert(0, HERE)
    from compile_corpus import CORPUS

    kind, fn, make_args = CORPUS[name]
    args = make_args(np.random.default_rng(0))
    start = time.perf_counter()
    jitaic.jit(lambda x: x + 1.0)(np.ones(3))
    start_up = time.perf_counter() - start
    f = jitaic.jit(fn)
    resident = _resident_bytes()
    start = time.perf_counter()
    f(*args)
    first_call = time.perf_counter() - start
    specs = f.specializations()
    compiled = [s.compiled for s in specs if s.compiled]
    return {
        "name": name, "kind": kind, "import": import_seconds, "start_up": start_up,
        "first_call": first_call,
        "trace": sum(s.trace_seconds - s.pass_seconds for s in specs),
        "passes": sum(s.pass_seconds for s in specs),
        "codegen": sum(c.render_seconds for c in compiled),
        "typing": sum(c.typing_seconds for c in compiled),
        "llvm": sum(c.llvm_seconds for c in compiled),
        "numba": sum(c.compile_seconds for c in compiled),
        "loaded": all(c.from_disk for c in compiled) and bool(compiled),
        "resident_mb": (_resident_bytes() - resident) / 2**20,
    }


def _measure(name: str, cache: str) -> dict[str, object]:
    environment = dict(os.environ, JITAIC_CACHE_DIR=cache)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, __file__, "--child", name], env=environment,
                          capture_output=True, text=True, timeout=1800)
    if done.returncode:
        return {"name": name, "error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cpu() -> str:
    sys.path.insert(0, HERE)
    from harness import cpu_model

    return cpu_model()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--filter", default="", help="only names containing this")
    options = parser.parse_args()
    if options.child:
        print(json.dumps(child(options.child)))
        return 0
    sys.path.insert(0, HERE)
    from compile_corpus import CORPUS

    names = [n for n in CORPUS if options.filter in n]
    with tempfile.TemporaryDirectory() as cache:
        _measure(names[0], cache)  # fills the bytecode caches an installation has
    print(f"# first calls in fresh processes; CPU: {_cpu()}; {os.cpu_count()} cores")
    header = (f"{'function':<24} {'kind':<22} {'cold s':>7} {'trace':>6} {'passes':>6} "
              f"{'codegen':>7} {'typing':>6} {'LLVM':>6} {'loaded ms':>9} {'MB':>5}")
    print(header)
    rows, failed = [], 0
    for name in names:
        with tempfile.TemporaryDirectory() as cache:
            cold, warm = _measure(name, cache), _measure(name, cache)
        if "error" in cold or "error" in warm:
            failed += 1
            print(f"{name:<24} FAIL: {cold.get('error') or warm.get('error')}")
            continue
        rows.append((cold, warm))
        print(f"{name:<24} {cold['kind']:<22} {cold['first_call']:7.3f} {cold['trace']:6.3f} "
              f"{cold['passes']:6.3f} {cold['codegen']:7.3f} {cold['typing']:6.3f} "
              f"{cold['llvm']:6.3f} {1e3 * warm['first_call']:9.1f} "
              f"{cold['resident_mb']:5.1f}" + ("" if warm["loaded"] else "  (not loaded)"),
              flush=True)
    if rows:
        cold = [c["first_call"] for c, _ in rows]
        warm = [w["first_call"] for _, w in rows]
        imports = [c["import"] for c, _ in rows] + [w["import"] for _, w in rows]
        start_ups = [c["start_up"] for c, _ in rows] + [w["start_up"] for _, w in rows]
        print(f"\n{len(rows)} functions: cold median {statistics.median(cold):.3f} s, "
              f"max {max(cold):.3f} s; loaded median {1e3 * statistics.median(warm):.1f} ms, "
              f"max {1e3 * max(warm):.1f} ms; import jitaic median "
              f"{statistics.median(imports):.3f} s; compiler start-up (first compile of "
              f"a process) median {statistics.median(start_ups):.3f} s")
        phases = {k: sum(c[k] for c, _ in rows)
                  for k in ("trace", "passes", "codegen", "typing", "llvm", "numba")}
        other = phases["numba"] - phases["typing"] - phases["llvm"]
        print(f"cold totals: trace {phases['trace']:.2f} s, passes {phases['passes']:.2f}, "
              f"codegen {phases['codegen']:.2f}, numba typing {phases['typing']:.2f}, "
              f"LLVM {phases['llvm']:.2f}, rest of numba {other:.2f}; "
              f"first calls {sum(cold):.2f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
