"""The program corpus: each program against NumPy for each of its argument sets,
with one compile per distinct specialisation and cache hits on repeat calls."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, copy_tree, numpy_result, seed_of
from programs import PROGRAMS, Program

import jitaic


@pytest.mark.parametrize("prog", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program_matches_numpy(prog: Program) -> None:
    f = jitaic.jit(prog.fn)
    all_args = [make(np.random.default_rng(seed_of(prog.name, i)))
                for i, make in enumerate(prog.variants)]
    for args in all_args:
        saved = copy_tree(args)
        want = numpy_result(prog.fn, *args)
        got = f(*args)
        assert_same(got, want, tol=prog.tol)
        assert_same(args, saved, tol=0.0)  # arguments are not modified
    assert f.cache_info().misses == len(all_args)
    hits = f.cache_info().hits
    assert_same(f(*all_args[0]), numpy_result(prog.fn, *all_args[0]), tol=prog.tol)
    info = f.cache_info()
    assert (info.misses, info.hits) == (len(all_args), hits + 1)


def test_corpus_size() -> None:
    assert len(PROGRAMS) >= 20
    assert len({p.name for p in PROGRAMS}) == len(PROGRAMS)
