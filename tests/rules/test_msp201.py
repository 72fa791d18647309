"""MSP201 save-graphs-enabled: graph dumping left on in training -- in code, config defaults, YAML and launch
scripts -- and the look-alikes real code is full of (898 ``save_graphs=False`` boilerplate sites in public code)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List, Tuple

from ms_perflint.findings import FixSafety
from ms_perflint.fix.edits import apply_fix_text
from ms_perflint.rules.msp201_save_graphs_enabled import SaveGraphsEnabled
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings
from tests.conftest import write_project

RULE = [SaveGraphsEnabled]
SETTINGS = Settings(select=("MSP201",))


def lint(code: str, path: str = "train.py"):
    result = check_text(textwrap.dedent(code).lstrip("\n"), path, SETTINGS, rules=RULE)
    assert result.error is None, result.error
    return [f for f in result.findings if f.code == "MSP201"]


def at(code: str) -> List[Tuple[int, int]]:
    return [(f.line, f.column + 1) for f in lint(code)]


def fixed(code: str) -> str:
    source = textwrap.dedent(code).lstrip("\n")
    found = lint(code)
    assert found and all(f.fix is not None and f.fix.safety is FixSafety.SAFE for f in found)
    return apply_fix_text(source, [f.fix for f in found])


def project(tmp_path: Path, files) -> dict:
    root = write_project(tmp_path, files)
    results = check_folder(str(root), SETTINGS, rules=RULE)
    return {path: [(f.line, f.column + 1, f.message) for f in r.findings] for path, r in results.items() if r.findings}


# --- reported ------------------------------------------------------------------------------------------


def test_a_literal_level_in_set_context_is_replaced_by_off():
    code = """
        import mindspore as ms
        from mindspore.train import Model
        if __name__ == "__main__":
            ms.set_context(mode=ms.GRAPH_MODE, save_graphs=3, save_graphs_path="./ir")
            Model(net, loss, opt).train(10, data)
    """
    assert at(code) == [(4, 52)]
    assert "save_graphs=3, " not in fixed(code) and "save_graphs=0, save_graphs_path" in fixed(code)


def test_an_argparse_default_of_true_is_reported_where_it_is_written():
    code = """
        import argparse
        import ast
        import mindspore as ms
        from mindspore.train import Model
        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--save_graphs", type=ast.literal_eval, default=True, help="dump IR")
            args = parser.parse_args()
            ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend", save_graphs=args.save_graphs)
            Model(net, loss, opt).train(10, data)
        if __name__ == "__main__":
            main()
    """
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(7, 73)]
    assert "argparse default, read by set_context at train.py:9" in found[0].message
    assert 'default=False, help="dump IR"' in fixed(code)


def test_a_config_class_default_reaches_set_context_through_a_helper(tmp_path: Path):
    found = project(tmp_path, {
        "src/config.py": """
            class Config:
                def __init__(self, save_graphs=True, lr=0.1):
                    self.save_graphs = save_graphs
                    self.lr = lr
        """,
        "src/env.py": """
            from mindspore import context
            def init_env(config):
                context.set_context(mode=context.GRAPH_MODE, save_graphs=config.save_graphs)
        """,
        "train.py": """
            from mindspore.train import Model
            from src.config import Config
            from src.env import init_env
            if __name__ == "__main__":
                config = Config()
                init_env(config)
                Model(net, loss, opt).train(10, data)
        """,
    })
    assert [(line, column) for line, column, _ in found["src/config.py"]] == [(2, 36)]


def test_the_environment_variable_in_code_and_in_a_launch_script(tmp_path: Path):
    found = project(tmp_path, {
        "train.py": """
            import os
            from mindspore.train import Model
            os.environ.setdefault("MS_DEV_SAVE_GRAPHS", "2")
            Model(net, loss, opt).train(10, data)
        """,
        "scripts/run_train.sh": """
            #!/bin/bash
            export MS_DEV_SAVE_GRAPHS=1
            export MS_DEV_SAVE_GRAPHS_PATH=./ir
            python train.py --epochs 10
        """,
        "scripts/run_eval.sh": """
            export MS_DEV_SAVE_GRAPHS=1
            python eval.py
        """,
    })
    assert [(line, column) for line, column, _ in found["train.py"]] == [(3, 45)]
    assert [(line, column) for line, column, _ in found["scripts/run_train.sh"]] == [(2, 27)]
    assert "scripts/run_eval.sh" not in found  # it launches no training program


def test_a_mindformers_yaml_context_turns_it_on(tmp_path: Path):
    found = project(tmp_path, {
        "configs/finetune_llama.yaml": """
            run_mode: 'finetune'
            context:
              mode: 0
              device_target: "Ascend"
              save_graphs: True
              save_graphs_path: "./graph"
        """,
        "configs/predict_llama.yaml": """
            run_mode: 'predict'
            context:
              save_graphs: True
        """,
    })
    assert list(found) == ["configs/finetune_llama.yaml"]
    assert [(line, column) for line, column, _ in found["configs/finetune_llama.yaml"]] == [(5, 16)]
    text = (tmp_path / "configs/finetune_llama.yaml").read_text()
    results = check_folder(str(tmp_path), SETTINGS, rules=RULE)
    fix = results["configs/finetune_llama.yaml"].findings[0].fix
    assert "save_graphs: False\n" in apply_fix_text(text, [fix.edits and fix] if fix else [])


# --- silent: the look-alikes -------------------------------------------------------------------------------


def test_the_boilerplate_that_turns_it_off_is_silent():
    assert at("""
        from mindspore import context
        from mindspore.train import Model
        context.set_context(mode=context.GRAPH_MODE, device_target="Ascend", save_graphs=False)
        Model(net, loss, opt).train(10, data)
    """) == []
    assert at("""
        import mindspore as ms
        from mindspore.train import Model
        ms.set_context(save_graphs=0, save_graphs_path="./graphs")
        Model(net, loss, opt).train(10, data)
    """) == []


def test_a_config_default_of_false_and_an_unknown_value_are_silent():
    assert at("""
        import argparse, ast
        from mindspore import context
        from mindspore.train import Model
        parser = argparse.ArgumentParser()
        parser.add_argument('--save_graphs', type=ast.literal_eval, default=False, help='whether save graphs')
        args = parser.parse_args()
        context.set_context(mode=context.GRAPH_MODE, save_graphs=args.save_graphs)
        Model(net, loss, opt).train(10, data)
    """) == []
    assert at("""
        from mindspore import context
        from mindspore.train import Model
        def main(save):
            context.set_context(save_graphs=save)
            Model(net, loss, opt).train(10, data)
        if __name__ == "__main__":
            main(read_flag())
    """) == []


def test_evaluation_and_export_programs_are_silent():
    assert at("""
        from mindspore import context
        from mindspore.train import Model
        if __name__ == "__main__":
            context.set_context(mode=context.GRAPH_MODE, save_graphs=True)
            print(Model(net, loss, metrics={"acc"}).eval(data))
    """) == []


def test_a_debug_switch_that_may_be_off_is_silent():
    assert at("""
        import argparse
        import mindspore as ms
        from mindspore.train import Model
        parser = argparse.ArgumentParser()
        parser.add_argument("--debug", action="store_true")
        args = parser.parse_args()
        if args.debug:
            ms.set_context(save_graphs=True, save_graphs_path="./ir")
        Model(net, loss, opt).train(10, data)
    """) == []


def test_a_shared_flag_is_reported_without_a_fix():
    found = lint("""
        import mindspore as ms
        from mindspore.train import Model
        DEBUG = True
        ms.set_context(save_graphs=DEBUG)
        if DEBUG:
            print("debugging")
        Model(net, loss, opt).train(10, data)
    """)
    assert [(f.line, f.column + 1) for f in found] == [(3, 9)]
    assert found[0].fix is None  # DEBUG is read by other code too


def test_the_environment_variable_off_or_in_a_test_file_is_silent(tmp_path: Path):
    found = project(tmp_path, {
        "train.py": """
            import os
            from mindspore.train import Model
            os.environ["MS_DEV_SAVE_GRAPHS"] = "0"
            Model(net, loss, opt).train(10, data)
        """,
        "tests/configs/debug.yaml": """
            context:
              save_graphs: 2
        """,
    })
    assert found == {}
