"""The search: random programs from Hypothesis, each new kind of failure shrunk and saved.

``search`` runs a budget of programs. The first mismatch that is not a known
bug pins a *target* (its kind and mode) and is raised, so Hypothesis shrinks
it: during shrinking only a program showing the target kind counts as a
failure, which keeps the shrinker on one bug. The smallest such program is
saved to the corpus, the bug joins the known ones, and the search goes on
with the rest of the budget and the next seed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from . import corpus
from .case import Case, materialize
from .gradients import check_gradients
from .oracle import Verdict, check
from .programs import cases


def check_module(module: ModuleType, modes: tuple[str, ...] | None = None) -> list[Verdict]:
    """Verdicts of a case module in its modes, and on its gradients if it has them
    ("grad" among ``modes``)."""
    modes = modes or module.MODES + (("grad",) if module.GRADIENTS else ())
    verdicts = check(module.f, module.make_args, tuple(m for m in modes if m != "grad"))
    if "grad" in modes and not any(v.status == "mismatch" for v in verdicts):
        grad = check_gradients(module.f, module.make_args)
        verdicts += [grad] if grad else []
    return verdicts


class _Found(Exception):
    """The pinned target failed: Hypothesis, shrink this."""


@dataclass
class _Target:
    verdict: Verdict
    case: Case
    deadline: float


def search(budget: int, seed: int, known: corpus.Known,
           on_program: Callable[[str, list[Verdict]], None],
           on_start: Callable[[str], None] = lambda path: None,
           directory: str | None = None, corpus_dir: str = corpus.CORPUS,
           shrink_seconds: float = 120.0) -> None:
    """Run ``budget`` programs, saving a reproducer for each new bug."""
    done = 0
    while done < budget:
        target: _Target | None = None
        ran = 0

        @hypothesis_seed(seed)
        @settings(max_examples=budget - done, deadline=None, database=None,
                  phases=(Phase.generate, Phase.shrink), report_multiple_bugs=False,
                  suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
        @given(cases())
        def body(case: Case) -> None:
            nonlocal target, ran
            if target is not None and time.monotonic() > target.deadline:
                return  # shrinking took long enough: keep the smallest so far
            text = case.module_text()
            module = materialize(text, directory)
            on_start(module.__file__)
            verdicts = check_module(module, (target.verdict.mode,) if target else None)
            if target is None:
                ran += 1
                on_program(text, verdicts)
            for v in verdicts:
                if v.status != "mismatch" or known.matches(v.kind, text):
                    continue
                if target is None:
                    target = _Target(v, case, time.monotonic() + shrink_seconds)
                elif v.kind != target.verdict.kind:
                    continue
                target.verdict, target.case = v, case
                raise _Found(v.kind)

        try:
            body()
        except Exception:
            if target is None:
                raise  # not a program's failure: a bug in the fuzzer
            # else _Found, or Hypothesis' complaint that shrinking was cut short
        done += max(ran, 1)
        seed += 1
        if target is not None:
            v = target.verdict
            text = target.case.module_text()
            corpus.save(text, v.mode, v.kind, v.detail, corpus_dir)
            known.add(v.kind, text)
