"""The ``mindspore-version`` setting: set in the configuration, or inferred from the project's requirements
(requirements.txt, pyproject.toml ``[project] dependencies``, setup.py ``install_requires``), shown with its
source by ``--show-settings``, and read by the rules through :class:`~ms_perflint.settings.Settings`."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Tuple

import pytest

from ms_perflint.config import ConfigError, describe_settings, forget, load_config, resolve_config
from ms_perflint.project.requirements import infer_mindspore_version
from tests.conftest import run_cli

#: A training program with no mode set: MSP202 reports it only when the release is known to be 2.0 or later.
PROGRAM = """\
from mindspore.train import Model
if __name__ == "__main__":
    Model(net, loss, opt).train(10, data)
"""


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def version_row(text: str) -> Tuple[str, str]:
    """``(value, source)`` of the ``mindspore-version = ...  # source`` line of ``--show-settings``."""
    match = re.search(r"^mindspore-version = (.*?)\s+# (.*)$", text, re.MULTILINE)
    assert match, text
    return match[1], match[2]


# --- inference, one file kind at a time ---------------------------------------------------------------------


def test_a_requirements_txt_pin_gives_its_release_and_line(tmp_path: Path):
    write(tmp_path, "requirements.txt", """\
        numpy>=1.20
        # the framework
        mindspore==2.3.1  # pinned for the cluster
        pyyaml
    """)
    inferred = infer_mindspore_version(tmp_path)
    assert (inferred.version, inferred.source) == ("2.3.1", "inferred from requirements.txt:3 (mindspore==2.3.1)")


def test_a_range_gives_its_lowest_allowed_release(tmp_path: Path):
    write(tmp_path, "requirements.txt", "mindspore>=2.2,<2.4\n")
    assert infer_mindspore_version(tmp_path).version == "2.2"
    write(tmp_path, "requirements.txt", "mindspore~=2.3.0\n")
    assert infer_mindspore_version(tmp_path).version == "2.3.0"
    write(tmp_path, "requirements.txt", "mindspore==2.2.*\n")
    assert infer_mindspore_version(tmp_path).version == "2.2"


def test_pyproject_dependencies_are_read_with_their_line(tmp_path: Path):
    write(tmp_path, "pyproject.toml", """\
        [project]
        name = "seg"
        dependencies = [
            "numpy",
            "mindspore>=2.1; platform_system == 'Linux'",
        ]
        [project.optional-dependencies]
        gpu = ["mindspore==1.10.1"]
    """)
    inferred = infer_mindspore_version(tmp_path)
    assert inferred.version == "2.1"
    assert inferred.source.startswith("inferred from pyproject.toml:5 ")


def test_setup_py_install_requires_literals_and_a_module_level_list(tmp_path: Path):
    write(tmp_path, "setup.py", """\
        from setuptools import setup
        REQUIRES = [
            "numpy",
            "mindspore-ascend==1.10.0",
        ]
        setup(name="zoo", install_requires=REQUIRES)
    """)
    inferred = infer_mindspore_version(tmp_path)
    assert (inferred.version, inferred.source) == ("1.10.0", "inferred from setup.py:4 (mindspore-ascend==1.10.0)")
    write(tmp_path, "setup.py", 'from setuptools import setup\nsetup(install_requires=["mindspore>=2.0"])\n')
    assert infer_mindspore_version(tmp_path).version == "2.0"


def test_requirements_that_agree_give_the_highest_lower_bound(tmp_path: Path):
    write(tmp_path, "requirements.txt", "mindspore==2.3.1\n")
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\ndependencies = ["mindspore>=2.2"]\n')
    inferred = infer_mindspore_version(tmp_path)
    assert (inferred.version, inferred.source) == ("2.3.1", "inferred from requirements.txt:1 (mindspore==2.3.1)")


@pytest.mark.parametrize("requirements, pyproject", [
    ("mindspore==2.2.0\n", '"mindspore==2.3.0"'),
    ("mindspore==2.2.0\n", '"mindspore>=2.3"'),
    ("mindspore>=2.4\n", '"mindspore<2.3"'),
])
def test_conflicting_requirements_leave_the_release_unknown_and_say_which(tmp_path: Path, requirements, pyproject):
    write(tmp_path, "requirements.txt", requirements)
    write(tmp_path, "pyproject.toml", f'[project]\nname = "x"\ndependencies = [{pyproject}]\n')
    inferred = infer_mindspore_version(tmp_path)
    assert inferred.version is None
    assert "conflicts with" in inferred.source and "requirements.txt:1" in inferred.source
    assert "pyproject.toml:3" in inferred.source


def test_no_requirement_or_no_lower_bound_leaves_it_unknown(tmp_path: Path):
    assert infer_mindspore_version(tmp_path).version is None
    write(tmp_path, "requirements.txt", "numpy\nmindspore-lite==2.0.0\nmindsporetrainer\n")  # not the framework
    assert infer_mindspore_version(tmp_path).source.startswith("not inferred: no requirement on mindspore")
    write(tmp_path, "requirements.txt", "mindspore<2.4\n")
    inferred = infer_mindspore_version(tmp_path)
    assert inferred.version is None and "sets no lowest release" in inferred.source


def test_unreadable_files_are_passed_over(tmp_path: Path):
    write(tmp_path, "setup.py", "setup(install_requires=['mindspore==2.2'\n")  # a syntax error
    write(tmp_path, "pyproject.toml", "[project\nmindspore")  # invalid TOML
    write(tmp_path, "requirements.txt", "-r base.txt\n--index-url https://example.org/simple\nmindspore \\\n  ==2.5.0\n")
    assert infer_mindspore_version(tmp_path).version == "2.5.0"


# --- the configuration: set, inferred, validated ----------------------------------------------------------------


def test_the_configuration_key_wins_over_the_requirements(tmp_path: Path):
    write(tmp_path, "requirements.txt", "mindspore==2.3.1\n")
    config = write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nmindspore-version = "1.10.1"\n')
    loaded = load_config(config)
    assert (loaded.mindspore_version, loaded.mindspore_version_source) == ("1.10.1", "")
    settings = loaded.settings()
    assert settings.mindspore_version == "1.10.1"


def test_without_the_key_the_config_folders_requirements_are_read(tmp_path: Path):
    write(tmp_path, "requirements.txt", "mindspore>=2.2,<2.4\n")
    config = write(tmp_path, "setup.cfg", "[ms-perflint]\nignore = MSP105\n")
    settings = load_config(config).settings()
    assert settings.mindspore_version == "2.2"
    assert settings.mindspore_version_source == "inferred from requirements.txt:1 (mindspore>=2.2,<2.4)"


def test_without_a_configuration_file_the_project_root_is_read(tmp_path: Path):
    project = tmp_path / "seg"
    write(project, "setup.py", "from setuptools import setup\nsetup(install_requires=['mindspore==2.4.1'])\n")
    source = write(project, "src/train.py", PROGRAM)
    forget()
    assert resolve_config(start=str(source.parent)).mindspore_version == "2.4.1"
    assert resolve_config(start=str(source.parent), isolated=True).mindspore_version is None


@pytest.mark.parametrize("value", ['"2.x"', "2.3", '">=2.3"'])
def test_a_bad_release_names_the_key_and_what_is_allowed(tmp_path: Path, value):
    config = write(tmp_path, "pyproject.toml", f"[tool.ms-perflint]\nmindspore-version = {value}\n")
    with pytest.raises(ConfigError, match=r"mindspore-version: .*(release number|string such as)"):
        load_config(config)


# --- --show-settings ----------------------------------------------------------------------------------------


def test_show_settings_says_where_an_inferred_release_came_from(tmp_path: Path):
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\ndependencies = [\n  "mindspore==2.3.1",\n]\n')
    source = write(tmp_path, "train.py", PROGRAM)
    assert version_row(describe_settings(str(source))) == (
        '"2.3.1"', "inferred from pyproject.toml:4 (mindspore==2.3.1)")


def test_show_settings_of_a_set_unknown_and_isolated_release(tmp_path: Path):
    config = write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nmindspore-version = "2.2"\n')
    source = write(tmp_path, "train.py", PROGRAM)
    assert version_row(describe_settings(str(source))) == ('"2.2"', str(config.resolve()))
    value, where = version_row(describe_settings(str(source), isolated=True))
    assert (value, where) == ("(not set)", "default (not inferred: --isolated reads no project files)")
    config.write_text("[tool.ms-perflint]\nignore = []\n", encoding="utf-8")
    write(tmp_path, "requirements.txt", "mindspore==2.2.0\n")
    write(tmp_path, "setup.py", "from setuptools import setup\nsetup(install_requires=['mindspore==2.3.0'])\n")
    value, where = version_row(describe_settings(str(source)))
    assert value == "(not set)"
    assert where == ("default (not inferred: requirements.txt:1 (mindspore==2.2.0) conflicts with setup.py:2 "
                     "(mindspore==2.3.0))")


def test_the_cli_shows_the_release_and_msp202_uses_it(tmp_path: Path):
    """Through the real CLI: the inferred 2.x release makes an unset mode PyNative (MSP202); 1.x does not."""
    write(tmp_path, "requirements.txt", "mindspore==2.3.1\n")
    write(tmp_path, "setup.py", "")
    source = write(tmp_path, "train.py", PROGRAM)
    shown = run_cli("--show-settings", str(source), cwd=tmp_path)
    assert version_row(shown.stdout) == ('"2.3.1"', "inferred from requirements.txt:1 (mindspore==2.3.1)")
    found = run_cli("--select", "MSP202", "--no-cache", str(source), cwd=tmp_path)
    assert "train.py:3:5: MSP202 Training runs in PyNative mode, the default since MindSpore 2.0" in found.stdout
    assert "MindSpore 2.3.1 per requirements.txt:1 (mindspore==2.3.1)" in found.stdout
    write(tmp_path, "requirements.txt", "mindspore==1.10.1\n")
    assert "MSP202" not in run_cli("--select", "MSP202", "--no-cache", str(source), cwd=tmp_path).stdout

