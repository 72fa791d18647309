"""Jupyter notebooks: code cells linted as one module, findings by cell, fixes written into the JSON.

Every expected position below is read off the cells written in the test:
``cell N`` counts every cell (markdown too), lines and columns are 1-based in that cell.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import libcst as cst
import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from ms_perflint.engine import lint_file, lint_source
from ms_perflint.notebook import fix_notebook_source, lint_notebook, neutralise, read_notebook, replace_sources
from ms_perflint.rule import Fix, FixSafety, Rule
from ms_perflint.settings import Settings
from tests.conftest import run_cli

Source = Union[str, List[str]]


def code(source: Source, **extra: Any) -> Dict[str, Any]:
    """A code cell as Jupyter writes it (keys in nbformat's sorted order)."""
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
    cell.update(extra)
    return cell


def markdown(source: Source) -> Dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


PYTHON_METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python", "version": "3.9.0"},
}


def notebook(cells: Sequence[Dict[str, Any]], metadata: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    metadata = PYTHON_METADATA if metadata is None else metadata
    return {"cells": list(cells), "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def as_jupyter_writes_it(document: Dict[str, Any]) -> str:
    """nbformat's layout: sorted keys, one-space indent, raw non-ASCII, a final newline."""
    return json.dumps(document, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def findings(text: str, path: str = "course.ipynb") -> List[tuple]:
    result = lint_notebook(text, path, Settings())
    assert result.error is None, result.error
    return [(v.code, v.cell, v.line, v.column + 1) for v in result.violations]


IMPORTS = ["import mindspore as ms\n", "from mindspore.train import CheckpointConfig"]

# --- positions --------------------------------------------------------------------------------


def test_finding_is_reported_in_its_cell_with_imports_from_an_earlier_cell():
    text = as_jupyter_writes_it(
        notebook(
            [
                markdown(["# Training LeNet\n", "Set up first."]),
                code(IMPORTS),
                markdown("Now the checkpoint config:"),
                code(["x = 1\n", "config = CheckpointConfig(save_checkpoint_steps=10)"]),
            ]
        )
    )
    # Cell 4 (markdown counts), line 2, ``CheckpointConfig`` starts at column 10.
    assert findings(text) == [("MSP103", 4, 2, 10)]


def test_cell_without_its_own_imports_is_not_mindspore_code_on_its_own_but_is_in_the_notebook():
    text = as_jupyter_writes_it(notebook([code("config = CheckpointConfig()")]))
    assert findings(text) == []  # nothing imports CheckpointConfig: not MindSpore's


def test_cells_are_numbered_among_all_cells_and_lines_within_the_cell():
    text = as_jupyter_writes_it(
        notebook(
            [
                code(IMPORTS),
                markdown("text"),
                {"cell_type": "raw", "metadata": {}, "source": "raw text"},
                code(["\n", "\n", "    \n", "cfg = CheckpointConfig(\n", "    keep_checkpoint_max=5,\n", ")\n"]),
                code("a = 1\nb = CheckpointConfig()\n"),
            ]
        )
    )
    assert findings(text) == [("MSP103", 4, 4, 7), ("MSP103", 5, 2, 5)]


def test_end_position_counts_within_the_cell_too():
    call = ["cfg = CheckpointConfig(\n", "    keep_checkpoint_max=5,\n", ")"]
    text = as_jupyter_writes_it(notebook([code(IMPORTS), code(call)]))
    [violation] = lint_notebook(text, "course.ipynb", Settings()).violations
    assert (violation.cell, violation.line, violation.end_line, violation.end_column) == (2, 1, 3, 1)


def test_magics_shell_escapes_and_help_lines_keep_line_numbers():
    text = as_jupyter_writes_it(
        notebook(
            [
                code(["!pip install mindspore==2.3\n", "%matplotlib inline\n"] + IMPORTS),
                code(
                    [
                        "ms.Tensor?\n",
                        "?CheckpointConfig\n",
                        "files = !ls *.ckpt\n",
                        "for step in range(3):\n",
                        "    %time step\n",
                        "config = CheckpointConfig(save_checkpoint_steps=1)\n",
                    ]
                ),
            ]
        )
    )
    assert findings(text) == [("MSP103", 2, 6, 10)]


def test_line_magic_without_percent_is_neutralised_only_when_it_is_not_python():
    source = (
        "pip install mindspore==2.3\ncd ..\ntime = 5\nrun(train)\ntime.sleep(1)\nls in names\n"
        "config = CheckpointConfig(\n    keep_checkpoint_max=1)\ntime (\n    1)\nenv += [\n    1]\n"
    )
    cell = neutralise(source, 0)
    assert cell is not None
    assert cell.ipython_lines == {0: "pip install mindspore==2.3\n", 1: "cd ..\n"}


def test_cell_magic_skips_the_whole_cell():
    text = as_jupyter_writes_it(
        notebook(
            [
                code(IMPORTS),
                code("%%time\nconfig = CheckpointConfig(save_checkpoint_steps=10)"),
                code("\n%%writefile train.py\nconfig = CheckpointConfig()"),
            ]
        )
    )
    assert findings(text) == []


def test_percent_and_bang_inside_strings_and_brackets_are_python():
    cell = [
        'template = """\n',
        "%d checkpoints\n",
        "!not a shell command\n",
        '"""\n',
        "ratio = (7\n",
        "% 3)\n",
        "same = ratio != 1\n",
        "question = 1  # why?\n",
        "a = CheckpointConfig()\n",
    ]
    neutralised = neutralise("".join(cell), 1)
    assert neutralised is not None and neutralised.ipython_lines == {}
    text = as_jupyter_writes_it(notebook([code(IMPORTS), code(cell)]))
    assert findings(text) == [("MSP103", 2, 9, 5)]


def test_neutralise_replaces_only_ipython_lines_and_keeps_their_count():
    cell = neutralise("import os\n%load_ext autoreload\nfor i in x:\n    !echo {i}\nprint('%s' % i)\n", 0)
    assert cell is not None
    assert len(cell.lines) == 5
    assert sorted(cell.ipython_lines) == [1, 3]
    assert cell.lines[0] == "import os\n" and cell.lines[4] == "print('%s' % i)\n"
    assert cell.lines[3].startswith("    pass  #")  # indented: the for-loop body stays valid
    compile("".join(cell.lines), "cell", "exec")


def test_noqa_in_a_cell_suppresses_the_finding():
    text = as_jupyter_writes_it(
        notebook([code(IMPORTS), code("config = CheckpointConfig()  # noqa: MSP103\nother = CheckpointConfig()")])
    )
    assert findings(text) == [("MSP103", 2, 2, 9)]


def test_file_level_noqa_in_any_cell_covers_the_notebook():
    text = as_jupyter_writes_it(
        notebook([code(IMPORTS), code("config = CheckpointConfig()"), code("# ms-perflint: noqa: MSP103\nx = 1")])
    )
    assert findings(text) == []


def test_non_python_notebook_is_skipped_without_error():
    r_metadata = {"kernelspec": {"language": "R", "name": "ir"}, "language_info": {"name": "R"}}
    text = as_jupyter_writes_it(notebook([code(IMPORTS), code("config = CheckpointConfig()")], metadata=r_metadata))
    assert findings(text) == []


def test_syntax_error_is_reported_in_its_cell_where_the_cell_alone_has_it():
    broken = "x = 1\ny = CheckpointConfig()\ndef broken(:\n    pass"
    alone = lint_source("import mindspore\n" + broken, "cell.py", Settings()).error
    assert alone is not None and alone.line > 1
    text = as_jupyter_writes_it(notebook([markdown("m"), code(IMPORTS), code(broken)]))
    error = lint_notebook(text, "course.ipynb", Settings()).error
    assert error is not None
    assert (error.kind, error.cell, error.line, error.column) == ("SyntaxError", 3, alone.line - 1, alone.column)
    assert "@" not in error.message  # libcst's "@ line:col" would name a line of the joined cells


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"{not json", "invalid JSON"),
        (b"", "invalid JSON"),
        (b'{"cells": {}}', "no list of cells"),
        (b"[1, 2]", "no list of cells"),
        (b'{"worksheets": [], "nbformat": 3}', "nbformat 3"),
        (b'{"cells": [{"cell_type": "code", "source": 7}]}', "cell 1: `source`"),
        (b'{"cells": []}\xff', "not UTF-8"),
    ],
)
def test_files_that_are_not_notebooks_come_back_as_one_error(content: bytes, expected: str):
    result = lint_notebook(content, "broken.ipynb", Settings())
    assert result.error is not None and result.error.kind == "NotebookError"
    assert expected in result.error.message
    assert "\n" not in result.error.message


# --- fixing -----------------------------------------------------------------------------------


def fixed_text(text: str, **kwargs: Any) -> str:
    outcome = fix_notebook_source(text, "course.ipynb", Settings(), **kwargs)
    assert not outcome.problems, outcome.problems
    assert outcome.fixed_text is not None
    return outcome.fixed_text


def test_fix_changes_only_the_fixed_cells_source_in_jupyters_layout():
    outputs = [{"name": "stdout", "output_type": "stream", "text": ["epoch 1 loss 2.30\n"]}]
    cells = [
        markdown(["# Überblick\n", "ünïcode stays raw"]),
        code(IMPORTS, execution_count=3, outputs=outputs, metadata={"tags": ["setup"]}),
        code(["%matplotlib inline\n", "config = CheckpointConfig(save_checkpoint_steps=10)\n", "print(config)"]),
        code("untouched = 1"),
    ]
    original = as_jupyter_writes_it(notebook(cells))
    cells[2] = code(
        ["%matplotlib inline\n", "config = CheckpointConfig(save_checkpoint_steps=10, async_save=True)\n", "print(config)"]
    )
    assert fixed_text(original) == as_jupyter_writes_it(notebook(cells))


def test_fix_keeps_an_unusual_layout_byte_for_byte():
    # Two-space indent, unsorted keys, escaped non-ASCII, source as one string, no final newline.
    document = {
        "nbformat": 4,
        "nbformat_minor": 2,
        "metadata": {"language_info": {"name": "python"}, "authors": ["Zoë"]},
        "cells": [
            {"source": "import mindspore as ms\nfrom mindspore.train import CheckpointConfig", "cell_type": "code",
             "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=\n"}, "metadata": {}}],
             "metadata": {"collapsed": True}, "execution_count": 1},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2,
             "source": "# café\ncfg = CheckpointConfig(keep_checkpoint_max=3)"},
        ],
    }
    original = json.dumps(document, indent=2, ensure_ascii=True)
    old = json.dumps("# café\ncfg = CheckpointConfig(keep_checkpoint_max=3)", ensure_ascii=True)
    new = json.dumps("# café\ncfg = CheckpointConfig(keep_checkpoint_max=3, async_save=True)", ensure_ascii=True)
    assert old in original and "\\u00e9" in old
    assert fixed_text(original) == original.replace(old, new)


def test_fix_reuses_unchanged_lines_and_the_list_layout():
    # Escapes json.dumps would not write (``\\/``, ``\\u0022``) must survive on the lines no fix touched.
    items = [
        r'"import mindspore as ms\n"',
        r'"from mindspore.train import CheckpointConfig\n"',
        r'"path = \"ckpt\/net.ckpt\"\n"',
        r'"cfg = CheckpointConfig()\n"',
        r'"print(\u0022done\u0022)"',
    ]
    template = (
        '{{"cells": [{{"cell_type": "code", "metadata": {{}}, "outputs": [], "source": [\n    {}\n  ]}}],\n'
        ' "metadata": {{}}, "nbformat": 4, "nbformat_minor": 5}}'
    )
    original = template.format(",\n    ".join(items))
    items[3] = r'"cfg = CheckpointConfig(async_save=True)\n"'
    assert fixed_text(original) == template.format(",\n    ".join(items))


def test_fix_puts_magics_and_shell_escapes_back_unchanged():
    cell = [
        "!pip install mindspore\n",
        "import mindspore as ms\n",
        "from mindspore.train import CheckpointConfig\n",
        "for epoch in range(2):\n",
        "    %time ms.save_checkpoint(net, 'a.ckpt')\n",
        "  \n",
        "config = CheckpointConfig()",
    ]
    original = as_jupyter_writes_it(notebook([code(cell)]))
    cell[6] = "config = CheckpointConfig(async_save=True)"
    assert fixed_text(original) == as_jupyter_writes_it(notebook([code(cell)]))


def test_fix_only_with_unsafe_fixes_when_the_fix_is_unsafe():
    original = as_jupyter_writes_it(notebook([code(IMPORTS), code("cfg = CheckpointConfig(async_save=False)")]))
    outcome = fix_notebook_source(original, "course.ipynb", Settings())
    assert outcome.fixed_text is None
    assert [(v.code, v.cell, v.line) for v in outcome.remaining.violations] == [("MSP103", 2, 1)]
    unsafe = fix_notebook_source(original, "course.ipynb", Settings(), unsafe=True)
    assert unsafe.fixed_text == original.replace("async_save=False", "async_save=True")
    assert unsafe.remaining.violations == []
    assert [(fix.code, fix.line) for fix in unsafe.applied] == [("MSP103", 1)]
    assert "(cell 2)" in unsafe.applied[0].description


def test_fixing_a_fixed_notebook_changes_nothing():
    original = as_jupyter_writes_it(notebook([code(IMPORTS), code("cfg = CheckpointConfig()")]))
    once = fixed_text(original)
    again = fix_notebook_source(once, "course.ipynb", Settings())
    assert again.fixed_text is None and again.remaining.violations == []


class AddsAnImport(Rule):
    """Test rule: ``CheckpointConfig(...)`` gets ``dtype=ms.float16``, which needs ``import mindspore as ms``."""

    code = "MSP991"
    markers = ("CheckpointConfig",)

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.qualified_name(node.func) == "mindspore.train.CheckpointConfig" and not node.args:
            fix = Fix(node, _add_dtype, FixSafety.SAFE, "add dtype", ("import mindspore as ms",))
            self.report(node, "needs dtype", fix)


def _add_dtype(node: cst.CSTNode) -> cst.CSTNode:
    assert isinstance(node, cst.Call)
    return node.with_changes(args=[cst.Arg(cst.parse_expression("ms.float16"), keyword=cst.Name("dtype"),
                                           equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))])


def test_added_import_goes_after_the_imports_of_the_first_cell_that_has_imports():
    cells = [
        code("!pip install mindspore"),
        markdown("Setup"),
        code("%matplotlib inline\nx = 1"),
        code("from mindspore.train import CheckpointConfig\nimport numpy as np\n\nconfig = CheckpointConfig()"),
    ]
    original = as_jupyter_writes_it(notebook(cells))
    cells[3] = code(
        "from mindspore.train import CheckpointConfig\nimport numpy as np\nimport mindspore as ms\n\n"
        "config = CheckpointConfig(dtype=ms.float16)"
    )
    assert fixed_text(original, rules=[AddsAnImport]) == as_jupyter_writes_it(notebook(cells))


def test_added_import_goes_into_the_first_code_cell_when_no_cell_has_top_level_imports():
    cells = [
        code("x = 1"),
        code("try:\n    from mindspore.train import CheckpointConfig\nexcept ImportError:\n    raise\nconfig = CheckpointConfig()"),
    ]
    original = as_jupyter_writes_it(notebook(cells))
    cells[0] = code("import mindspore as ms\nx = 1")
    cells[1] = code(
        "try:\n    from mindspore.train import CheckpointConfig\nexcept ImportError:\n    raise\n"
        "config = CheckpointConfig(dtype=ms.float16)"
    )
    assert fixed_text(original, rules=[AddsAnImport]) == as_jupyter_writes_it(notebook(cells))


class EmptiesLoops(Rule):
    """Test rule: its fix replaces a whole ``for`` loop body, which would drop an IPython line in it."""

    code = "MSP992"
    markers = ("for",)

    def visit_For(self, node: cst.For) -> None:
        if len(node.body.body) < 2:
            return
        body = cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])])
        self.report(node, "loop", Fix(node, lambda n: n.with_changes(body=body), FixSafety.SAFE, "empty the loop"))


def test_fix_that_would_change_an_ipython_line_is_not_written():
    original = as_jupyter_writes_it(
        notebook([markdown("m"), code(["import mindspore\n", "for i in range(2):\n", "    !echo {i}\n", "    i += 1"])])
    )
    outcome = fix_notebook_source(original, "course.ipynb", Settings(), rules=[EmptiesLoops])
    assert outcome.fixed_text is None and outcome.fixed_bytes is None
    assert [p.message for p in outcome.problems] == ["not fixed: a fix would change the IPython line at cell 2, line 3"]


def test_a_cell_boundary_survives_a_fix_in_the_cell_before_it():
    cells = [code(IMPORTS), code("for i in range(2):\n    cfg = CheckpointConfig()"), code("y = 2")]
    original = as_jupyter_writes_it(notebook(cells))
    cells[1] = code("for i in range(2):\n    cfg = CheckpointConfig(async_save=True)")
    assert fixed_text(original) == as_jupyter_writes_it(notebook(cells))


@hypothesis_settings(max_examples=100, deadline=None)
@given(
    sources=st.lists(st.one_of(st.text(), st.lists(st.text())), min_size=1, max_size=4),
    new=st.text(),
    which=st.integers(min_value=0, max_value=3),
    indent=st.sampled_from([None, 1, 2, 4]),
    ensure_ascii=st.booleans(),
)
def test_replacing_one_source_leaves_the_rest_of_the_document_equal(sources, new, which, indent, ensure_ascii):
    document = notebook([code(source, metadata={"k": "ü"}) for source in sources])
    text = json.dumps(document, indent=indent, ensure_ascii=ensure_ascii)
    which %= len(sources)
    result = replace_sources(read_notebook(text), {which: new})
    decoded = json.loads(result)
    source = decoded["cells"][which]["source"]
    assert ("".join(source) if isinstance(source, list) else source) == new
    assert isinstance(source, list) == isinstance(sources[which], list)
    decoded["cells"][which]["source"] = document["cells"][which]["source"]
    assert decoded == document
    assert replace_sources(read_notebook(text), {}) == text


LINES = st.sampled_from(
    ["cfg = CheckpointConfig()", "cfg = CheckpointConfig(async_save=False)", "for i in range(2):",
     "    cfg = CheckpointConfig(\n        keep_checkpoint_max=1,\n    )", "    !echo {i}", "    %time i", "%matplotlib inline",
     "!pip install mindspore", "x = !ls", "pip install x", "ms.Tensor?", "s = \"\"\"", "%d items", "\"\"\"", "", "# café",
     "%%time", "if True:", "    pass", "config = CheckpointConfig(\n    async_save=False)", "time = (", ")"]
)


@hypothesis_settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.one_of(LINES, st.text(max_size=8)), max_size=8).map("\n".join), min_size=1, max_size=3))
def test_arbitrary_cells_never_raise_and_fixes_touch_only_sources(sources):
    document = notebook([code(IMPORTS)] + [code(source, outputs=[{"output_type": "stream", "text": "x"}]) for source in sources])
    text = as_jupyter_writes_it(document)
    lint_notebook(text, "fuzz.ipynb", Settings())
    outcome = fix_notebook_source(text, "fuzz.ipynb", Settings(), unsafe=True)
    if outcome.fixed_text is None:
        return
    fixed = json.loads(outcome.fixed_text)
    for before, after in zip(document["cells"], fixed["cells"]):
        assert _ipython_lines(after.pop("source")) == _ipython_lines(before.pop("source"))
    assert fixed == document  # outputs, metadata, other keys: all as they were


def _ipython_lines(source: Source) -> List[str]:
    text = "".join(source) if isinstance(source, list) else source
    return [line for line in text.split("\n") if line.strip().startswith(("%", "!"))]


# --- real processes ----------------------------------------------------------------------------


def test_cli_reports_notebook_findings_by_cell_and_continues_past_a_broken_notebook(tmp_path: Path):
    good = as_jupyter_writes_it(notebook([markdown("m"), code(IMPORTS), code("cfg = CheckpointConfig()")]))
    (tmp_path / "course.ipynb").write_text(good, encoding="utf-8")
    (tmp_path / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "from mindspore.train import CheckpointConfig\nconfig = CheckpointConfig()\n", encoding="utf-8"
    )
    completed = run_cli("broken.ipynb", "course.ipynb", "train.py", cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0].startswith("broken.ipynb:1:12: NotebookError: not a Jupyter notebook: invalid JSON")
    assert lines[1].startswith("course.ipynb:cell 3:1:7: MSP103 [*] ")
    assert lines[2].startswith("train.py:2:10: MSP103 [*] ")
    assert "Traceback" not in completed.stderr


def test_cli_reads_a_notebook_from_standard_input_by_its_stdin_filename(tmp_path: Path):
    text = as_jupyter_writes_it(notebook([code(IMPORTS), code("cfg = CheckpointConfig()")]))
    completed = run_cli("--quiet", "--isolated", "-", "--stdin-filename", "course.ipynb", cwd=tmp_path, stdin=text)
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout.startswith("course.ipynb:cell 2:1:7: MSP103 [*] ")


def test_engine_lint_file_reads_notebooks(tmp_path: Path):
    path = tmp_path / "course.ipynb"
    path.write_text(as_jupyter_writes_it(notebook([code(IMPORTS + ["\n", "c = CheckpointConfig()"])])), encoding="utf-8")
    result = lint_file(str(path), Settings())
    assert [(v.code, v.cell, v.line, v.column + 1) for v in result.violations] == [("MSP103", 1, 3, 5)]


def test_cli_fix_writes_only_the_fixed_cell_and_a_second_run_is_clean(tmp_path: Path):
    outputs = [
        {"data": {"text/plain": ["<CheckpointConfig>"]}, "execution_count": 2, "metadata": {}, "output_type": "execute_result"}
    ]
    cells = [
        markdown("# Checkpoints"),
        code(["%load_ext autoreload\n"] + IMPORTS, execution_count=1),
        code(["cfg = CheckpointConfig(\n", "    save_checkpoint_steps=100,\n", ")\n", "cfg"], execution_count=2, outputs=outputs),
    ]
    path = tmp_path / "course.ipynb"
    path.write_text(as_jupyter_writes_it(notebook(cells)), encoding="utf-8")
    completed = run_cli("--fix", "course.ipynb", cwd=tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    cells[2]["source"] = ["cfg = CheckpointConfig(\n", "    save_checkpoint_steps=100,\n", "    async_save=True,\n", ")\n", "cfg"]
    assert path.read_bytes() == as_jupyter_writes_it(notebook(cells)).encode("utf-8")
    again = run_cli("course.ipynb", cwd=tmp_path)
    assert again.returncode == 0 and "All checks passed" in again.stdout


def test_cli_walking_a_folder_finds_notebooks(tmp_path: Path):
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    (lessons / "01_intro.ipynb").write_text(
        as_jupyter_writes_it(notebook([code(IMPORTS), markdown("m"), code("cfg = CheckpointConfig()")])), encoding="utf-8"
    )
    (lessons / "notes.json").write_text('{"cells": "not a notebook name"}', encoding="utf-8")
    completed = run_cli("--quiet", "--isolated", "lessons", cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    lines = completed.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lessons/01_intro.ipynb:cell 3:1:7: MSP103 [*] ")
