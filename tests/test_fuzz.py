"""The differential fuzzer in CI: the regression corpus, and a fixed budget of programs.

Every reproducer in tests/fuzz/corpus/ is replayed; one marked
``KNOWN_FAILURE`` must still fail (xfail strict: when its bug is fixed the
test says so, and the mark goes). Then a derandomized Hypothesis run checks
the same 80 random programs on every run (under a minute with a cold
compile cache on 2 cores). The long run is ``python -m tests.fuzz`` (see
tests/fuzz/__main__.py).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from fuzz import corpus
from fuzz.case import Case, load, materialize
from fuzz.programs import cases
from fuzz.search import check_module
from hypothesis import HealthCheck, Phase, given, settings

settings.register_profile(
    "fuzz-ci", derandomize=True, max_examples=80, deadline=None, database=None,
    phases=(Phase.explicit, Phase.generate),  # a red CI run reports, the long run shrinks
    suppress_health_check=list(HealthCheck))

KNOWN = corpus.Known.from_corpus()
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _report(text: str, verdicts: list) -> str:
    return "\n".join([text] + [f"{v.mode}: {v.kind}: {v.detail}" for v in verdicts
                               if v.status == "mismatch"])


def _corpus_params() -> list:
    params = []
    for path in corpus.paths():
        reason = load(path).KNOWN_FAILURE
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(path, marks=marks, id=os.path.basename(path)[:-3]))
    return params


@pytest.mark.parametrize("path", _corpus_params())
def test_corpus(path: str) -> None:
    module = load(path)
    if module.FINGERPRINT.startswith(("crash", "hang")):  # not in this process
        done = subprocess.run([sys.executable, "-m", "tests.fuzz", "--replay", path],
                              cwd=REPO, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return
    with open(path) as src:
        text = src.read()
    verdicts = check_module(module)
    assert not any(v.status == "mismatch" for v in verdicts), _report(text, verdicts)


@settings(settings.get_profile("fuzz-ci"))
@given(case=cases())
def test_random_programs(case: Case) -> None:
    text = case.module_text()
    verdicts = check_module(materialize(text))
    new = [v for v in verdicts if v.status == "mismatch" and not KNOWN.matches(v.kind, text)]
    assert not new, _report(text, new)
