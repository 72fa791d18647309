"""Project.entries: which files are programs (scripts and notebooks), and which are libraries."""

from __future__ import annotations

import textwrap

from ms_perflint.analysis import analyse, module_name
from ms_perflint.findings import SourceText
from ms_perflint.project.model import Project
from ms_perflint.sources import PYTHON, Unit


def project_of(**files: str) -> Project:
    facts = {}
    for name, code in files.items():
        path = name.replace("__", "/") + ".py"
        text = textwrap.dedent(code).lstrip("\n")
        facts[path] = analyse(Unit(path, PYTHON, text, SourceText(text)), module_name(path), False)
    return Project("", facts)


def test_a_library_module_whose_only_module_level_calls_are_decorators_is_no_program():
    # mindspore/ops/_op_impl/*.py and mindformers' utilities: registrations by decorator at import time.
    project = project_of(ops__batch_matmul_impl="""
        from mindspore.ops.op_info_register import op_info_register, TBERegOp
        from mindspore.ops.primitive import constexpr

        @op_info_register(TBERegOp("BatchMatMul").get_op_info())
        def _batch_matmul_tbe():
            return

        @constexpr
        def _shape(x):
            return x
    """)
    assert project.entries() == []


def test_a_script_that_sets_the_context_at_module_level_is_a_program():
    project = project_of(train="""
        import mindspore as ms
        from mindspore.ops.primitive import constexpr

        @constexpr
        def _shape(x):
            return x

        ms.set_context(mode=ms.GRAPH_MODE)
    """)
    assert project.entries() == ["train.py"]


def test_a_decorated_definition_is_still_reached_from_a_script():
    project = project_of(
        lib="""
            import mindspore as ms

            @ms.jit
            def step(x):
                return x
        """,
        train="""
            from lib import step

            if __name__ == "__main__":
                step(1)
        """,
    )
    assert [p.entry for p in project.programs()] == ["train.py"]
    assert "lib.py" in project.programs()[0].files
