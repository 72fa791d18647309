"""``--profile``: reading profiler tables, mapping operators to source lines, weighing and confirming findings.

The Ascend tables are hand-written fixtures (``tests/data/profiles/README.md``); the real CPU profile of
``examples/`` is read in the MindSpore tier (``tests/test_mindspore_profile.py``).
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Dict

import pytest

from ms_perflint.profile.formats import read_profiles
from ms_perflint.profile.mapping import ScopeMapper, scope_steps
from ms_perflint.project.index import ProjectIndex
from ms_perflint.project.model import Project
from tests.conftest import run_cli

PROFILES = Path(__file__).resolve().parent.parent / "data" / "profiles"

MODEL = """\
import mindspore.nn as nn


class Encoder(nn.Cell):
    def __init__(self, hidden=768):
        super().__init__()
        self.query = nn.Dense(hidden, hidden)
        self.norm = nn.LayerNorm((hidden,))

    def construct(self, x):
        return self.norm(self.query(x))


class Net(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Dense(768, config.vocab_size)

    def construct(self, x):
        return self.head(self.encoder(x))
"""
TRAIN = """\
import mindspore as ms
from mindspore import nn
from mindspore.train import Model

from model import Net

if __name__ == "__main__":
    ms.set_context(device_target="Ascend", mode=ms.GRAPH_MODE)
    net = Net(load_config())
    opt = nn.Adam(net.trainable_params())
    Model(net, loss_fn=nn.MSELoss(), optimizer=opt, amp_level="O2").train(10, dataset, dataset_sink_mode=True)
"""


def write(root: Path, files: Dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(tmp_path / "project", {"pyproject.toml": "[project]\nname = 'x'\n", "model.py": MODEL,
                                        "train.py": TRAIN})


# --- reading ------------------------------------------------------------------------------------------


def test_kernel_details_rows_of_one_operator_are_summed_with_dtypes_and_shapes():
    profile = read_profiles([str(PROFILES / "ascend")])
    assert profile.problems == [] and len(profile.tables) == 1
    rows = {row.name.rsplit("/", 2)[-2]: row for row in profile.rows}
    query = rows["query-Dense"]
    assert query.op_type == "MatMulV2" and query.time_us == pytest.approx(1620.0)
    assert query.input_dtypes == ("float32", "float32") and query.input_shapes == ((8, 768), (768, 768))
    assert not query.on_ai_cpu
    head = [row for row in profile.rows if row.name.endswith("head-Dense/MatMul-op2")][0]
    assert head.output_shapes == ((8, 30522),) and head.input_dtypes == ("float16", "float16")
    assert profile.total_us == pytest.approx(1620 + 2400 + 2600 + 120 + 260)


def test_msprof_op_summary_with_task_types_and_prefixed_dtypes():
    profile = read_profiles([str(PROFILES / "msprof")])
    query = [row for row in profile.rows if "query-Dense" in row.name][0]
    assert query.on_ai_cpu and query.input_dtypes == ("float32", "float32") and query.time_us == 950.0
    assert query.input_shapes == ((8, 768), (768, 768))


def test_odd_tables_are_skipped_or_read_as_far_as_they_go():
    profile = read_profiles([str(PROFILES / "variants")])
    skipped = sorted(Path(problem.split(":")[0]).name for problem in profile.problems)
    assert skipped == ["kernel_details_empty.csv", "kernel_details_no_name.csv"]
    [no_name] = [problem for problem in profile.problems if "no_name" in problem]
    assert no_name.endswith("kernel_details_no_name.csv: its header has no operator name column, skipped"), no_name
    assert [(row.op_type, row.time_us) for row in profile.rows] == [("MatMulV2", 15.5)]  # truncated line dropped
    assert profile.rows[0].input_shapes == () and profile.rows[0].input_dtypes == ()


def test_a_folder_without_a_profile_says_so(tmp_path: Path):
    (tmp_path / "file").write_text("")
    profile = read_profiles([str(tmp_path), str(tmp_path / "missing"), str(tmp_path / "file")])
    assert profile.rows == []
    assert profile.problems[0].endswith("no profile found (looked for cpu_op_detail_info_*.csv, "
                                        "kernel_details*.csv, op_summary_*.csv)")
    assert profile.problems[1] == f"{tmp_path / 'missing'}: no such folder"
    assert profile.problems[2] == f"{tmp_path / 'file'}: not a folder"


# --- mapping ------------------------------------------------------------------------------------------


def test_scope_steps_of_forward_and_backward_names():
    assert scope_steps("Gradients/Default/network-WithLossCell/_backbone-Net/head-Dense/Grad_MatMul/MatMul-op7") == (
        True, [("network", "WithLossCell"), ("_backbone", "Net"), ("head", "Dense")])
    assert scope_steps("Default/optimizer-Adam/Adam-op9") == (False, [("optimizer", "Adam")])
    assert scope_steps("Expand/_MatMulExt/BatchMatMul-op1") == (False, [])


def test_operators_map_to_the_lines_that_build_their_cells(project: Path):
    index = ProjectIndex(str(project)).refresh()
    mapper = ScopeMapper(Project(index.root, index.facts()))
    profile = read_profiles([str(PROFILES / "ascend")])
    mapped = {row.name: mapper.map(row) for row in profile.rows}
    query = mapped["Default/network-WithLossCell/_backbone-Net/encoder-Encoder/query-Dense/MatMul-op1"]
    assert [(s.path, s.line, s.describe()) for s in query.sites] == [
        ("model.py", 17, "Net.encoder (Encoder)"), ("model.py", 7, "Encoder.query (Dense)")]
    backward = mapped["Gradients/Default/network-WithLossCell/_backbone-Net/head-Dense/Grad_MatMul/MatMul-op7"]
    assert backward.backward and backward.sites[-1].describe() == "Net.head (Dense)"
    assert mapped["Default/optimizer-Adam/Adam-op9"] is None  # MindSpore's optimizer: no project line


def test_a_numbered_cell_in_a_container_keeps_the_containers_line(tmp_path: Path):
    root = write(tmp_path, {"pyproject.toml": "", "net.py": textwrap.dedent("""\
        import mindspore.nn as nn

        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(64, 64)

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.blocks = nn.SequentialCell([Block() for _ in range(4)])
        """)})
    index = ProjectIndex(str(root)).refresh()
    mapper = ScopeMapper(Project(index.root, index.facts()))
    from ms_perflint.profile.formats import OpRow

    mapped = mapper.map(OpRow("Default/network-WithLossCell/_backbone-Net/blocks-SequentialCell/2-Block/fc-Dense/"
                              "MatMul-op3", "MatMul", 10.0))
    assert [s.describe() for s in mapped.sites] == ["Net.blocks (SequentialCell)", "Block.fc (Dense)"]
    assert [s.line for s in mapped.sites] == [11, 6]


# --- the command line ----------------------------------------------------------------------------------


def test_findings_carry_their_share_and_the_profile_adds_what_the_source_could_not_say(project: Path):
    completed = run_cli("--profile", str(PROFILES / "ascend"), "--output-format", "json", ".", cwd=project)
    assert completed.returncode == 1, completed.stderr
    found = {(e["filename"], e["code"], e["location"]["row"]): e for e in json.loads(completed.stdout)}
    # O2 is on, yet the encoder's query ran on float32 inputs (as the profile shows); the vocabulary head's width
    # comes from a config the linter cannot read, but the profile shows 30522 outputs.
    query = found[("model.py", "MSP101", 7)]
    assert query["message"].startswith("from the profile: Encoder.query (Dense) ran its MatMulV2 on float32 inputs")
    assert query["cost"] == pytest.approx(1620 / 7000, abs=1e-4)
    head = found[("model.py", "MSP102", 18)]
    assert "30522 wide, not a multiple of 16" in head["message"]
    assert head["cost"] == pytest.approx(5000 / 7000, abs=1e-4)
    assert "Profile: 5 operators in 1 table(s); 4 mapped to source lines (96.3 % of the profiled time)" \
        in completed.stderr


def test_sort_by_cost_min_share_and_top(project: Path):
    profile = str(PROFILES / "ascend")
    ordered = run_cli("--profile", profile, "--sort", "cost", "-q", ".", cwd=project)
    codes = [line.split(": ")[1].split(" ")[0] for line in ordered.stdout.splitlines()]
    assert codes == ["MSP102", "MSP101"]
    assert "MSP102 [71.4 %]" in ordered.stdout and "MSP101 [23.1 %]" in ordered.stdout
    hidden = run_cli("--profile", profile, "--min-share", "50", "-q", ".", cwd=project)
    assert [line.split(": ")[1][:6] for line in hidden.stdout.splitlines()] == ["MSP102"]
    top = run_cli("--profile", profile, "--top", "2", ".", cwd=project)
    assert top.returncode == 0, top.stderr
    assert top.stdout.splitlines() == [
        " 71.4 %  model.py:18  Net.head (Dense)  (forward 2.40 ms, backward 2.60 ms)",
        " 23.1 %  model.py:7  Encoder.query (Dense)  (forward 1.62 ms, backward 0.00 ms)"]


def test_unmapped_operators_are_listed_on_request(project: Path):
    completed = run_cli("--profile", str(PROFILES / "ascend"), "--profile-unmapped", "-q", ".", cwd=project)
    assert "Operators not mapped to a source line: 1 (3.7 % of the profiled time)" in completed.stdout
    assert "ApplyAdamD" in completed.stdout and "Default/optimizer-Adam/Adam-op9" in completed.stdout


def test_an_msprof_operator_on_the_ai_cpu_is_a_finding(project: Path):
    completed = run_cli("--profile", str(PROFILES / "msprof"), "-q", ".", cwd=project)
    assert "model.py:7:22: MSP101 [29.2 %] from the profile: Encoder.query (Dense) ran its MatMul on the AI CPU" \
        in completed.stdout


def test_a_profile_of_another_model_leaves_the_static_findings(project: Path, tmp_path: Path):
    static = run_cli("-q", ".", cwd=project)
    other = write(tmp_path / "other", {"kernel_details.csv": "Name,Type,Duration(us)\n"
                                                             "Default/network-Other/fc-Dense/MatMul-op1,MatMul,5\n"})
    completed = run_cli("--profile", str(other), "-q", ".", cwd=project)
    assert completed.returncode == static.returncode
    assert "no operator of the profile maps to a Cell of these files" in completed.stderr
    assert completed.stdout == static.stdout


def test_a_profile_folder_that_holds_no_profile_is_a_usage_error(project: Path, tmp_path: Path):
    """In CI a typo in --profile must fail the job, not turn into an ordinary run."""
    (tmp_path / "empty").mkdir()
    for folder, said in ((tmp_path / "empty", "no profile found (looked for cpu_op_detail_info_*.csv"),
                         (tmp_path / "missing", "no such folder"), (project / "train.py", "not a folder")):
        completed = run_cli("--profile", str(folder), "-q", ".", cwd=project)
        assert (completed.returncode, completed.stdout) == (2, ""), completed.stdout + completed.stderr
        assert completed.stderr == f"ms-perflint: error: --profile {folder}: {said}" + completed.stderr.split(said)[1]
        assert completed.stderr.count("\n") == 1


def test_profile_options_need_a_profile_and_fixing_does_not_take_one(project: Path):
    assert "need --profile" in run_cli("--top", "5", ".", cwd=project).stderr
    by_cost = run_cli("--sort", "cost", ".", cwd=project)
    assert (by_cost.returncode, by_cost.stdout) == (2, "")
    assert by_cost.stderr == ("ms-perflint: error: --top, --min-share, --profile-unmapped and --sort cost need "
                              "--profile DIR\n")
    refused = run_cli("--profile", str(PROFILES / "ascend"), "--fix", ".", cwd=project)
    assert refused.returncode == 2 and "--profile weighs findings" in refused.stderr
    assert run_cli("--profile", "x", "--min-share", "150", ".", cwd=project).returncode == 2


def test_a_copy_of_the_profile_beside_the_project_is_found_recursively(project: Path):
    shutil.copytree(PROFILES / "ascend", project / "profile_out")
    completed = run_cli("--profile", "profile_out", "-q", ".", cwd=project)
    assert "MSP102 [71.4 %]" in completed.stdout
