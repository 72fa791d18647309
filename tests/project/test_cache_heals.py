"""A damaged facts entry in the cache is a miss: the file is analysed again and the entry rewritten.

Issue 23: a facts entry holding valid JSON with a wrong type (an integer set to ``null``) read back
"fine", and every later run that decided the project again failed in a rule (``MSP000 internal
error ... TypeError``) until the cache folder was deleted.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
from pathlib import Path
from typing import Callable, Dict, List

import pytest

from ms_perflint.project.index import ProjectIndex
from ms_perflint.run.session import Session, SessionOptions
from tests.conftest import codes_at

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _set_first_call_scope_to_null(facts: dict) -> None:
    facts["calls"][0]["at"][0] = None


def _classes_as_a_list(facts: dict) -> None:
    facts["classes"] = list(facts["classes"].values())


def _no_calls(facts: dict) -> None:
    del facts["calls"]


def _function_scope_as_text(facts: dict) -> None:
    name = next(iter(facts["functions"]))
    facts["functions"][name] = str(facts["functions"][name])


def _receiver_kind_as_a_number(facts: dict) -> None:
    call = next(c for c in facts["calls"] if "receiver" in c)
    call["receiver"][0] = 7


def _line_as_a_float(facts: dict) -> None:
    facts["scopes"][0]["line"] = 1.5


DAMAGE: Dict[str, Callable[[dict], None]] = {
    "an integer set to null": _set_first_call_scope_to_null,
    "a list where a dict belongs": _classes_as_a_list,
    "a missing key": _no_calls,
    "a scope index as text": _function_scope_as_text,
    "a kind as a number": _receiver_kind_as_a_number,
    "a line as a float": _line_as_a_float,
}


def _findings(root: Path, cache: Path = None) -> Dict[str, List[tuple]]:
    session = Session(SessionOptions(cache_folder=str(cache) if cache else None, jobs=1))
    paths = sorted(glob.glob(str(root / "**" / "*.py"), recursive=True))
    results = session.check(paths)
    return {os.path.relpath(r.path, root): codes_at(r.findings) + ([(r.error.kind,)] if r.error else [])
            for r in results}


def _entry(root: Path, cache: Path, relative: str) -> Path:
    index = ProjectIndex(str(root), str(cache))
    digest = index.refresh().files[relative].digest
    return Path(index._facts_path(relative, digest))


@pytest.mark.parametrize("damage", list(DAMAGE), ids=list(DAMAGE))
def test_a_damaged_facts_entry_is_analysed_again_and_rewritten(tmp_path: Path, damage: str):
    root = tmp_path / "project"
    shutil.copytree(EXAMPLES, root)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    cache = tmp_path / "cache"
    fresh = _findings(root)
    assert any(code == "MSP101" for found in fresh.values() for code, *_ in found)
    assert _findings(root, cache) == fresh

    entry = _entry(root, cache, "train.py")
    good = entry.read_text(encoding="utf-8")
    facts = json.loads(good)
    DAMAGE[damage](facts)
    entry.write_text(json.dumps(facts, separators=(",", ":")), encoding="utf-8")
    for decisions in cache.glob("decisions-*.json"):
        decisions.unlink()  # the project is decided again: every file's facts are read back

    assert _findings(root, cache) == fresh
    assert entry.read_text(encoding="utf-8") == good
    assert _findings(root, cache) == fresh  # and stays healed
