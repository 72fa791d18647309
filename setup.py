"""Packaging for ms-perflint."""

import re
import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).parent
VERSION = re.search(r'__version__ = "([^"]+)"', (HERE / "ms_perflint" / "__init__.py").read_text()).group(1)

#: The editor server (`ms-perflint server`): Language Server Protocol over standard input and output.
SERVER_REQUIRES = ["pygls>=2,<3"]

TEST_REQUIRES = [
    *SERVER_REQUIRES,
    "pytest>=7",
    "hypothesis>=6",
    "pre-commit>=3",
    "jsonschema>=4",
]



class BuildWithRulePages(build_py):
    """Ship the rules' docs pages (``docs/rules``, generated from the rules' metadata) inside the package, as
    ``ms_perflint/_docs/rules``: the JSON ``url`` and SARIF ``helpUri`` of an installed copy point at them."""

    def run(self):
        super().run()
        pages = sorted((HERE / "docs" / "rules").glob("MSP*.md"))
        if not pages:
            raise SystemExit("setup.py: docs/rules/MSP*.md are missing (regenerate: python -m ms_perflint.docs_build)")
        target = Path(self.build_lib) / "ms_perflint" / "_docs" / "rules"
        target.mkdir(parents=True, exist_ok=True)
        for page in pages:
            shutil.copyfile(page, target / page.name)


setup(
    name="ms-perflint",
    version=VERSION,
    description="A performance linter for MindSpore model code on Ascend (CLI, flake8 plugin, pre-commit hook)",
    long_description=(HERE / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    packages=find_packages(include=["ms_perflint", "ms_perflint.*"]),
    python_requires=">=3.9",
    install_requires=[
        # <2: the read-only walker and positions (walker.py, positions.py) rely on how libcst 1.x
        # visits and generates code; tests/test_walker.py and test_positions.py check it per release.
        "libcst>=1.1,<2",
        # <8: the plugin asks flake8's own DecisionEngine (flake8.style_guide, not a public API) whether
        # a finding is selected; tests/test_flake8.py runs real flake8 processes against it.
        "flake8>=6,<8",
        # The project index is written under a lock: an flock on POSIX, this package where fcntl is missing.
        'filelock>=3.8; sys_platform == "win32"',
        # Project analysis: YAML configs (amp_level, num_classes, callbacks). Fixes are line edits of
        # the one scalar they change, so a round-tripping YAML library is not needed.
        "PyYAML>=5.1",
        # Values the facts do not follow (project/inference.py): a loop's or comprehension's variable, an item of a
        # returned tuple, a method of an object held in an attribute. Imported by the first such question only.
        # >=3: the builder and inference-context hooks it uses (3.x for Python 3.9, 4.x from 3.10); <5: those
        # hooks (AstroidBuilder._data_build, Module.import_module) are not public API; tests/project/
        # test_inference.py checks them (passed with 3.0.3, 3.3.11 and 4.3.4).
        "astroid>=3,<5",
        # `required-version`: PEP 440 specifiers (`==0.1.*`, `~=0.1`, `>=0.1,<0.3`) decided as pip decides
        # them; a hand-written matcher rejected valid ones. Imported only when the key is set.
        "packaging>=20",
        # Reading pyproject.toml: the standard library's tomllib from Python 3.11 on.
        'tomli>=1.1; python_version < "3.11"',
    ],
    extras_require={"server": SERVER_REQUIRES, "test": TEST_REQUIRES},
    cmdclass={"build_py": BuildWithRulePages},
    entry_points={
        "console_scripts": ["ms-perflint = ms_perflint.cli:console_main"],
        "flake8.extension": ["MSP = ms_perflint.flake8_plugin:Plugin"],
    },
    classifiers=[
        "Environment :: Console",
        "Framework :: Flake8",
        "Intended Audience :: Developers",
        "Programming Language :: Python :: 3",
        "Topic :: Software Development :: Quality Assurance",
    ],
)
