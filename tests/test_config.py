"""The knob table (jitaic/config.py): one name per knob, documented, overridable."""

import os
import re

import pytest

from jitaic import config

# The reference interpreter runs these tests, numba a fixed sample of them and
# those marked numba (conftest.py: the test pyramid).
TIER = "reference"

KNOB_TABLE = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "debugging.md")


def test_every_knob_is_in_the_docs_table_and_named_after_its_variable() -> None:
    with open(KNOB_TABLE, encoding="utf-8") as f:
        documented = set(re.findall(r"^\| `(JITAIC_\w+)` \|", f.read(), re.M))
    variables = {knob.env for knob in config.KNOBS.values()}
    assert documented == variables
    for name, knob in config.KNOBS.items():
        assert knob.env == "JITAIC_" + name.upper(), name


def test_override_takes_knob_names_and_restores_them() -> None:
    before = config.get("dump_ir")
    with config.override(dump_ir="all", checks=True):
        assert config.get("dump_ir") == "all" and config.get("checks") is True
        with config.override(dump_ir="after:cse"):
            assert config.get("dump_ir") == "after:cse"
        assert config.get("dump_ir") == "all"
    assert config.get("dump_ir") == before
    with pytest.raises(KeyError, match=r"unknown jitaic config knob\(s\): \['dump'\]"):
        with config.override(dump="all"):
            pass
