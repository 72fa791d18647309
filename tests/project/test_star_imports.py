"""Names a package re-exports with ``from .module import *`` resolve to their definitions."""

from __future__ import annotations

import textwrap

from ms_perflint.analysis import analyse, module_name
from ms_perflint.analysis.facts import PythonFacts, facts_from_json
from ms_perflint.findings import SourceText
from ms_perflint.project.model import Project
from ms_perflint.sources import PYTHON, Unit

FILES = {
    "pkg/__init__.py": """
        from .factory import *
        from .helpers import *
    """,
    "pkg/factory.py": """
        from mindspore.train import Model
        __all__ = ["create_trainer"]
        def create_trainer(net, loss, opt):
            return Model(net, loss, opt)
    """,
    "pkg/helpers.py": """
        from .deeper import *
    """,
    "pkg/deeper.py": """
        LIMIT = 3
        class Meter:
            pass
    """,
    "train.py": """
        from pkg import Meter, create_trainer, missing
        if __name__ == "__main__":
            trainer = create_trainer(net, loss, opt)
            trainer.train(10, data)
    """,
}


def project() -> Project:
    files = {}
    for path, code in FILES.items():
        text = textwrap.dedent(code).lstrip("\n")
        unit = Unit(path, PYTHON, text, SourceText(text))
        files[path] = analyse(unit, module_name(path), path.endswith("__init__.py"))
    return Project("", files)


def test_star_imported_names_resolve_to_their_definitions():
    model = project()
    found = model.resolve("pkg.create_trainer", "train.py")
    assert (found.path, found.name, found.kind) == ("pkg/factory.py", "create_trainer", "function")
    found = model.resolve("pkg.Meter", "train.py")
    assert (found.path, found.name, found.kind) == ("pkg/deeper.py", "Meter", "class")
    assert model.resolve("pkg.missing", "train.py").kind == "variable"  # defined nowhere: as before


def test_a_program_training_through_a_star_imported_factory_trains():
    model = project()
    assert [p.entry for p in model.training_programs()] == ["train.py"]


def test_star_imports_survive_the_json_round_trip():
    facts = project().python["pkg/__init__.py"]
    assert facts.star_imports == ["pkg.factory", "pkg.helpers"]
    restored = facts_from_json(facts.to_json())
    assert isinstance(restored, PythonFacts) and restored.star_imports == facts.star_imports


def test_a_factory_of_a_linted_mindspore_family_package_is_followed_to_what_it_returns():
    # mindcv linted as a project: ``mindcv.utils.create_trainer`` returns a Model.
    files = {path.replace("pkg", "mindcv"): code.replace("pkg", "mindcv") for path, code in FILES.items()}
    analysed = {}
    for path, code in files.items():
        text = textwrap.dedent(code).lstrip("\n")
        analysed[path] = analyse(Unit(path, PYTHON, text, SourceText(text)), module_name(path),
                                 path.endswith("__init__.py"))
    model = Project("", analysed)
    assert [p.entry for p in model.training_programs()] == ["train.py"]
