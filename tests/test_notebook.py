"""Jupyter notebooks: a notebook is a program of its own (its code cells joined into one virtual module),
findings are told by cell, a cell that is not Python is skipped with a notice, fixes and ``--add-noqa``
comments are written into the cells' JSON.

Every expected position below is read off the cells written in the test: ``cell N``
counts every cell (markdown too), lines and columns are 1-based in that cell.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from ms_perflint.fix.edits import apply_edits, choose
from ms_perflint.findings import FileResult
from ms_perflint.run.fixing import FixOutcome, fix_files
from ms_perflint.run.lint import check_text
from ms_perflint.run.session import Session, SessionOptions
from ms_perflint.settings import Settings
from ms_perflint.sources import load_unit
from ms_perflint.sources.notebook import (
    NotebookFixError,
    changed_sources,
    neutralise,
    read_notebook,
    replace_sources,
    virtual_module,
)
from tests.conftest import run_cli

Source = Union[str, List[str]]


def code(source: Any, **extra: Any) -> Dict[str, Any]:
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


IMPORTS = ["import mindspore as ms\n", "from mindspore.train import CheckpointConfig, Model, ModelCheckpoint"]
#: The cell that makes the notebook a training program: it trains with a ModelCheckpoint of ``config``.
TRAIN = "Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])"


def lint(text: Union[str, bytes], path: str = "course.ipynb") -> FileResult:
    data = text if isinstance(text, str) else text.decode("utf-8", "surrogateescape")
    return check_text(data, path, Settings())


def findings(text: str) -> List[tuple]:
    result = lint(text)
    assert result.error is None, result.error
    return [(f.code, f.cell, f.line, f.column + 1) for f in result.findings]


# --- positions --------------------------------------------------------------------------------


def test_finding_is_reported_in_its_cell_with_imports_from_an_earlier_cell():
    text = as_jupyter_writes_it(notebook([
        markdown(["# Training LeNet\n", "Set up first."]),
        code(IMPORTS),
        markdown("Now the checkpoint config:"),
        code(["x = 1\n", "config = CheckpointConfig(save_checkpoint_steps=10)"]),
        code(TRAIN),
    ]))
    # Cell 4 (markdown counts), line 2, ``CheckpointConfig`` starts at column 10.
    assert findings(text) == [("MSP103", 4, 2, 10)]


def test_a_notebook_is_a_program_only_with_what_its_cells_import_and_run():
    no_import = as_jupyter_writes_it(notebook([code("config = CheckpointConfig()\n" + TRAIN)]))
    assert findings(no_import) == []  # nothing imports CheckpointConfig: not MindSpore's
    never_trains = as_jupyter_writes_it(notebook([code(IMPORTS), code("config = CheckpointConfig()\n")]))
    assert findings(never_trains) == []  # no ModelCheckpoint trains with it


def test_a_notebook_whose_outputs_show_mindspore_on_windows_ran_on_the_cpu():
    """AlexNet course notebook: no device set, and its saved warnings name ``mindspore\\dataset\\...`` paths --
    MindSpore's Windows builds are CPU only, so no Ascend rule (nor MSP103: nothing idles) applies."""
    warning = ("[WARNING] ME(30384:26208,MainProcess):2022-11-06-17:31:39.811.112 "
               "[mindspore\\dataset\\engine\\datasets_user_defined.py:656] Python multiprocessing is not supported "
               "on Windows platform.\n")
    stream = {"name": "stderr", "output_type": "stream", "text": [warning]}
    cells = [code(IMPORTS), code("config = CheckpointConfig(save_checkpoint_steps=10)"), code(TRAIN)]
    assert findings(as_jupyter_writes_it(notebook(cells))) == [("MSP103", 2, 1, 10)]
    cells[0] = code(IMPORTS, outputs=[stream])
    assert findings(as_jupyter_writes_it(notebook(cells))) == []
    linux = dict(stream, text=[warning.replace("\\", "/")])
    cells[0] = code(IMPORTS, outputs=[linux])
    assert findings(as_jupyter_writes_it(notebook(cells))) == [("MSP103", 2, 1, 10)]


def test_cells_are_numbered_among_all_cells_and_lines_within_the_cell():
    text = as_jupyter_writes_it(notebook([
        code(IMPORTS),
        markdown("text"),
        {"cell_type": "raw", "metadata": {}, "source": "raw text"},
        code(["\n", "\n", "    \n", "cfg = CheckpointConfig(\n", "    keep_checkpoint_max=5,\n", ")\n"]),
        code("a = 1\nb = CheckpointConfig()\n"),
        code("Model(net).train(1, data, callbacks=[ModelCheckpoint(config=cfg), ModelCheckpoint(config=b)])"),
    ]))
    assert findings(text) == [("MSP103", 4, 4, 7), ("MSP103", 5, 2, 5)]


def test_end_position_counts_within_the_cell_too():
    call = ["config = CheckpointConfig(\n", "    keep_checkpoint_max=5,\n", ")"]
    [finding] = lint(as_jupyter_writes_it(notebook([code(IMPORTS), code(call), code(TRAIN)]))).findings
    assert (finding.cell, finding.line, finding.column, finding.end_line, finding.end_column) == (2, 1, 9, 3, 1)


def test_magics_shell_escapes_and_help_lines_keep_line_numbers():
    text = as_jupyter_writes_it(notebook([
        code(["!pip install mindspore==2.3\n", "%matplotlib inline\n"] + IMPORTS),
        code([
            "ms.Tensor?\n",
            "?CheckpointConfig\n",
            "files = !ls *.ckpt\n",
            "for step in range(3):\n",
            "    %time step\n",
            "config = CheckpointConfig(save_checkpoint_steps=1)\n",
            TRAIN,
        ]),
    ]))
    assert findings(text) == [("MSP103", 2, 6, 10)]


def test_line_magic_without_percent_is_neutralised_only_when_it_is_not_python():
    source = (
        "pip install mindspore==2.3\ncd ..\ntime = 5\nrun(train)\ntime.sleep(1)\nls in names\n"
        "config = CheckpointConfig(\n    keep_checkpoint_max=1)\ntime (\n    1)\nenv += [\n    1]\n"
    )
    cell = neutralise(source, 0)
    assert cell is not None
    assert cell.ipython_lines == {0: "pip install mindspore==2.3\n", 1: "cd ..\n"}


def test_cell_magic_skips_the_whole_cell_without_a_notice():
    text = as_jupyter_writes_it(notebook([
        code(IMPORTS),
        code("%%time\nconfig = CheckpointConfig(save_checkpoint_steps=10)"),
        code("\n%%writefile train.py\nconfig = CheckpointConfig()"),
        code("%%bash\nfor f in *.ckpt; do echo $f; done"),
        code(TRAIN),
    ]))
    result = lint(text)
    assert result.findings == [] and result.notices == []


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
        "config = CheckpointConfig()\n",
    ]
    neutralised = neutralise("".join(cell), 1)
    assert neutralised is not None and neutralised.ipython_lines == {}
    text = as_jupyter_writes_it(notebook([code(IMPORTS), code(cell), code(TRAIN)]))
    assert findings(text) == [("MSP103", 2, 9, 10)]


def test_neutralise_replaces_only_ipython_lines_and_keeps_their_count():
    cell = neutralise("import os\n%load_ext autoreload\nfor i in x:\n    !echo {i}\nprint('%s' % i)\n", 0)
    assert cell is not None
    assert len(cell.lines) == 5
    assert sorted(cell.ipython_lines) == [1, 3]
    assert cell.lines[0] == "import os\n" and cell.lines[4] == "print('%s' % i)\n"
    assert cell.lines[3].startswith("    pass  #")  # indented: the for-loop body stays valid
    compile("".join(cell.lines), "cell", "exec")


def test_noqa_in_a_cell_suppresses_the_finding():
    text = as_jupyter_writes_it(notebook([
        code(IMPORTS),
        code("config = CheckpointConfig()  # noqa: MSP103\nother = CheckpointConfig()"),
        code("Model(net).train(1, data, callbacks=[ModelCheckpoint(config=config), ModelCheckpoint(config=other)])"),
    ]))
    assert findings(text) == [("MSP103", 2, 2, 9)]


def test_file_level_noqa_in_any_cell_covers_the_notebook():
    text = as_jupyter_writes_it(notebook([
        code(IMPORTS), code("config = CheckpointConfig()"), code(TRAIN), code("# ms-perflint: noqa: MSP103\nx = 1"),
    ]))
    assert findings(text) == []


def test_non_python_notebook_is_skipped_without_error():
    r_metadata = {"kernelspec": {"language": "R", "name": "ir"}, "language_info": {"name": "R"}}
    text = as_jupyter_writes_it(notebook([code(IMPORTS), code("config = CheckpointConfig()"), code(TRAIN)],
                                         metadata=r_metadata))
    result = lint(text)
    assert result.error is None and result.findings == []


# --- cells that are not Python: skipped, said, and the rest still checked -------------------------


def test_a_cell_in_another_kernels_syntax_is_skipped_with_a_notice_and_the_rest_is_checked():
    """Regression: one such cell made the whole notebook uncheckable."""
    text = as_jupyter_writes_it(notebook([
        code(IMPORTS),
        markdown("R, through a kernel that runs several languages:"),
        code(["library(ggplot2)\n", "for (i in 1:10) { print(i) }\n"]),
        code("config = CheckpointConfig(save_checkpoint_steps=10)"),
        code(TRAIN),
    ]))
    result = lint(text)
    assert result.error is None
    assert [(f.code, f.cell, f.line, f.column + 1) for f in result.findings] == [("MSP103", 4, 1, 10)]
    assert result.notices == ["cell 3 skipped: not Python (invalid syntax at line 2)"]


@pytest.mark.parametrize("source", [7, None, ["config = 1\n", 2], {"text": "x"}], ids=["int", "null", "mixed-list", "dict"])
def test_a_cell_whose_source_is_not_text_is_skipped_with_a_notice(source: Any):
    text = as_jupyter_writes_it(notebook([code(IMPORTS), code(source), code("config = CheckpointConfig()"), code(TRAIN)]))
    result = lint(text)
    assert result.error is None
    assert [(f.code, f.cell, f.line) for f in result.findings] == [("MSP103", 3, 1)]
    assert result.notices == ["cell 2 skipped: its `source` is neither a string nor a list of strings"]


def test_a_python_syntax_error_in_one_cell_is_a_notice_naming_the_cell_and_its_line():
    broken = "x = 1\ny = 2\ndef broken(:\n    pass"
    text = as_jupyter_writes_it(notebook([
        markdown("m"), code(IMPORTS), code(broken), code("config = CheckpointConfig()"), code(TRAIN),
    ]))
    result = lint(text)
    assert result.error is None
    assert [(f.code, f.cell) for f in result.findings] == [("MSP103", 4)]
    [notice] = result.notices
    assert notice.startswith("cell 3 skipped: not Python (") and notice.endswith(" at line 3)")


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"{not json", "invalid JSON"),
        (b"", "invalid JSON"),
        (b'{"cells": {}}', "no list of cells"),
        (b"[1, 2]", "no list of cells"),
        (b'{"worksheets": [], "nbformat": 3}', "nbformat 3"),
        (b'{"cells": []}\xff', "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
    ids=["not-json", "empty", "cells-not-a-list", "a-list", "nbformat-3", "not-utf8", "deep-json"],
)
def test_files_that_are_not_notebooks_come_back_as_one_error(content: bytes, expected: str):
    unit = load_unit("broken.ipynb", content)
    assert unit.error is not None and unit.error.kind == "NotebookError"
    assert expected in unit.error.message
    assert "\n" not in unit.error.message


# --- fixing ---------------------------------------------------------------------------------------


def fix(tmp_path: Path, text: str, unsafe: bool = False, name: str = "course.ipynb") -> FixOutcome:
    """Fix a notebook in memory through the run layer (nothing is written)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    [outcome] = fix_files(Session(SessionOptions(cache_folder=None, jobs=1)), [str(path)], unsafe)
    assert not outcome.problems, outcome.problems
    return outcome


def fixed_text(tmp_path: Path, text: str, unsafe: bool = False) -> str:
    outcome = fix(tmp_path, text, unsafe)
    assert outcome.fixed is not None
    return outcome.fixed.decode("utf-8")


def test_fix_changes_only_the_fixed_cells_source_in_jupyters_layout(tmp_path: Path):
    outputs = [{"name": "stdout", "output_type": "stream", "text": ["epoch 1 loss 2.30\n"]}]
    cells = [
        markdown(["# Überblick\n", "ünïcode stays raw"]),
        code(IMPORTS, execution_count=3, outputs=outputs, metadata={"tags": ["setup"]}),
        code(["%matplotlib inline\n", "config = CheckpointConfig(save_checkpoint_steps=10)\n", "print(config)"]),
        code(TRAIN),
    ]
    original = as_jupyter_writes_it(notebook(cells))
    cells[2] = code(
        ["%matplotlib inline\n", "config = CheckpointConfig(save_checkpoint_steps=10, async_save=True)\n", "print(config)"]
    )
    assert fixed_text(tmp_path, original) == as_jupyter_writes_it(notebook(cells))


def test_fix_keeps_an_unusual_layout_byte_for_byte(tmp_path: Path):
    # Two-space indent, unsorted keys, escaped non-ASCII, source as one string, no final newline.
    document = {
        "nbformat": 4,
        "nbformat_minor": 2,
        "metadata": {"language_info": {"name": "python"}, "authors": ["Zoë"]},
        "cells": [
            {"source": "".join(IMPORTS), "cell_type": "code",
             "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=\n"}, "metadata": {}}],
             "metadata": {"collapsed": True}, "execution_count": 1},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2,
             "source": "# café\nconfig = CheckpointConfig(keep_checkpoint_max=3)"},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 3, "source": TRAIN},
        ],
    }
    original = json.dumps(document, indent=2, ensure_ascii=True)
    old = json.dumps("# café\nconfig = CheckpointConfig(keep_checkpoint_max=3)", ensure_ascii=True)
    new = json.dumps("# café\nconfig = CheckpointConfig(keep_checkpoint_max=3, async_save=True)", ensure_ascii=True)
    assert old in original and "\\u00e9" in old
    assert fixed_text(tmp_path, original) == original.replace(old, new)


def test_fix_reuses_unchanged_lines_and_the_list_layout(tmp_path: Path):
    # Escapes json.dumps would not write (``\\/``, ``\\u0022``) must survive on the lines no fix touched.
    items = [
        r'"import mindspore as ms\n"',
        r'"from mindspore.train import CheckpointConfig, Model, ModelCheckpoint\n"',
        r'"path = \"ckpt\/net.ckpt\"\n"',
        r'"config = CheckpointConfig()\n"',
        r'"print(\u0022done\u0022)\n"',
        json.dumps(TRAIN),
    ]
    template = (
        '{{"cells": [{{"cell_type": "code", "metadata": {{}}, "outputs": [], "source": [\n    {}\n  ]}}],\n'
        ' "metadata": {{}}, "nbformat": 4, "nbformat_minor": 5}}'
    )
    original = template.format(",\n    ".join(items))
    items[3] = r'"config = CheckpointConfig(async_save=True)\n"'
    assert fixed_text(tmp_path, original) == template.format(",\n    ".join(items))


def test_fix_puts_magics_and_shell_escapes_back_unchanged(tmp_path: Path):
    cell = [
        "!pip install mindspore\n",
        *IMPORTS[:1], IMPORTS[1] + "\n",
        "for epoch in range(2):\n",
        "    %time print(epoch)\n",
        "  \n",
        "config = CheckpointConfig()\n",
        TRAIN,
    ]
    original = as_jupyter_writes_it(notebook([code(cell)]))
    cell[6] = "config = CheckpointConfig(async_save=True)\n"
    assert fixed_text(tmp_path, original) == as_jupyter_writes_it(notebook([code(cell)]))


def test_fix_only_with_unsafe_fixes_when_the_fix_is_unsafe(tmp_path: Path):
    original = as_jupyter_writes_it(notebook([code(IMPORTS), code("config = CheckpointConfig(async_save=False)"),
                                              code(TRAIN)]))
    safe = fix(tmp_path, original)
    assert safe.fixed is None
    assert [(f.code, f.cell, f.line) for f in safe.remaining.findings] == [("MSP103", 2, 1)]
    unsafe = fix(tmp_path, original, unsafe=True)
    assert unsafe.fixed is not None
    assert unsafe.fixed.decode() == original.replace("async_save=False", "async_save=True")
    assert unsafe.remaining.findings == []
    assert [(f.code, f.cell, f.line) for f in unsafe.applied] == [("MSP103", 2, 1)]


def test_fixing_a_fixed_notebook_changes_nothing(tmp_path: Path):
    original = as_jupyter_writes_it(notebook([code(IMPORTS), code("config = CheckpointConfig()"), code(TRAIN)]))
    once = fixed_text(tmp_path, original)
    again = fix(tmp_path, once)
    assert again.fixed is None and again.remaining.findings == []


def test_added_import_goes_after_the_imports_of_the_first_cell_that_has_imports(tmp_path: Path):
    """MSP101's fix (``.to_float(ms.float16)``) needs ``import mindspore as ms``."""
    net = ("class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
           "        self.fc1 = nn.Linear(1024, 1024)\n        self.fc2 = nn.Dense(1024, 10)\n"
           "    def construct(self, x):\n        return self.fc2(self.fc1(x))\n")
    cells = [
        code("!pip install mindspore"),
        markdown("Setup"),
        code("%matplotlib inline\nx = 1"),
        code("import mindspore.nn as nn\nfrom mindspore.train import Model\nimport numpy as np\n"),
        code(net),
        code('Model(Net(), loss, opt, amp_level="O1").train(1, data)'),
    ]
    original = as_jupyter_writes_it(notebook(cells))
    cells[3] = code("import mindspore.nn as nn\nfrom mindspore.train import Model\nimport numpy as np\nimport mindspore as ms\n")
    cells[4] = code(net.replace("nn.Linear(1024, 1024)", "nn.Linear(1024, 1024).to_float(ms.float16)"))
    assert fixed_text(tmp_path, original, unsafe=True) == as_jupyter_writes_it(notebook(cells))


def test_a_cell_boundary_survives_a_fix_in_the_cell_before_it(tmp_path: Path):
    cells = [code(IMPORTS), code("for i in range(2):\n    config = CheckpointConfig()"), code(TRAIN)]
    original = as_jupyter_writes_it(notebook(cells))
    cells[1] = code("for i in range(2):\n    config = CheckpointConfig(async_save=True)")
    assert fixed_text(tmp_path, original) == as_jupyter_writes_it(notebook(cells))


def test_a_fix_in_a_notebook_with_a_skipped_cell_keeps_that_cell(tmp_path: Path):
    cells = [code(IMPORTS), code("x <- c(1, 2) %>% sum()"), code(7), code("config = CheckpointConfig()"), code(TRAIN)]
    original = as_jupyter_writes_it(notebook(cells))
    cells[3] = code("config = CheckpointConfig(async_save=True)")
    assert fixed_text(tmp_path, original) == as_jupyter_writes_it(notebook(cells))


def test_a_notebook_with_top_level_await_is_fixed(tmp_path: Path):
    cells = [code(IMPORTS + ["\nimport asyncio"]), code("await asyncio.sleep(0)"), code("config = CheckpointConfig()"),
             code(TRAIN)]
    original = as_jupyter_writes_it(notebook(cells))
    assert findings(original) == [("MSP103", 3, 1, 10)]  # the cell parses: Jupyter runs top-level await
    cells[2] = code("config = CheckpointConfig(async_save=True)")
    assert fixed_text(tmp_path, original) == as_jupyter_writes_it(notebook(cells))


def test_a_fix_that_would_change_an_ipython_line_or_move_a_cell_boundary_is_refused():
    text = as_jupyter_writes_it(notebook([markdown("m"), code(["import mindspore\n", "for i in range(2):\n",
                                                                "    !echo {i}\n", "    i += 1"]), code("y = 2")]))
    parsed = read_notebook(text)
    module = virtual_module(parsed.cells)
    emptied = module.text.replace("    pass  # >>> ms-perflint ipython 1 <<<\n", "    pass\n")
    with pytest.raises(NotebookFixError, match="IPython line at cell 2, line 3"):
        changed_sources(emptied, parsed.cells)
    joined = module.text.replace("# >>> ms-perflint cell 3 <<<\n", "")
    with pytest.raises(NotebookFixError, match="cell boundary"):
        changed_sources(joined, parsed.cells)


@hypothesis_settings(max_examples=60, deadline=None)
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
    ["config = CheckpointConfig()", "config = CheckpointConfig(async_save=False)", "for i in range(2):",
     "    config = CheckpointConfig(\n        keep_checkpoint_max=1,\n    )", "    !echo {i}", "    %time i",
     "%matplotlib inline", "!pip install mindspore", "x = !ls", "pip install x", "ms.Tensor?", 's = """', "%d items",
     '"""', "", "# café", "%%time", "if True:", "    pass", "config = CheckpointConfig(\n    async_save=False)",
     "time = (", ")", TRAIN, "for (i in 1:3) { x }"]
)


@hypothesis_settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(LINES, st.text(max_size=8)), max_size=8).map("\n".join), min_size=1, max_size=3))
def test_arbitrary_cells_never_raise_and_fixes_touch_only_sources(sources):
    """Lint, apply every fix (unsafe ones too) as the run layer does, write back: only ``source`` values change."""
    document = notebook([code(IMPORTS)] + [code(s, outputs=[{"output_type": "stream", "text": "x"}]) for s in sources]
                        + [code(TRAIN)])
    text = as_jupyter_writes_it(document)
    result = lint(text, "fuzz.ipynb")
    unit = load_unit("fuzz.ipynb", text.encode("utf-8"))
    edits = [edit for finding in choose(result.findings, unsafe=True) for edit in finding.fix.edits]
    if result.error is not None or not edits:
        return
    try:
        fixed = json.loads(replace_sources(unit.notebook, changed_sources(apply_edits(unit.text, edits),
                                                                          unit.notebook.cells)))
    except NotebookFixError:
        return  # refused, and said so by the run layer: nothing is written
    for before, after in zip(document["cells"], fixed["cells"]):
        assert _ipython_lines(after.pop("source")) == _ipython_lines(before.pop("source"))
    assert fixed == document  # outputs, metadata, other keys: all as they were


def _ipython_lines(source: Source) -> List[str]:
    text = "".join(source) if isinstance(source, list) else source
    return [line for line in text.split("\n") if line.strip().startswith(("%", "!"))]


# --- real processes ----------------------------------------------------------------------------


def test_cli_reports_by_cell_warns_about_skipped_cells_and_continues_past_a_broken_notebook(tmp_path: Path):
    good = as_jupyter_writes_it(notebook([
        markdown("m"), code(IMPORTS), code("config = CheckpointConfig()"), code("%%bash\necho hi"),
        code(["for (i in 1:10) {\n", "  print(i)\n", "}"]), code(TRAIN),
    ]))
    (tmp_path / "course.ipynb").write_text(good, encoding="utf-8")
    (tmp_path / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    (tmp_path / "train.py").write_text("".join(IMPORTS) + '\nif __name__ == "__main__":\n    config = '
                                       f"CheckpointConfig()\n    {TRAIN}\n", encoding="utf-8")
    completed = run_cli("broken.ipynb", "course.ipynb", "train.py", cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0].startswith("broken.ipynb:1:12: NotebookError: not a Jupyter notebook: invalid JSON")
    assert lines[1].startswith("course.ipynb:cell 3:1:10: MSP103 [*] ")
    assert lines[2].startswith("train.py:4:14: MSP103 [*] ")
    assert "ms-perflint: warning: course.ipynb: cell 5 skipped: not Python (invalid syntax at line 1)" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_cli_reads_a_notebook_from_standard_input_by_its_stdin_filename(tmp_path: Path):
    text = as_jupyter_writes_it(notebook([code(IMPORTS), code("config = CheckpointConfig()"), code(TRAIN)]))
    completed = run_cli("--quiet", "--isolated", "-", "--stdin-filename", "course.ipynb", cwd=tmp_path, stdin=text)
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout.startswith("course.ipynb:cell 2:1:10: MSP103 [*] ")


def test_cli_fix_writes_only_the_fixed_cell_and_a_second_run_is_clean(tmp_path: Path):
    outputs = [
        {"data": {"text/plain": ["<CheckpointConfig>"]}, "execution_count": 2, "metadata": {},
         "output_type": "execute_result"}
    ]
    cells = [
        markdown("# Checkpoints"),
        code(["%load_ext autoreload\n"] + IMPORTS, execution_count=1),
        code(["config = CheckpointConfig(\n", "    save_checkpoint_steps=100,\n", ")\n", "config"], execution_count=2,
             outputs=outputs),
        code(TRAIN, execution_count=3),
    ]
    path = tmp_path / "course.ipynb"
    path.write_text(as_jupyter_writes_it(notebook(cells)), encoding="utf-8")
    completed = run_cli("--fix", "course.ipynb", cwd=tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    cells[2]["source"] = ["config = CheckpointConfig(\n", "    save_checkpoint_steps=100,\n", "    async_save=True,\n",
                          ")\n", "config"]
    assert path.read_bytes() == as_jupyter_writes_it(notebook(cells)).encode("utf-8")
    again = run_cli("course.ipynb", cwd=tmp_path)
    assert again.returncode == 0 and "All checks passed" in again.stdout


def test_cli_add_noqa_writes_comments_into_the_cells(tmp_path: Path):
    """``--add-noqa`` on a notebook: each comment goes at the end of the finding's line in its cell."""
    cells = [
        code(["!pip install mindspore\n"] + IMPORTS),
        code(["config = CheckpointConfig(\n", "    keep_checkpoint_max=5,\n", ")\n", "%time x = 1"]),
        code(["other = CheckpointConfig(save_checkpoint_steps=10)  # keep\n", "%matplotlib inline"]),
        code("x <- 1; for (i in 1:3) { x }"),
        code("Model(net).train(1, data, callbacks=[ModelCheckpoint(config=config), ModelCheckpoint(config=other)])"),
    ]
    path = tmp_path / "course.ipynb"
    path.write_text(as_jupyter_writes_it(notebook(cells)), encoding="utf-8")
    added = run_cli("--add-noqa", "course.ipynb", cwd=tmp_path)
    assert added.returncode == 0, added.stdout + added.stderr
    assert "Added 2 noqa directives." in added.stderr
    cells[1]["source"][0] = "config = CheckpointConfig(  # noqa: MSP103\n"
    cells[2]["source"][0] = "other = CheckpointConfig(save_checkpoint_steps=10)  # keep  # noqa: MSP103\n"
    assert path.read_text(encoding="utf-8") == as_jupyter_writes_it(notebook(cells))
    after = run_cli("--quiet", "course.ipynb", cwd=tmp_path)
    assert after.returncode == 0 and after.stdout == "", after.stdout
    again = run_cli("--add-noqa", "course.ipynb", cwd=tmp_path)
    assert "Added 0 noqa directives." in again.stderr
    assert path.read_text(encoding="utf-8") == as_jupyter_writes_it(notebook(cells))


def test_cli_walking_a_folder_finds_notebooks(tmp_path: Path):
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    (lessons / "01_intro.ipynb").write_text(as_jupyter_writes_it(notebook([
        code(IMPORTS), markdown("m"), code("config = CheckpointConfig()"), code(TRAIN)])), encoding="utf-8")
    (lessons / "notes.json").write_text('{"cells": "not a notebook name"}', encoding="utf-8")
    completed = run_cli("--quiet", "--isolated", "lessons", cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    lines = completed.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lessons/01_intro.ipynb:cell 3:1:10: MSP103 [*] ")


def test_a_notebook_whose_outputs_show_the_release_it_ran_runs_that_release():
    """MASS course notebook: no mode set, and ``mindspore.run_check()``'s saved output says "MindSpore version:
    1.8.1": 1.x defaulted to graph mode and to sinking, so MSP202's default-mode finding does not apply there."""
    check_cell = code("ms.run_check()", outputs=[{"name": "stdout", "output_type": "stream", "text": [
        "MindSpore version:  1.8.1\n",
        "The result of multiplication calculation is correct, MindSpore has been installed successfully!\n"]}])
    network = code(["import mindspore.nn as nn\n", "class Net(nn.Cell):\n", "    def __init__(self):\n",
                    "        super().__init__()\n", "        self.fc = nn.Dense(2048, 2048)\n",
                    "    def construct(self, x):\n", "        return self.fc(x)\n"])
    train = code("Model(Net(), loss, opt).train(1, data)")
    without = [c for c, _, _, _ in findings(as_jupyter_writes_it(notebook([code(IMPORTS), network, train])))]
    assert "MSP202" in without  # 2.10 taken: PyNative by default
    ran = [c for c, _, _, _ in findings(as_jupyter_writes_it(notebook([code(IMPORTS), check_cell, network, train])))]
    assert "MSP202" not in ran
