"""The pure parts of bench/precision/run.py, and one offline end-to-end run with a fake linter."""

from __future__ import annotations

import importlib.util
import json
import random
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "precision" / "run.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("precision_bench_run", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


bench = _load_script()


def finding(code="MSP101", repo="o/r", path="a.py", row=1, column=1, **extra):
    return bench.Finding(repo=repo, path=path, code=code, row=row, column=column, message="m", **extra)


def numbered(code, count, repo="o/r"):
    """``count`` findings of ``code`` with distinct positions and fingerprints."""
    return [finding(code, repo, f"f{i % 7}.py", row=i + 1, fingerprint=f"{code}-{i}") for i in range(count)]


def run_result(findings, repos=("o/r",)):
    records = [
        {"name": name, "url": f"https://github.com/{name}", "commit": "c" * 40, "checkout_commit": "",
         "checkout": "/nowhere", "what": "w"}
        for name in repos
    ]
    return bench.RunResult("development", "ms-perflint 0.0", ["x"], "2025-01-01", records, list(findings))


# --------------------------------------------------------------------------- manifest


def test_manifest_pins_the_development_set_and_holds_models_out():
    sets = bench.load_manifest()
    development = {repo.name: repo.commit for repo in sets["development"]}
    assert development == {
        "mindspore-lab/mindcv": "51b0636da1e38a44a52edf76cf314d1c7c18883a",
        "mindspore-lab/mindformers": "fd4deebc1606a02fd24c3b359a889cd0c966e72b",
        "mindspore-lab/mindocr": "6dd7792388e25436552fada9553215453693e610",
        "mindspore-lab/mindyolo": "67288e576757aaf466f72b1786e6d72471048332",
        "mindspore-courses/applications": "a95393b9106d4e88d7cf6d6826d5f437a0acf7ce",
        "mindspore-lab/mindaudio": "4c7b609f09211bf3c699b97ebbfcced022ffcdc9",
        "mindspore-lab/mindface": "32970ba1e39e70043357ee5996d8393122371368",
        "mindspore-lab/mindpose": "85b42778cd65e78f27177809e8bd493364a4e4de",
        "mindspore-lab/mindediting": "f76f4190736d1f1311fd632b38eccf7736536b7c",
        "mindspore-lab/mindnlp": "7dd3e355d3f383c352ee94184ce0b208ad50abd6",
        "mindspore-lab/minddet": "5d5b8bee5db07c259be0a9bfe252baa2bb0ee331",
        "mindspore-ai/course": "cbfaa090acad5728f3a2db41d8fda2300e8c72f9",
        "mindspore-ai/contrib": "da3c3f27bbd7ad32c05fcd6abba383b0f6b1f700",
        "mindspore-ai/mindscience": "52902750f9256b5bd985ecaf3a575653c5cbf42d",
        "mindspore-lab/mindrl": "7f55a67f90d248e8c535a2b6e61a6d68ca2c3c2d",
        "mindspore-ai/graphlearning": "f0375cf4bba03f0cf233eabec246661e2e0bb105",
        "mindspore-lab/minddiffusion": "5779fd04c17f60f277fa88e635287fcc1dd4ecc5",
    }
    assert {repo.name: repo.commit for repo in sets["heldout"]} == {
        "mindspore-ai/models": "eab643f51336dbf7d711f02d27e6516e5affee59",
    }
    for repo in sets["development"] + sets["heldout"]:
        assert repo.url == f"https://github.com/{repo.name}" and repo.what


@pytest.mark.parametrize(
    "text, expected",
    [
        ('[[development]]\nname = "o/r"\nurl = "u"\ncommit = "abc"\nwhat = "w"\n', "commit 'abc' is not 40 hex digits"),
        ('[[development]]\nname = "o/r"\nurl = "u"\ncommit = ""\nwhat = "w"\n', "needs a pinned commit"),
        ('[[development]]\nname = "o/r"\nurl = "u"\nwhat = "w"\n', "`commit` is missing"),
        ('[[development]]\nname = "o/r"\nurl = "u"\ncommit = "' + "a" * 40 + '"\nwhat = "w"\n'
         '[[heldout]]\nname = "o/r"\nurl = "u"\ncommit = ""\nwhat = "w"\n', "listed twice"),
        ("[[development]\n", "not valid TOML"),
    ],
)
def test_manifest_mistakes_name_the_file_and_the_problem(tmp_path, text, expected):
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(text)
    with pytest.raises(bench.BenchError) as error:
        bench.load_manifest(manifest)
    assert str(manifest) in str(error.value) and expected in str(error.value)


# --------------------------------------------------------------------------- source lines and fingerprints


def test_fingerprint_survives_a_line_shift(tmp_path):
    source = "import mindspore\n\nlayer = nn.Dense(768, 768)\n"
    (tmp_path / "m.py").write_text(source)
    before = [finding(path="m.py", row=3)]
    bench.add_fingerprints(before, {"o/r": tmp_path}, bench.SourceFiles())

    (tmp_path / "m.py").write_text("# a new comment\n# and another\n" + source.replace("\n\n", "\n\n\n"))
    after = [finding(path="m.py", row=6)]
    bench.add_fingerprints(after, {"o/r": tmp_path}, bench.SourceFiles())

    assert after[0].line == "layer = nn.Dense(768, 768)"
    assert after[0].fingerprint == before[0].fingerprint
    assert bench.fingerprint("o/r", "m.py", "MSP102", after[0].line) != after[0].fingerprint


def test_findings_on_identical_lines_get_an_occurrence_index(tmp_path):
    (tmp_path / "m.py").write_text("x = nn.Dense(3, 3)\nx = nn.Dense(3, 3)\n")
    findings = [finding(path="m.py", row=2), finding(path="m.py", row=1)]
    bench.add_fingerprints(findings, {"o/r": tmp_path}, bench.SourceFiles())
    base = bench.fingerprint("o/r", "m.py", "MSP101", "x = nn.Dense(3, 3)")
    assert [f.fingerprint for f in findings] == [f"{base}-2", base]


def test_notebook_lines_count_every_cell_and_lines_within_the_cell(tmp_path):
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": ["# Title\n"]},
            {"cell_type": "code", "source": ["import mindspore as ms\n", "net = Net()\n"]},
            {"cell_type": "code", "source": "%matplotlib inline\r\nms.save_checkpoint(net, 'a.ckpt')"},
        ],
        "metadata": {},
    }
    path = tmp_path / "course.ipynb"
    path.write_text(json.dumps(notebook))
    sources = bench.SourceFiles()
    assert sources.line(path, 2, cell=2) == "net = Net()"
    assert sources.line(path, 2, cell=3) == "ms.save_checkpoint(net, 'a.ckpt')"
    assert sources.line(path, 1, cell=1) == "# Title"
    assert sources.line(path, 9, cell=3) == "" and sources.line(path, 1, cell=4) == ""
    (tmp_path / "broken.ipynb").write_text("{not json")
    assert sources.line(tmp_path / "broken.ipynb", 1, cell=1) == ""


# --------------------------------------------------------------------------- the linter's output


def test_linter_output_is_read_tolerantly(tmp_path):
    output = [
        {"code": "MSP103", "message": "sync save", "filename": str(tmp_path / "sub" / "train.py"),
         "location": {"row": 4, "column": 9}, "fix": {"applicability": "safe", "message": "Add", "edits": []},
         "something_new": [1, 2]},
        {"code": "MSP101", "message": "fp32", "filename": "nb.ipynb", "cell": 3, "location": {"row": 2}},
        {"code": None, "name": "SyntaxError", "message": "SyntaxError: bad", "filename": "bad.py",
         "location": {"row": 1, "column": 1}},
        {"code": "MSP102", "filename": "x.py"},  # no location: malformed
        "not an object",
        {"code": "MSP000", "message": "internal error in MSP101 (fp32-matmul): RecursionError: deep",
         "filename": "deep.py"},  # a rule failed: never a finding, with or without a location
    ]
    output = bench.parse_linter_output(json.dumps(output), "o/r", tmp_path)
    assert [(f.path, f.code, f.row, f.column, f.cell, f.fixable, f.applicability) for f in output.findings] == [
        ("sub/train.py", "MSP103", 4, 9, None, True, "safe"),
        ("nb.ipynb", "MSP101", 2, 0, 3, False, ""),
    ]
    assert [(n.path, n.kind) for n in output.not_checked] == [("bad.py", "SyntaxError")]
    assert [(e.path, e.kind) for e in output.internal_errors] == [("deep.py", "MSP000")]
    assert output.malformed == 2


@pytest.mark.parametrize("text", ["", "warning: something\n[]", '{"code": "MSP101"}'])
def test_linter_output_that_is_not_a_json_list_is_a_clear_error(tmp_path, text):
    with pytest.raises(bench.BenchError, match=r"the linter's output for o/r is not"):
        bench.parse_linter_output(text, "o/r", tmp_path)


# --------------------------------------------------------------------------- sampling


def test_sampling_is_reproducible_and_each_rule_draws_alone():
    findings = numbered("MSP101", 120) + numbered("MSP102", 90)
    first = bench.sample(findings, 50, seed=1)
    assert first == bench.sample(list(reversed(findings)), 50, seed=1)
    assert len(first["MSP101"]) == len(first["MSP102"]) == 50

    fewer_101 = numbered("MSP101", 100) + numbered("MSP102", 90)
    assert bench.sample(fewer_101, 50, seed=1)["MSP102"] == first["MSP102"]
    assert bench.sample(fewer_101, 50, seed=1)["MSP101"] != first["MSP101"]
    fewer_102 = numbered("MSP101", 120) + numbered("MSP102", 60)
    assert bench.sample(fewer_102, 50, seed=1)["MSP101"] == first["MSP101"]
    assert bench.sample(findings, 50, seed=2)["MSP101"] != first["MSP101"]


def test_the_sample_is_the_documented_draw():
    findings = numbered("MSP101", 80)
    ordered = sorted(findings, key=lambda f: (f.repo, f.path, f.row, f.column))
    expected = random.Random("7:MSP101").sample(ordered, 10)
    assert bench.sample(findings, 10, seed=7)["MSP101"] == sorted(expected, key=bench.Finding.sort_key)


def test_a_rule_with_fewer_findings_than_the_sample_size_is_taken_whole():
    findings = numbered("MSP104", 3) + numbered("MSP101", 80)
    samples = bench.sample(findings, 50, seed=1)
    assert sorted(f.fingerprint for f in samples["MSP104"]) == ["MSP104-0", "MSP104-1", "MSP104-2"]
    assert len(samples["MSP101"]) == 50


# --------------------------------------------------------------------------- labels and scoring


def write_labels(path, *entries):
    tables = []
    for fp, verdict, why in entries:
        tables.append(f'[[label]]\nfingerprint = "{fp}"\nverdict = "{verdict}"\nwhy = "{why}"\n')
    path.write_text("# comment\n" + "\n".join(tables))
    return path


def test_scoring_counts_verdicts_and_precision_is_act_over_labelled(tmp_path):
    result = run_result(numbered("MSP101", 6) + numbered("MSP103", 2))
    labels = bench.load_labels(write_labels(
        tmp_path / "labels.toml",
        ("MSP101-0", "act", "fp32 Dense in the training net"),
        ("MSP101-1", "act", "same"),
        ("MSP101-2", "act", "same"),
        ("MSP101-3", "wrong", "covered by amp_level O2 in the YAML"),
        ("MSP101-4", "not-worth", "eval-only script"),
        ("MSP101-5", "", ""),  # a pasted stub, not decided yet
        ("MSP103-0", "act", "saves every epoch"),
        ("gone-from-the-findings", "act", "stale"),
    ))
    scores = {s.code: s for s in bench.score(result, labels, size=50, seed=1)}
    msp101 = scores["MSP101"]
    assert (msp101.total, len(msp101.sampled), len(msp101.labelled)) == (6, 6, 5)
    assert (msp101.count("act"), msp101.count("wrong"), msp101.count("not-worth")) == (3, 1, 1)
    assert msp101.precision == pytest.approx(0.6)
    assert [f.fingerprint for f in msp101.unlabelled] == ["MSP101-5"]
    assert scores["MSP103"].precision == 1.0 and [f.fingerprint for f in scores["MSP103"].unlabelled] == ["MSP103-1"]
    assert msp101.per_repo == {"o/r": 6}
    assert bench.unused_labels(result, labels, list(scores.values())) == (1, 0)
    assert bench.check_failures(list(scores.values()), 0.8) == [
        "MSP101: precision 60% (3 of 5) is under 80%",
        "MSP101: 1 sampled finding(s) have no verdict",
        "MSP103: 1 sampled finding(s) have no verdict",
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        ('[[label]]\nfingerprint = "ab"\nverdict = "maybe"\nwhy = "x"\n',
         "label 1 (ab): verdict 'maybe' is not one of"),
        ('[[label]]\nfingerprint = "ab"\nverdict = "act"\nwhy = ""\n', "label 1 (ab): `why` must say"),
        ('[[label]]\nverdict = "act"\nwhy = "x"\n', "label 1: `fingerprint` is missing"),
        ('[[label]]\nfingerprint = "ab"\nverdit = "act"\n', "unknown key(s) verdit"),
        ('[[label]]\nfingerprint = "ab"\n[[label]]\nfingerprint = "ab"\n', "label 2: fingerprint ab is labelled twice"),
        ('[[label]]\nfingerprint = "ab\n', "not valid TOML"),
    ],
)
def test_a_bad_labels_file_names_the_file_and_the_entry(tmp_path, text, expected):
    path = tmp_path / "labels.toml"
    path.write_text(text)
    with pytest.raises(bench.BenchError) as error:
        bench.load_labels(path)
    assert str(path) in str(error.value) and expected in str(error.value)


def test_a_label_stub_is_valid_toml_for_any_source_line(tmp_path):
    line = 'print("a\\tb")\t# 保存 \\ "quoted" \x7f'
    stub = bench.label_stub(finding(path="nb.ipynb", cell=4, fingerprint="f00d", line=line))
    path = tmp_path / "labels.toml"
    path.write_text(stub.replace('verdict = ""', 'verdict = "act"').replace('why = ""', 'why = "saves each epoch"'))
    assert bench.load_toml(path)["label"][0]["line"] == line
    assert bench.load_labels(path)["f00d"] == bench.Label("f00d", "act", "saves each epoch")


# --------------------------------------------------------------------------- docs


def test_docs_rewrite_replaces_only_the_generated_section(tmp_path):
    page = tmp_path / "precision.md"
    page.write_text(
        f"# Intro\nhand text\n\n{bench.DOCS_START}\nold numbers\n{bench.DOCS_END}\n\n## After\nmore hand text\n"
    )
    result = run_result(numbered("MSP101", 3), repos=("o/r", "o/other"))
    labels = {"MSP101-1": bench.Label("MSP101-1", "wrong", "a | pipe")}
    section = bench.docs_section(result, bench.score(result, labels, 50, 1), 50, 1)
    bench.rewrite_docs(page, section)
    text = page.read_text()
    assert text.startswith("# Intro\nhand text\n\n" + bench.DOCS_START)
    assert text.endswith(bench.DOCS_END + "\n\n## After\nmore hand text\n")
    assert "old numbers" not in text
    assert "| 3 | 3 | 0 | 3 | 1 | 0 | 1 | 0 | 0% |" in text
    assert "| wrong | a \\| pipe |" in text and "`cccccc" in text
    bench.rewrite_docs(page, section)
    assert page.read_text() == text


def test_docs_page_is_created_with_the_intro_above_the_markers(tmp_path):
    page = tmp_path / "docs" / "precision.md"
    bench.rewrite_docs(page, f"{bench.DOCS_START}\nnumbers\n{bench.DOCS_END}\n")
    text = page.read_text()
    intro = text[: text.index(bench.DOCS_START)]
    assert "run.py run --checkouts DIR --write-docs" in intro and "mindspore-ai/models" in intro
    assert all(verdict in intro for verdict in bench.VERDICTS)


def test_docs_with_broken_markers_are_left_alone(tmp_path):
    page = tmp_path / "precision.md"
    page.write_text(f"{bench.DOCS_END}\ntext\n{bench.DOCS_START}\n")
    with pytest.raises(bench.BenchError, match="fix the markers by hand"):
        bench.rewrite_docs(page, "x")
    assert page.read_text() == f"{bench.DOCS_END}\ntext\n{bench.DOCS_START}\n"


# --------------------------------------------------------------------------- checkouts


def test_a_missing_checkout_says_where_it_looked(tmp_path):
    repos = bench.load_manifest()["development"]
    (tmp_path / "mindspore-lab+mindcv").mkdir()
    (tmp_path / "mindocr").mkdir()
    with pytest.raises(bench.BenchError) as error:
        bench.find_checkouts(repos, tmp_path)
    message = str(error.value)
    assert "mindcv" not in message and "mindocr" not in message
    assert f"no checkout of mindspore-lab/mindyolo: looked for {tmp_path / 'mindspore-lab+mindyolo'} or " \
           f"{tmp_path / 'mindyolo'}" in message
    assert message.count("no checkout of") == len(repos) - 2


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_repository_that_cannot_be_fetched_is_named(tmp_path):
    repo = bench.Repo("o/r", str(tmp_path / "does-not-exist"), "a" * 40, "w")
    with pytest.raises(bench.BenchError) as error:
        bench.clone_checkouts([repo], tmp_path / "checkouts")
    assert f"could not fetch o/r from {repo.url}" in str(error.value)
    assert not (tmp_path / "checkouts" / "o+r").exists()


# --------------------------------------------------------------------------- end to end, with a fake linter

FAKE_LINTER = """
import json, os, sys
if sys.argv[1:] == ["--version"]:
    print("ms-perflint 9.9.9")
    sys.exit(0)
checkout = sys.argv[-1]
name = os.path.basename(checkout)
if "--show-files" in sys.argv:
    for folder, _, files in os.walk(checkout):
        for file in files:
            print(os.path.join(folder, file))
    sys.exit(0)
if name == "broken":
    print("Traceback: boom", file=sys.stderr)
    sys.exit(2)
findings = {FINDINGS}
print(json.dumps(findings.get(name, [])))
"""


def make_project(tmp_path, repos):
    """A manifest, checkouts and a fake linter for ``repos`` (``{short name: findings}``)."""
    manifest = tmp_path / "manifest.toml"
    manifest.write_text("".join(
        f'[[development]]\nname = "owner/{name}"\nurl = "https://github.com/owner/{name}"\n'
        f'commit = "{"1" * 40}"\nwhat = "test repo"\n'
        for name in repos
    ))
    checkouts = tmp_path / "checkouts"
    for name in repos:
        (checkouts / name).mkdir(parents=True)
        (checkouts / name / "train.py").write_text("import mindspore\n\nnet = nn.Dense(768, 30522)\nsave(net)\n")
    linter = tmp_path / "fake_linter.py"
    linter.write_text(FAKE_LINTER.replace("{FINDINGS}", repr(repos)))
    options = [
        "--manifest", str(manifest), "--labels", str(tmp_path / "labels.toml"),
        "--results", str(tmp_path / "results" / "findings.json"),
    ]
    run = ["run", "--checkouts", str(checkouts), *options,
           "--linter-command", f"{shlex.quote(sys.executable)} {shlex.quote(str(linter))}"]
    return run, options


def test_run_show_and_score_end_to_end(tmp_path, capsys):
    notebook = {"cells": [{"cell_type": "code", "source": ["import mindspore\n", "x = nn.Dense(1, 3)\n"]}]}
    repos = {
        "alpha": [
            {"code": "MSP102", "message": "dim 30522", "filename": "train.py", "location": {"row": 3, "column": 7}},
            {"code": "MSP103", "message": "sync save", "filename": "train.py", "location": {"row": 4, "column": 1},
             "fix": {"applicability": "safe", "message": "Add async_save=True", "edits": []}},
        ],
        "beta": [
            {"code": "MSP102", "message": "dim 3", "filename": "course.ipynb", "cell": 1,
             "location": {"row": 2, "column": 5}},
            {"code": None, "name": "SyntaxError", "message": "SyntaxError: x", "filename": "bad.py",
             "location": {"row": 1, "column": 1}},
            {"code": None, "name": "Notice", "message": "cell 4 skipped: not Python", "filename": "course.ipynb",
             "location": {"row": 1, "column": 1}},
        ],
    }
    run, options = make_project(tmp_path, repos)
    (tmp_path / "checkouts" / "beta" / "course.ipynb").write_text(json.dumps(notebook))
    docs = tmp_path / "precision.md"

    assert bench.main([*run, "--write-docs", "--docs", str(docs)]) == 0
    out = capsys.readouterr().out
    assert "ms-perflint 9.9.9" in out
    assert "MSP102         2        2         0" in out
    assert "Files not checked (the linter could not read or parse them): 1 (owner/beta 1)" in out
    assert "Notebook cells skipped as not Python (the rest of each notebook was checked): 1 in 1 notebook(s)" in out
    saved = json.loads((tmp_path / "results" / "findings.json").read_text())
    assert [(f["repo"], f["path"], f["line"]) for f in saved["findings"]] == [
        ("owner/alpha", "train.py", "net = nn.Dense(768, 30522)"),
        ("owner/alpha", "train.py", "save(net)"),
        ("owner/beta", "course.ipynb", "x = nn.Dense(1, 3)"),
    ]
    assert "| 2 | 1 | 1 | 2 | 0 | 0 | 0 | 0 | - |" in docs.read_text()

    assert bench.main(["show", *options, "--code", "msp103"]) == 0
    shown = capsys.readouterr().out
    assert "> 4 | save(net)" in shown and "  3 | net = nn.Dense(768, 30522)" in shown
    assert "fix (safe): Add async_save=True" in shown and "MSP102" not in shown

    assert bench.main(["score", *options, "--check"]) == 1
    assert "MSP103: 1 sampled finding(s) have no verdict" in capsys.readouterr().out
    assert bench.main(["show", *options]) == 0
    stubs = re.findall(r"^\[\[label\]\]\n(?:.+\n)+", capsys.readouterr().out, flags=re.M)
    assert len(stubs) == 3
    labels = "\n".join(stubs).replace('verdict = ""', 'verdict = "act"').replace('why = ""', 'why = "worth it"')
    (tmp_path / "labels.toml").write_text(labels)
    assert bench.main(["score", *options, "--check"]) == 0
    out = capsys.readouterr().out
    assert "MSP102         2        2         2    2      0          0       100%" in out
    assert "check passed" in out


def test_a_failing_linter_or_a_bad_labels_file_is_reported_without_a_traceback(tmp_path, capsys):
    run, options = make_project(tmp_path, {"alpha": [], "broken": []})
    assert bench.main(run) == 2
    error = capsys.readouterr().err
    assert "the linter failed on owner/broken (exit code 2)" in error and "Traceback: boom" in error
    assert "Traceback (most recent call last)" not in error

    (tmp_path / "labels.toml").write_text('[[label]]\nfingerprint = "x"\nverdict = "yes"\nwhy = "y"\n')
    assert bench.main(["score", *options]) == 2
    assert f"{tmp_path / 'labels.toml'}: label 1 (x): verdict 'yes'" in capsys.readouterr().err


def test_score_without_a_saved_run_says_to_run_first(tmp_path, capsys):
    assert bench.main(["score", "--results", str(tmp_path / "none.json"), "--labels", str(tmp_path / "l.toml")]) == 2
    assert "no saved findings; run `run.py run --set development` first" in capsys.readouterr().err


def test_the_held_out_set_is_never_written_into_the_docs(tmp_path, capsys):
    assert bench.main(["score", "--set", "heldout", "--write-docs", "--docs", str(tmp_path / "p.md")]) == 2
    assert "--write-docs reports the development set only" in capsys.readouterr().err
    assert not (tmp_path / "p.md").exists()


def test_the_linter_source_is_only_looked_up_for_a_python_module_command():
    assert bench.linter_source(["ms-perflint"]) == ""


# --------------------------------------------------------------------------- blind draw of training programs


def write_repo(root, files):
    """Files ``{relative path: text}`` under ``root``; a dict text is written as a notebook of code cells."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, dict):
            cells = [{"cell_type": kind, "source": source} for kind, source in text["cells"]]
            text = json.dumps({"cells": cells})
        path.write_text(text)


GUARDED_TRAIN = "import mindspore as ms\n\ndef main():\n    model.train(3, ds)\n\nif __name__ == '__main__':\n    main()\n"


@pytest.mark.parametrize("relative, text", [
    ("train.py", GUARDED_TRAIN),
    ("flat.py", "from mindspore import nn\nnet = Net()\nstep = nn.TrainOneStepWithLossScaleCell(net, opt)\nfor d in ds:\n    step(*d)\n"),
    ("grad.py", "import mindspore\ngrad_fn = mindspore.value_and_grad(f, None, w)\nmain()\n"),
    ("fit.py", "from mindspore.train import Model\nm = ms.Model(net)\nm.fit(2, ds)\nrun()\n"),
    ("llm.py", "from mindformers import Trainer\nif __name__ == \"__main__\":\n    Trainer(config).train()\n"),
    ("amp.py", "from mindspore import amp\nnet = amp.build_train_network(net, opt)\nloop(net)\n"),
    ("nb.ipynb", {"cells": [("markdown", "# train"), ("code", ["import mindspore\n", "model.train(1, ds)\n"])]}),
    ("tools/__main__.py", GUARDED_TRAIN),
])
def test_a_training_program_is_told_from_its_text(tmp_path, relative, text):
    write_repo(tmp_path, {relative: text})
    assert bench.find_programs(tmp_path) == [relative]


@pytest.mark.parametrize("relative, text", [
    # a library module: definitions only, or set-up calls of private and register names
    ("lib/trainer.py", "import mindspore\ndef train(model):\n    model.train(3, ds)\n"),
    ("lib/wrap.py", "import mindspore\nfrom mindspore import nn\nclass S(nn.TrainOneStepCell):\n    pass\n"
                    "_register(S)\nregister_all()\n__all__.extend(['S'])\n"),
    ("pkg/__init__.py", "import mindspore\nmodel.train(1, ds)\n"),
    # tests, documentation, set-up files, hidden folders
    ("tests/st/run.py", GUARDED_TRAIN),
    ("docs/example.py", GUARDED_TRAIN),
    ("test_train.py", GUARDED_TRAIN),
    ("train_test.py", GUARDED_TRAIN),
    ("setup.py", GUARDED_TRAIN),
    (".ipynb_checkpoints/nb.py", GUARDED_TRAIN),
    # not MindSpore code, or code that does not train
    ("torch_train.py", "import torch\nif __name__ == '__main__':\n    model.train()\n"),
    ("cluster.py", "import mindspore\nfrom sklearn.cluster import KMeans\nKMeans(3).fit(x)\n"),
    ("hf.py", "import mindnlp\nfrom transformers import Trainer\nTrainer(model)\n"),
    ("infer.py", "import mindspore\nif __name__ == '__main__':\n    model.predict(x)\n"),
    ("nb.ipynb", {"cells": [("markdown", "import mindspore\nmodel.train(1, ds)"), ("code", "import mindspore\n")]}),
    ("broken.ipynb", "not json"),
])
def test_what_is_not_a_training_program(tmp_path, relative, text):
    write_repo(tmp_path, {relative: text})
    assert bench.find_programs(tmp_path) == []


def test_the_draw_is_seeded_uniform_over_all_programs_and_sorted():
    programs = {"o/b": [f"b{i}.py" for i in range(30)], "o/a": [f"a{i}.py" for i in range(10)]}
    first = bench.draw_programs(programs, 8, seed=5)
    assert first == bench.draw_programs(programs, 8, seed=5)
    assert first != bench.draw_programs(programs, 8, seed=6)
    assert len(set(first)) == 8 and [repo for repo, _ in first] == sorted((r for r, _ in first), reverse=True)
    pool = sorted((repo, path) for repo, paths in programs.items() for path in paths)
    assert set(first) == set(random.Random("draw:5").sample(pool, 8))  # the documented draw
    assert len(bench.draw_programs(programs, 100, seed=5)) == 40
    # uniform over programs, not over repositories: o/b holds 3/4 of them
    hits = sum(repo == "o/b" for seed in range(200) for repo, _ in bench.draw_programs(programs, 4, seed))
    assert 0.68 < hits / 800 < 0.82


def test_the_draw_writes_a_toml_template_to_judge(tmp_path, monkeypatch):
    checkouts = tmp_path / "co"
    write_repo(checkouts / "o+a", {"train.py": GUARDED_TRAIN, "lib.py": "import mindspore\n"})
    write_repo(checkouts / "b", {"x/run.py": GUARDED_TRAIN, "x/nb.ipynb": {"cells": [("code", GUARDED_TRAIN)]}})
    manifest = tmp_path / "manifest.toml"
    manifest.write_text("".join(
        f'[[development]]\nname = "o/{n}"\nurl = "u"\ncommit = "{c * 40}"\nwhat = "w"\n' for n, c in (("a", "a"), ("b", "b"))
    ))
    monkeypatch.setattr(bench, "linter_rules", lambda command: [bench.Rule("MSP101", "x"), bench.Rule("MSP103", "y")])
    out = tmp_path / "audits" / "t.toml"
    argv = ["draw", "--checkouts", str(checkouts), "--count", "2", "--seed", "3", "--out", str(out),
            "--manifest", str(manifest)]
    assert bench.main(argv) == 0
    text = out.read_text()
    assert re.search(r"#   o/a\s+\d / 1\n#   o/b\s+\d / 2\n", text)
    data = bench.load_toml(out)
    assert (data["set"], data["seed"], data["count"]) == ("development", 3, 2)
    assert len(data["program"]) == 2
    for program in data["program"]:
        assert program["commit"] == ("a" if program["repo"] == "o/a" else "b") * 40
        assert (program["device"], program["files"], program["notes"]) == ("", [], "")
        assert program["judged"] == ["MSP101", "MSP103"]
        assert "problem" not in program  # the example is a comment
    assert {(p["repo"], p["entry"]) for p in data["program"]} <= {("o/a", "train.py"), ("o/b", "x/run.py"),
                                                                     ("o/b", "x/nb.ipynb")}
    # uncommenting the example gives a problem of the last program
    example = re.sub(r"(?m)^# (\[\[program\.problem\]\]|code|path|line|why) ", r"\1 ", text)
    assert bench.tomllib.loads(example)["program"][-1]["problem"][0]["code"] == "MSP103"
    # a template is never overwritten by accident: it may hold judgements
    assert bench.main(argv) == 2
    assert bench.main([*argv, "--force"]) == 0
    # a report draw never repeats the programs of an earlier draw (--exclude): here only one is left to draw
    report = tmp_path / "audits" / "r.toml"
    argv = ["draw", "--checkouts", str(checkouts), "--count", "3", "--seed", "4", "--out", str(report),
            "--manifest", str(manifest), "--exclude", str(out)]
    assert bench.main(argv) == 0
    earlier = {(p["repo"], p["entry"]) for p in data["program"]}
    again = {(p["repo"], p["entry"]) for p in bench.load_toml(report)["program"]}
    assert len(again) == 1 and not again & earlier


# --------------------------------------------------------------------------- the smoke run: internal errors fail it

INTERNAL = "internal error in MSP101 (fp32-matmul): RecursionError: maximum recursion depth exceeded"


def test_a_smoke_run_fails_on_an_internal_error_and_lists_it_with_the_times(tmp_path, capsys):
    failing = [{"code": "MSP000", "message": INTERNAL, "filename": name, "location": {"row": 1, "column": 1}}
               for name in ("train.py", "a.py", "b.py", "c.py", "d.py")]
    run, options = make_project(tmp_path, {"alpha": [], "beta": failing})
    smoke = ["smoke", *run[1:]]
    assert bench.main(smoke) == 1
    out = capsys.readouterr().out
    assert re.search(r"^owner/alpha\s+1\s+0\s+0\s+\d+$", out, flags=re.M)  # files, findings, internal errors, seconds
    assert re.search(r"^owner/beta\s+1\s+0\s+5\s+\d+$", out, flags=re.M)
    assert "smoke failed: 5 internal error(s) (MSP000) in 5 file(s):" in out
    assert f"  owner/beta: {INTERNAL}\n    in 5 file(s): train.py, a.py, b.py and 2 more" in out
    saved = json.loads((tmp_path / "results" / "findings.json").read_text())
    assert saved["findings"] == [] and len(saved["internal_errors"]) == 5 and set(saved["seconds"]) == {
        "owner/alpha", "owner/beta"}

    assert bench.main([*smoke, "-v"]) == 1
    assert "in 5 file(s): train.py, a.py, b.py, c.py, d.py\n" in capsys.readouterr().out

    # `run` fails the same way, after its report; an internal error is never sampled as a finding
    assert bench.main(run) == 1
    out = capsys.readouterr().out
    assert "run failed: 5 internal error(s)" in out and "Internal errors (MSP000, a rule failed): 5 (owner/beta 5)" in out
    assert "MSP000" not in out.split("Internal errors")[0]


def test_a_smoke_run_without_internal_errors_passes(tmp_path, capsys):
    finding = {"code": "MSP103", "message": "sync save", "filename": "train.py", "location": {"row": 4}}
    run, _ = make_project(tmp_path, {"alpha": [finding]})
    assert bench.main(["smoke", *run[1:]]) == 0
    out = capsys.readouterr().out
    assert "smoke passed: no internal errors" in out
    assert re.search(r"^MSP103\s+1\s+1$", out, flags=re.M)  # findings per rule: all, then per repository


# --------------------------------------------------------------------------- blind audit: compare


def test_a_finding_answers_a_problem_within_three_lines_or_on_its_statement():
    code = "x = 1\ncfg = CheckpointConfig(\n    a=1,\n    b=2,\n    c=3,\n    d=4,\n)\nfor i in range(3):\n    y = i\n"
    spans = bench.statement_spans(code)
    assert (2, 7) in spans and (8, 8) in spans and (9, 9) in spans  # a compound statement: its header only

    def span(line):
        holding = [s for s in spans if s[0] <= line <= s[1]]
        return min(holding, key=lambda s: s[1] - s[0]) if holding else None

    assert bench.match([(2, span(2))], [(7, span(7))]) == {0: 0}  # 5 lines apart, one statement
    assert bench.match([(1, span(1))], [(4, span(4))]) == {0: 0}  # 3 lines apart
    assert bench.match([(1, span(1))], [(5, span(5))]) == {}  # 4 lines apart, another statement
    assert bench.match([(2, span(2))], [(9, span(9))]) == {}


def test_matching_is_one_to_one_and_answers_as_many_problems_as_it_can():
    # problem 0 (line 10) is nearest to finding 0 (line 12), the only finding near problem 1 (line 15)
    assert bench.match([(10, None), (15, None)], [(12, None), (7, None)]) == {0: 1, 1: 0}
    assert bench.match([(10, None)], [(11, None), (10, None)]) == {0: 1}  # the nearer one
    assert bench.match([(10, None), (11, None)], [(10, None)]) == {0: 0}


def test_a_second_finding_on_an_answered_problem_is_left_to_the_adjudication(tmp_path):
    programs = bench.load_audit(audit_file(tmp_path))
    found = [finding("MSP103", path="train.py", row=10), finding("MSP103", path="train.py", row=12)]
    result = bench.compare_program(programs[0], found, tmp_path, bench.Statements(bench.SourceFiles()))
    assert [(c.line, c.status, c.near) for c in result.findings] == [(10, "found", None), (12, "pending", 10)]


def notebook_json(*cells):
    return json.dumps({"cells": [{"cell_type": kind, "source": source} for kind, source in cells]})


def test_a_notebook_line_counts_the_code_cells_joined_in_order(tmp_path):
    (tmp_path / "nb.ipynb").write_text(notebook_json(
        ("markdown", "# Title\nwords\n"),
        ("code", ["import mindspore as ms\n", "net = Net()\n"]),  # ends with a newline: 3 lines when joined
        ("markdown", "more words"),
        ("code", "%matplotlib inline\nckpt = CheckpointConfig(\n    save_checkpoint_steps=10)\nmodel.train(1, ds)"),
    ))
    statements = bench.Statements(bench.SourceFiles())
    file = tmp_path / "nb.ipynb"
    assert statements.line(file, finding(path="nb.ipynb", row=2, cell=4)) == 5
    assert statements.line(file, finding(path="nb.ipynb", row=1, cell=2)) == 1
    assert statements.statement(file, 6) == (5, 6)  # the call spans two lines; the magic line does not break it
    assert statements.statement(file, 7) == (7, 7)
    assert statements.line(tmp_path / "m.py", finding(path="m.py", row=7)) == 7


PROGRAM = """
[[program]]
repo = "o/r"
commit = "{commit}"
entry = "train.py"
files = ["data.py"]
judged = ["MSP103", "MSP301"]
{extra}
[[program.problem]]
code = "MSP103"
path = "train.py"
line = 10
why = "every-epoch save"

[[program.problem]]
code = "MSP103"
path = "train.py"
line = 30
why = "a second save"

[[program.problem]]
code = "MSP301"
path = "data.py"
line = 5
why = "one worker"
"""

SECOND_PROGRAM = """
[[program]]
repo = "o/r"
commit = "{commit}"
entry = "other.py"
judged = ["MSP301"]
"""


def audit_file(tmp_path, extra="", commit="1" * 40):
    path = tmp_path / "audits" / "t-1.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('set = "development"\n' + PROGRAM.format(commit=commit, extra=extra)
                    + SECOND_PROGRAM.format(commit=commit))
    return path


def audit_findings():
    return [
        finding("MSP103", path="train.py", row=12, fingerprint="a"),  # answers the problem at line 10
        finding("MSP103", path="train.py", row=50, fingerprint="b"),  # not judged
        finding("MSP103", path="train.py", row=60, fingerprint="c"),  # not judged
        finding("MSP101", path="train.py", row=3, fingerprint="d"),  # a rule the program does not judge
        finding("MSP103", path="lib.py", row=1, fingerprint="e"),  # a file outside the programs
        finding("MSP103", path="other.py", row=1, fingerprint="f"),  # other.py does not judge MSP103
        finding("MSP301", path="other.py", row=2, fingerprint="g"),  # not judged, in the second program
    ]


def test_compare_scores_recall_and_a_precision_range_per_rule(tmp_path):
    adjudicated = ('[[program.adjudicated]]\ncode = "MSP103"\npath = "train.py"\nline = 50\nverdict = "act"\n'
                   'why = "the judge missed it"\n\n'
                   '[[program.adjudicated]]\ncode = "MSP103"\npath = "train.py"\nline = 99\nverdict = "wrong"\n'
                   'why = "moved"\n')
    programs = bench.load_audit(audit_file(tmp_path, extra=adjudicated))
    assert programs[0].files == ["train.py", "data.py"] and programs[1].files == ["other.py"]
    statements = bench.Statements(bench.SourceFiles())
    results = [bench.compare_program(p, audit_findings(), tmp_path, statements) for p in programs]
    first, second = results
    assert [a and a.finding.row for a in first.answers] == [12, None, None]
    assert [(c.finding.row, c.status) for c in first.findings] == [(12, "found"), (50, "act"), (60, "pending")]
    assert first.other_rules == 1 and [a.line for a in first.stale] == [99]
    assert [(c.finding.code, c.status) for c in second.findings] == [("MSP301", "pending")]
    assert second.other_rules == 1

    rules = {rule.code: rule for rule in bench.tally(results)}
    msp103, msp301 = rules["MSP103"], rules["MSP301"]
    assert (msp103.judged, msp103.found, msp103.missed, msp103.findings, msp103.unjudged) == (2, 1, 1, 3, 2)
    assert msp103.recall == 0.5 and msp103.precision() == (2 / 3, 1.0) and msp103.cases == 5
    assert bench.precision_text(msp103) == "67-100%"
    assert (msp301.judged, msp301.found, msp301.findings, msp301.cases) == (1, 0, 1, 2)
    assert msp301.recall == 0 and bench.precision_text(msp301) == "0-100%"
    assert "MSP101" not in rules
    total = bench.total_tally(list(rules.values()))
    assert (total.judged, total.found, total.findings, total.verdicts["pending"]) == (3, 1, 4, 2)


@pytest.mark.parametrize("extra, expected", [
    ('[[program.adjudicated]]\ncode = "MSP103"\npath = "train.py"\nline = 5\nverdict = "maybe"\nwhy = "w"\n',
     "adjudicated 1: verdict 'maybe' is not one of act, wrong, not-worth"),
    ('[[program.adjudicated]]\ncode = "MSP103"\npath = "train.py"\nverdict = "act"\nwhy = "w"\n',
     "adjudicated 1: `line` is missing or not a line number"),
    ('colour = "red"', "program 1 (train.py): unknown key(s) colour"),
])
def test_a_bad_judgement_file_names_the_program_and_the_entry(tmp_path, extra, expected):
    path = audit_file(tmp_path, extra=extra)
    with pytest.raises(bench.BenchError, match=re.escape(expected)):
        bench.load_audit(path)


def make_audit_project(tmp_path, findings):
    """A plain-copy checkout of o/r, a manifest and a fake linter printing ``findings`` for it."""
    checkout = tmp_path / "checkouts" / "o+r"
    checkout.mkdir(parents=True)
    (checkout / "train.py").write_text("import mindspore\n" * 70)
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(f'[[development]]\nname = "o/r"\nurl = "https://github.com/o/r"\ncommit = "{"1" * 40}"\n'
                        'what = "w"\n')
    linter = tmp_path / "fake_linter.py"
    linter.write_text(FAKE_LINTER.replace("{FINDINGS}", repr({"o+r": findings})))
    return ["--checkouts", str(tmp_path / "checkouts"), "--manifest", str(manifest),
            "--linter-command", f"{shlex.quote(sys.executable)} {shlex.quote(str(linter))}"]


def test_compare_end_to_end_then_again_from_the_saved_findings(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bench, "RESULTS", tmp_path / "results")
    printed = [{"code": f.code, "message": f"says {f.fingerprint}", "filename": f.path, "location": {"row": f.row}}
               for f in audit_findings()]
    printed.append({"code": "MSP000", "message": INTERNAL, "filename": "train.py"})
    options = make_audit_project(tmp_path, printed)
    audit = audit_file(tmp_path)
    assert bench.main(["compare", str(audit), *options]) == 0
    out = capsys.readouterr().out
    assert "Commits not verified (plain copies without .git, taken as the judged commit): o/r" in out
    assert "WARNING: 1 internal error(s) (MSP000)" in out
    assert re.search(r"^MSP103\s+2\s+1\s+1\s+3\s+2\s+0\s+0\s+0\s+2\s+50%\s+33-100%$", out, flags=re.M)
    assert re.search(r"^MSP301\s+1\s+0\s+1\s+1\s+1\s+0\s+0\s+0\s+1\s+0%\s+0-100%\s+not judged alone$", out,
                     flags=re.M)
    assert "  MSP103  o/r  train.py:30  (program 1)  a second save" in out
    assert "  MSP103  o/r  train.py:10 <- train.py:12 (line 12)" in out
    assert "  MSP103  o/r  train.py:50  (program 1)  [pending]\n      says b" in out
    saved = json.loads((tmp_path / "audits" / "t-1.results.json").read_text())
    assert saved["rules"][0]["code"] == "MSP103" and saved["rules"][0]["recall"] == 0.5
    assert saved["programs"][0]["problems"][0]["found"]["line"] == 12
    assert {f["message"] for f in saved["findings"]} == {f"says {x}" for x in "abcdfg"}  # the programs' files
    assert (tmp_path / "results" / "audit-t-1.json").exists()

    # adjudicate from the printed stub, then score again without linting
    stub = re.search(r'\[\[program\.adjudicated\]\]\ncode = "MSP103"\npath = "train.py"\nline = 50\n.*\n.*\n', out)
    adjudication = stub.group(0).replace('verdict = ""  # act | wrong | not-worth', 'verdict = "act"')
    audit.write_text(audit.read_text().replace('why = "every-epoch save"\n',
                                               'why = "every-epoch save"\n\n' + adjudication.replace('why = ""', 'why = "w"'), 1))
    monkeypatch.setattr(bench, "lint_checkouts", lambda *a: pytest.fail("--saved must not lint"))
    saved_file = tmp_path / "audits" / "t-1.results.json"
    assert bench.main(["compare", str(audit), "--saved", str(saved_file)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^MSP103\s+2\s+1\s+1\s+3\s+2\s+1\s+0\s+0\s+1\s+50%\s+67-100%$", out, flags=re.M)
    assert "train.py:50  (program 1)  [act: w]" in out


def test_compare_refuses_a_git_checkout_at_another_commit(tmp_path, capsys):
    options = make_audit_project(tmp_path, [])
    audit = audit_file(tmp_path, commit="2" * 40)
    checkout = tmp_path / "checkouts" / "o+r"
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    import subprocess
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    subprocess.run(["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    assert bench.main(["compare", str(audit), *options]) == 2
    assert "but the manifest pins o/r to 222222222222" in capsys.readouterr().err
