"""Print the SHA-256 of every module jitaic generates for the op table, the
program corpus, their gradients, control-flow programs and the compile
benchmark's corpus (stencils, loops, run-time slices, factorisations,
second-order gradients), as JSON.

``test_disk_cache`` runs this in fresh processes: generated source must be a
pure function of the program and the argument types (the disk cache keys
entries by it), so two processes print the same digests. Modules are
generated, not compiled (``Specialization.compile`` is replaced by the
rendering step alone), which takes seconds for the whole table.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "benchmarks")]

import op_table  # noqa: E402
import programs  # noqa: E402
from compile_corpus import CORPUS  # noqa: E402

import jitaic  # noqa: E402
from jitaic import api  # noqa: E402
from jitaic.lower import compile as lower_compile  # noqa: E402

SOURCES: dict[str, str] = {}


def _render_only(spec, leaves) -> None:
    is_array = [isinstance(x, np.ndarray) for x in leaves]
    rendered = lower_compile.render(spec.graph, is_array, leaves, spec.parallel)
    SOURCES[_current] = rendered.source


api.Specialization.compile = _render_only
_current = ""


def _render(name: str, fn, args) -> None:
    global _current
    _current = name
    try:
        jitaic.jit(fn).lower(*args)
    except Exception as exc:  # rows that raise by design: their message is the output
        SOURCES[name] = f"{type(exc).__name__}: {exc}"


def _summed(fn):
    return lambda *args: np.sum(fn(*args))


def _control_flow(x, n):
    total = x.copy()
    k = 0
    while total.sum() < n:
        total = total * 1.5 + 1.0
        k += 1
    for i in range(3):
        if total[i] > 2.0:
            total[i] = -total[i]
    return total, k


def main() -> None:
    rng = np.random.default_rng(0)
    for row in op_table.ROWS:
        for case in row.cases:
            args = op_table.make_args(row, case, rng)
            _render(f"{row.name}/{case.id}", row.fn, args)
            floats = [i for i, a in enumerate(args) if a.dtype.kind == "f" and a.ndim]
            if row.differentiable and floats:
                _render(f"grad {row.name}/{case.id}",
                        jitaic.grad(_summed(row.fn), argnums=floats[0]), args)
    for program in programs.PROGRAMS:
        for k, variant in enumerate(program.variants):
            _render(f"{program.name}/{k}", program.fn, variant(rng))
    for name, (_, fn, make_args) in CORPUS.items():
        _render(f"compile corpus {name}", fn, make_args(rng))
    x = rng.random(5)
    _render("control flow", _control_flow, (x, 40.0))
    _render("grad control flow",
            jitaic.grad(lambda x, n: _control_flow(x, n)[0].sum()), (x, 40.0))
    digests = {name: hashlib.sha256(source.encode()).hexdigest()
               for name, source in SOURCES.items()}
    json.dump(digests, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
