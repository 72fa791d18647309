"""The project index: root discovery, what is indexed, the persisted cache, and concurrent builders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Dict

from ms_perflint.project.index import CACHE_FOLDER, ProjectIndex, find_root, load_index, module_name
from ms_perflint.settings import Settings
from ms_perflint.project import root_for


def write(root: Path, files: Dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


MODEL = """
    import mindspore.nn as nn
    class Net(nn.Cell):
        def construct(self, x):
            return x
"""


def test_root_is_the_nearest_marked_folder(tmp_path: Path):
    write(tmp_path, {"outer/pyproject.toml": "", "outer/src/inner/setup.py": "", "outer/src/inner/a.py": "",
                     "outer/src/b.py": ""})
    assert find_root(str(tmp_path / "outer/src/b.py")) == str(tmp_path / "outer")
    assert find_root(str(tmp_path / "outer/src/inner/a.py")) == str(tmp_path / "outer/src/inner")
    assert find_root(str(tmp_path / "outer/src")) == str(tmp_path / "outer")


def test_fallback_root_only_for_files_inside_it_and_never_in_per_file_mode(tmp_path: Path):
    write(tmp_path, {"loose/a.py": "", "elsewhere/b.py": ""})
    loose = str(tmp_path / "loose")
    if find_root(loose) is not None:  # the temporary folder itself sits in a marked folder: nothing to check
        return
    settings = Settings(project=True, project_fallback_root=loose)
    assert root_for(str(tmp_path / "loose/a.py"), settings) == loose
    assert root_for(str(tmp_path / "elsewhere/b.py"), settings) is None
    assert root_for(str(tmp_path / "loose/a.py"), Settings()) is None


def test_module_names():
    assert module_name("train.py") == "train"
    assert module_name("src/model.py") == "src.model"
    assert module_name("src/__init__.py") == "src"


def test_index_holds_python_yaml_and_shell_but_not_tool_folders_or_nested_projects(tmp_path: Path):
    write(tmp_path, {
        "pyproject.toml": "",
        "train.py": "import mindspore\n",
        "src/model.py": MODEL,
        "config/resnet50_config.yaml": "net_name: resnet50\nclass_num: 1000\n",
        "scripts/run.sh": "python train.py --amp_level O2\n",
        "venv/lib/x.py": "import mindspore\n",
        ".hidden/y.py": "import mindspore\n",
        "vendor/pkg/setup.py": "",
        "vendor/pkg/z.py": "import mindspore\n",
        "README.md": "resnet50",
    })
    index = ProjectIndex(str(tmp_path)).refresh()
    assert sorted(index.files) == ["config/resnet50_config.yaml", "scripts/run.sh", "src/model.py", "train.py"]
    assert index.files["src/model.py"].facts.cells == {"Net": 2}
    assert [f.code for f in index.files["config/resnet50_config.yaml"].yaml.findings] == ["MSP104"]
    assert [(e.key, e.value) for e in index.files["scripts/run.sh"].shell] == [("amp_level", "O2")]


def test_a_rerun_reads_nothing_and_a_change_reparses_only_that_file(tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "", "train.py": "import mindspore\n", "src/model.py": MODEL})
    first = ProjectIndex(str(tmp_path)).refresh()
    assert (first.read_count, first.parsed_count) == (2, 2)
    assert (tmp_path / CACHE_FOLDER / ".gitignore").exists()

    again = ProjectIndex(str(tmp_path)).refresh()
    assert (again.read_count, again.parsed_count) == (0, 0)
    assert again.digest() == first.digest()

    model = tmp_path / "src/model.py"
    model.write_text(model.read_text() + "\nclass Head(nn.Cell):\n    pass\n")
    changed = ProjectIndex(str(tmp_path)).refresh()
    assert (changed.read_count, changed.parsed_count) == (1, 1)
    assert changed.files["src/model.py"].facts.cells == {"Net": 2, "Head": 6}
    assert changed.digest() != first.digest()


def test_touching_a_file_rereads_it_but_does_not_reparse_it(tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "", "train.py": "import mindspore\n"})
    ProjectIndex(str(tmp_path)).refresh()
    later = time.time() + 5
    os.utime(tmp_path / "train.py", (later, later))
    touched = ProjectIndex(str(tmp_path)).refresh()
    assert (touched.read_count, touched.parsed_count) == (1, 0)
    assert (ProjectIndex(str(tmp_path)).refresh().read_count) == 0  # the new time was saved


def test_a_corrupt_cache_is_rebuilt(tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "", "train.py": "import mindspore\n"})
    index = ProjectIndex(str(tmp_path)).refresh()
    cache = Path(index._cache_path())
    cache.write_text("{not json")
    rebuilt = ProjectIndex(str(tmp_path)).refresh()
    assert rebuilt.parsed_count == 1
    assert json.loads(cache.read_text())["files"]["train.py"]["facts"]["imports_mindspore"] is True


def test_deleted_files_leave_the_index(tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "", "train.py": "import mindspore\n", "old.py": "import mindspore\n"})
    ProjectIndex(str(tmp_path)).refresh()
    (tmp_path / "old.py").unlink()
    assert sorted(ProjectIndex(str(tmp_path)).refresh().files) == ["train.py"]


def test_a_project_whose_cache_cannot_be_written_is_indexed_in_memory(tmp_path: Path):
    # A plain file where the cache folder should be: no lock, no cache, even for root.
    write(tmp_path, {"pyproject.toml": "", "train.py": "import mindspore\n", CACHE_FOLDER: "not a folder"})
    index = ProjectIndex(str(tmp_path)).refresh()
    assert sorted(index.files) == ["train.py"]
    assert (tmp_path / CACHE_FOLDER).read_text() == "not a folder"


def test_an_index_not_persisted_neither_reads_nor_writes_the_cache(tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "", "train.py": "import mindspore\n"})
    ProjectIndex(str(tmp_path)).refresh()
    saved = Path(ProjectIndex(str(tmp_path))._cache_path())
    before = saved.read_bytes()
    write(tmp_path, {"src/model.py": MODEL})
    memory = ProjectIndex(str(tmp_path), persist=False).refresh()
    assert (memory.read_count, memory.parsed_count) == (2, 2)  # the saved index was not read
    assert memory.files["src/model.py"].facts.cells == {"Net": 2}
    assert saved.read_bytes() == before  # nor rewritten


def test_load_index_is_once_per_process_unless_refreshed(tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "", "train.py": "import mindspore\n"})
    first = load_index(str(tmp_path), refresh=True)
    assert load_index(str(tmp_path)) is first
    assert load_index(str(tmp_path), refresh=True) is not first


_BUILD = textwrap.dedent(
    """
    import sys
    from ms_perflint.project.index import ProjectIndex
    index = ProjectIndex(sys.argv[1]).refresh()
    print(index.parsed_count, len(index.files))
    """
)


def test_concurrent_processes_build_the_index_once(tmp_path: Path):
    files = {"pyproject.toml": ""}
    files.update({f"src/m{i}.py": MODEL for i in range(40)})
    write(tmp_path, files)
    processes = [
        subprocess.Popen([sys.executable, "-c", _BUILD, str(tmp_path)], stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outputs = sorted(process.communicate(timeout=120)[0].split() for process in processes)
    assert all(process.returncode == 0 for process in processes)
    # Exactly one process parsed the 40 files; the others waited for its lock and read its cache.
    assert [parsed for parsed, _ in outputs] == ["0", "0", "0", "40"]
    assert {count for _, count in outputs} == {"40"}


def test_a_fifo_in_the_project_is_not_read(tmp_path: Path):
    # Opening a named pipe for reading blocks until a writer comes: the index must never try.
    write(tmp_path, {"pyproject.toml": "", "train.py": "import mindspore\n"})
    os.mkfifo(tmp_path / "pipe.py")
    index = ProjectIndex(str(tmp_path)).refresh()
    assert sorted(index.files) == ["train.py"]
