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
    ]
    findings, not_checked, malformed = bench.parse_linter_output(json.dumps(output), "o/r", tmp_path)
    assert [(f.path, f.code, f.row, f.column, f.cell, f.fixable, f.applicability) for f in findings] == [
        ("sub/train.py", "MSP103", 4, 9, None, True, "safe"),
        ("nb.ipynb", "MSP101", 2, 0, 3, False, ""),
    ]
    assert [(n.path, n.kind) for n in not_checked] == [("bad.py", "SyntaxError")]
    assert malformed == 2


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
