"""MSP104 resnet50-1000-classes: a ResNet-50 trained from scratch on Ascend with a 1000-class head."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, CFG, FUNCTION, REF, Call, Guard, Value, YamlFacts
from ms_perflint.catalogue import Param
from ms_perflint.findings import Fix, FixAvailability, FixSafety, TextEdit
from ms_perflint.project.model import Program, Project, Where, call_where, is_test_file, where
from ms_perflint.project.parts import config_belongs
from ms_perflint.project.training import Training
from ms_perflint.project.values import Known, Ref, Resolution, Values, non_ascend_config
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check

CONVENTION = (
    "MindSpore's ResNet-50 on Ascend follows TensorFlow's 1001-class ImageNet convention (class 0 = background) "
    "and its kernels are tuned for that head"
)
FIX_DESCRIPTION = "Use 1001 classes (the head grows by one: shift the labels by one, or leave class 0 unused)"
#: The source of a class count that is a ResNet-50 builder's own default.
BUILDER_DEFAULT = "builder default"
#: How far a builder's result is followed through the factories that return it.
MAX_FACTORY_DEPTH = 4
#: Model keys that name other things too at a config's top level (a dataset ``name``, an optimizer ``type``).
NESTED_MODEL_KEYS = frozenset(("type", "name", *ms.BACKBONE_KEYS))
#: Values that switch a flag or a path off.
OFF_VALUES = (False, None, 0, "", "none", "None", "null", "False", "false")


@dataclass(frozen=True)
class Builder:
    """How a ResNet-50 builder takes its class count, its weights and (``create_model``) its model name."""

    label: str
    classes: Optional[Param]
    pretrained: Optional[Param] = None
    checkpoint: Optional[Param] = None
    model: Optional[Param] = None
    #: A project builder's own defaults, to resolve in its file: ``(path, value, scope)``.
    classes_default: Optional[Tuple[str, Value, int]] = None
    pretrained_default: Optional[Tuple[str, Value, int]] = None
    #: A library builder's class-count default (mindcv's 1000), written nowhere in the project.
    library_default: Optional[int] = None
    #: A builder whose signature the linter cannot see: only keyword arguments count.
    keywords_only: bool = False


@dataclass(frozen=True)
class Build:
    """A call that builds a ResNet-50."""

    path: str
    call: Call
    builder: Builder


@dataclass(frozen=True)
class Site:
    """A 1000 that becomes the class count of a trained ResNet-50: where it is written, under which config."""

    known: Known
    #: The builder call it reaches (None: a YAML config whose model key names ResNet-50).
    build: Optional[Build]
    program: Program
    #: The YAML config the value comes from ("" for Python code).
    config: str = ""


class Resnet50ThousandClasses(Rule):
    """Report a ResNet-50 trained from scratch on Ascend with a 1000-class head."""

    code = "MSP104"
    name = "resnet50-1000-classes"
    summary = "A ResNet-50 is trained with 1000 classes; MindSpore's ResNet-50 on Ascend is tuned for 1001"
    fix_availability = FixAvailability.SOMETIMES
    docs = RuleDocs(
        what_it_does="""
            Finds a ResNet-50 that a training program builds with a 1000-class head and trains from
            scratch (no pretrained weights are loaded anywhere in the program), and reports the place
            where the `1000` is written: the builder call's argument, a ResNet-50 builder's parameter
            default that the training call relies on, a module constant, a dict or class config, an
            argparse default, or the `num_classes: 1000` of a YAML config.

            ResNet-50 builders are a project function or Cell class named `resnet50`/`ResNet50`/
            `resnet_50`, mindcv's `resnet50` and `create_model("resnet50", ...)`, and an imported
            `resnet50` of a MindSpore model zoo whose signature the linter cannot see (keywords only).
            The class count is the `num_classes`/`class_num`/`n_classes`/`classes` argument, by keyword
            or by position as the builder's signature says; where the call leaves it out, the builder's
            default counts (mindcv's builders default to 1000: reported at the call). Values are
            followed across the project: parameters, constants, dict and class configs, argparse
            defaults, launch scripts and YAML configs.

            YAML configs are decided one by one: a config is reported when a training program's
            ResNet-50 takes its class count from it (for `create_model(model_name=args.model,
            num_classes=args.num_classes)` only when that same config names `resnet50`), or when the
            config names a ResNet-50 itself (`model: "resnet50"`, `net_name: resnet50`) next to
            `num_classes`/`class_num: 1000` and a training program beside it reads both keys. Its
            weights are decided with its own values: its load keys, and the loaders the program runs
            with them.
        """,
        why_bad="""
            MindSpore's ResNet-50 for Ascend follows TensorFlow's ImageNet convention of 1001 classes,
            class 0 being "background", and the Ascend kernels behind its final Dense layer and softmax
            were tuned for that head. Training with a 1000-class head misses that tuning (the seed
            performance guide of this linter).
        """,
        example="""
            from mindcv.models import resnet50
            from mindspore.train import Model

            net = resnet50(num_classes=1000)
            Model(net, loss, opt).train(90, imagenet)
        """,
        use_instead="""
            from mindcv.models import resnet50
            from mindspore.train import Model

            net = resnet50(num_classes=1001)  # label i of the 1000 ImageNet classes becomes i + 1
            Model(net, loss, opt).train(90, imagenet)
        """,
        fix_safety="""
            The fix is *unsafe*: it replaces the literal `1000` with `1001`, in Python or in the YAML
            config. The network's output grows by one, so the labels must be shifted by one (or class 0
            left unused), and checkpoints trained with 1000 classes no longer load into the head. It is
            offered only where the `1000` is written in place: a value reached through a name
            (`num_classes=NUM_CLASSES`) may be used by other code and gets no fix, nor does a value that
            another program also builds a ResNet-50 with while it loads weights (a `fine_tune.py` or
            `eval.py` sharing the config): the message names that program. Where mindcv's default is
            used, the message says to pass `num_classes=1001`.
        """,
        programs="""
            Training programs that run on Ascend (scripts and notebooks that train, with the code they
            reach); code under a guard that never holds does not run. A program pinned to GPU or CPU
            (`set_context(device_target="GPU")`) is skipped, and so is a YAML config whose name says it
            is for GPU or CPU (`resnet_50_gpu.yaml`) or that sets `device_target: GPU`, and a YAML config
            whose `run_mode` is predict or eval. Code no training program reaches is not reported.
        """,
        silent_on="""
            - a program that loads weights: a loader call (`load_checkpoint`, `load_param_into_net`,
              mindcv's `load_pretrained`/`load_model_checkpoint`, ...) that can run, also inside library
              helpers; `pretrained=` not known to be false, or a non-empty `checkpoint_path=`; a YAML load
              key (`pretrained`, `ckpt_path`, `pre_trained`, `resume`, ...) set to a real value that the
              training program reads. A loader under a guard that never holds (mindcv's
              `if pretrained: load_pretrained(...)` with `pretrained` False wherever it comes from), or
              given an empty path, loads nothing. Save keys (`ckpt_save_dir`, `save_best_ckpt`) never
              count, nor a load key only another program reads (a shared zoo config's `checkpoint_path`,
              read by `fine_tune.py` but not by `train.py`);
            - backbones whose head is not used: a feature extractor (`features_only=True`,
              `include_top=False`, a YAML `backbone_features_only: True`), a ResNet-50 built as a part of
              another Cell (stored as `self.<attr>` of a Cell, or passed to a project Cell's constructor
              such as `RetinaFace(backbone=resnet50())`, also through a factory that returns it), and a
              YAML `backbone: resnet50`;
            - a builder default that no training call relies on: every call passes its own class count,
              or the builder is only reached through a registry (mindcv's `@register_model def
              resnet50(..., num_classes=1000)`, called by `create_model` with the config's count);
            - other frameworks' builders (`torchvision.models.resnet50`, `timm`, ...) and other networks
              (`seresnet50`, `BiT_resnet50`, a YAML config whose top level names `resnet18`, a config
              saying `net: resnet50` for a program that trains its own `glore_resnet50(...)`);
            - model names, class counts or weights the linter cannot know, and a YAML config no training
              program reads the model key and class count of.
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): 1 finding, worth acting on (mindcv's
            `configs/resnet/resnet_50_ascend.yaml`). See docs/precision.md.
        """,
        references=(
            "https://github.com/mindspore-lab/mindcv/blob/main/configs/resnet/resnet_50_ascend.yaml",
            "https://github.com/mindspore-ai/models/tree/master/official/cv/ResNet",
        ),
    )
    valid = (
        Valid(
            """
            from mindcv.models import resnet50
            from mindspore.train import Model
            if __name__ == "__main__":
                net = resnet50(num_classes=1001)
                Model(net, loss, opt).train(90, data)
            """,
            why="already 1001",
        ),
        Valid(
            """
            import mindcv
            from mindspore.train import Model
            if __name__ == "__main__":
                net = mindcv.create_model("resnet50", pretrained=True)
                Model(net, loss, opt).train(10, data)
            """,
            why="fine-tunes pretrained 1000-class weights",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore.train import Model
            from src.resnet import resnet50
            if __name__ == "__main__":
                net = resnet50(class_num=1000)
                ms.load_param_into_net(net, ms.load_checkpoint("resnet50_imagenet.ckpt"))
                Model(net, loss, opt).train(10, data)
            """,
            why="the program loads a 1000-class checkpoint",
        ),
        Valid(
            """
            from mindcv.models import resnet50
            from mindspore.train import Model
            net = resnet50(num_classes=1000)
            """,
            why="no program trains it",
        ),
        Valid(
            """
            import mindspore as ms
            from mindcv.models import resnet50
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(device_target="GPU")
                Model(resnet50(num_classes=1000), loss, opt).train(90, data)
            """,
            why="a GPU program",
        ),
        Valid(
            """
            import mindspore.nn as nn
            from mindcv.models import create_model
            from mindspore.train import Model
            class Detector(nn.Cell):
                def __init__(self, backbone):
                    super().__init__()
                    self.backbone = backbone
                def construct(self, x):
                    return self.backbone(x)
            if __name__ == "__main__":
                backbone = create_model("resnet50", features_only=True)
                Model(Detector(backbone), loss, opt).train(10, data)
            """,
            why="a feature extractor: its head is not used",
        ),
        Valid(
            """
            import mindspore.nn as nn
            from mindspore.train import Model
            from src.resnet import resnet50
            class RetinaFace(nn.Cell):
                def __init__(self, backbone):
                    super().__init__()
                    self.body = backbone
                def construct(self, x):
                    return self.body(x)
            if __name__ == "__main__":
                backbone = resnet50(class_num=1000)
                Model(RetinaFace(backbone=backbone), loss, opt).train(10, data)
            """,
            why="a backbone of another Cell",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model
            class ResNet(nn.Cell):
                def __init__(self, num_classes):
                    super().__init__()
                    self.fc = nn.Dense(2048, num_classes)
            def resnet50(num_classes=1000, pretrained=False):
                net = ResNet(num_classes)
                if pretrained:
                    ms.load_param_into_net(net, ms.load_checkpoint("resnet50_224.ckpt"))
                return net
            if __name__ == "__main__":
                net = resnet50(pretrained=True)
                Model(net, loss, opt).train(10, data)
            """,
            why="the builder loads pretrained weights, and the default 1000 must fit them",
        ),
        Valid(
            """
            from mindspore import nn
            from mindspore.train import Model
            class ResNet50(nn.Cell):
                def __init__(self, num_classes=1000):
                    super().__init__()
                    self.head = nn.Dense(2048, num_classes)
            if __name__ == "__main__":
                Model(ResNet50(num_classes=102), loss, opt).train(30, flowers)
            """,
            why="a default no training call relies on",
        ),
        Valid(
            """
            import torchvision
            from mindspore.train import Model
            if __name__ == "__main__":
                teacher = torchvision.models.resnet50(num_classes=1000)
                Model(student, loss, opt).train(10, data)
            """,
            why="torchvision's builder, not MindSpore's",
        ),
    )
    invalid = (
        Invalid(
            """
            from mindcv.models import resnet50
            from mindspore.train import Model
            if __name__ == "__main__":
                net = resnet50(num_classes=1000)
                Model(net, loss, opt).train(90, data)
            """,
            line=4,
            column=32,
            fixed="""
            from mindcv.models import resnet50
            from mindspore.train import Model
            if __name__ == "__main__":
                net = resnet50(num_classes=1001)
                Model(net, loss, opt).train(90, data)
            """,
            message_contains="1001-class",
        ),
        Invalid(
            """
            import mindcv
            from mindspore.train import Model
            if __name__ == "__main__":
                net = mindcv.create_model("resnet50")
                Model(net, loss, opt).train(90, data)
            """,
            line=4,
            column=11,
            message_contains="defaults to num_classes=1000",
        ),
        Invalid(
            """
            from mindspore import nn
            from mindspore.train import Model
            class ResNet(nn.Cell):
                def __init__(self, class_num):
                    super().__init__()
                    self.fc = nn.Dense(2048, class_num)
            def resnet50(class_num=1000):
                return ResNet(class_num)
            if __name__ == "__main__":
                Model(resnet50(), loss, opt).train(90, data)
            """,
            line=7,
            column=24,
            fixed="""
            from mindspore import nn
            from mindspore.train import Model
            class ResNet(nn.Cell):
                def __init__(self, class_num):
                    super().__init__()
                    self.fc = nn.Dense(2048, class_num)
            def resnet50(class_num=1001):
                return ResNet(class_num)
            if __name__ == "__main__":
                Model(resnet50(), loss, opt).train(90, data)
            """,
        ),
        Invalid(
            """
            import argparse
            from mindspore.train import Model
            from src.resnet import resnet50
            def main(args):
                net = resnet50(class_num=args.class_num)
                Model(net, loss, opt).train(90, data)
            if __name__ == "__main__":
                parser = argparse.ArgumentParser()
                parser.add_argument("--class_num", type=int, default=1000)
                main(parser.parse_args())
            """,
            line=9,
            column=58,
            fixed="""
            import argparse
            from mindspore.train import Model
            from src.resnet import resnet50
            def main(args):
                net = resnet50(class_num=args.class_num)
                Model(net, loss, opt).train(90, data)
            if __name__ == "__main__":
                parser = argparse.ArgumentParser()
                parser.add_argument("--class_num", type=int, default=1001)
                main(parser.parse_args())
            """,
            message_contains="argparse default",
        ),
    )

    def check(self, check: Check) -> None:
        decider = _Decider(check, _builds(check.project))
        if not decider.builds and not decider.standalone_configs():
            return  # nothing to decide: skip the device question for every program
        programs = check.ascend_programs()
        reported: Set[Tuple[str, int, int]] = set()
        for site in decider.sites(programs):
            place = site.known.where
            if place is None:
                assert site.build is not None
                place = call_where(site.build.path, site.build.call)
            key = (place.path, place.line, place.column)
            if key not in reported:
                reported.add(key)
                message = _message(site, decider.loading_program_relying_on(site.known.where, site.config))
                check.report(self.code, place.path, place, message, decider.fix(site))


# --- which calls build a ResNet-50 -----------------------------------------------------------------


def _builds(project: Project) -> List[Build]:
    """Every call of a ResNet-50 builder outside the builders themselves."""
    found = []
    for path, facts in sorted(project.python.items()):
        for call in facts.calls:
            builder = _builder(project, path, call)
            if builder is not None and not _inside_builder(project, path, call.scope):
                found.append(Build(path, call, builder))
    return found


def _builder(project: Project, path: str, call: Call) -> Optional[Builder]:
    """How ``call`` builds a ResNet-50, or None when it does not."""
    if not call.callee or call.callee.startswith("self."):
        return None
    head = call.callee.split(".", 1)[0]
    if head in ms.FOREIGN_PACKAGES:
        return None
    canonical = ms.canonical_name(call.callee)
    last = canonical.rsplit(".", 1)[-1]
    if canonical == ms.MINDCV_CREATE_MODEL:
        signature = ms.MINDCV_SIGNATURES[ms.MINDCV_CREATE_MODEL]
        return Builder('mindcv create_model("resnet50")', signature["classes"], signature["pretrained"],
                       signature["checkpoint"], signature["model"], library_default=ms.IMAGENET_CLASSES)
    if head == "mindcv" and last == ms.MINDCV_RESNET50.rsplit(".", 1)[-1]:
        signature = ms.MINDCV_SIGNATURES[ms.MINDCV_RESNET50]
        return Builder("mindcv resnet50", signature["classes"], signature["pretrained"],
                       library_default=ms.IMAGENET_CLASSES)
    symbol = project.callee(path, call)
    if symbol is not None and symbol.kind in ("function", "class"):
        if symbol.name not in ms.RESNET50_NAMES:
            return None
        return _project_builder(project, symbol.path, symbol.name, symbol.kind)
    if last in ms.RESNET50_NAMES and project.python[path].imports_mindspore:
        return Builder(last, Param(ms.CLASS_COUNT_KEYWORDS[0]), Param("pretrained"), keywords_only=True)
    return None


def _project_builder(project: Project, path: str, name: str, kind: str) -> Optional[Builder]:
    """A project ``def resnet50(...)`` or ``class ResNet50``: its signature and defaults."""
    facts = project.python[path]
    if kind == "function":
        index = facts.functions[name]
        skip = 0
    else:
        init = project.method((path, name), "__init__")
        if init is None or not project.is_cell((path, name)):
            return None
        path, index = init
        facts = project.python[path]
        skip = 1
    scope = facts.scopes[index]
    params = scope.params[skip:]
    classes = next((p for p in params if p in ms.CLASS_COUNT_KEYWORDS), None)
    if classes is None:
        return None
    pretrained = "pretrained" if "pretrained" in params else None
    defaults = scope.defaults
    return Builder(
        f"{name} ({path})", Param(classes, params.index(classes)),
        Param(pretrained, params.index(pretrained)) if pretrained else None,
        classes_default=(path, defaults[classes], scope.parent) if classes in defaults else None,
        pretrained_default=(path, defaults[pretrained], scope.parent) if pretrained in defaults else None,
    )


def _inside_builder(project: Project, path: str, scope: int) -> bool:
    """The call is made by a ResNet-50 builder itself (``def resnet50(): return ResNet50(...)``)."""
    facts = project.python[path]
    while 0 < scope < len(facts.scopes):
        current = facts.scopes[scope]
        if current.name.split(".", 1)[0] in ms.RESNET50_NAMES:
            return True
        scope = current.parent
    return False


# --- deciding -----------------------------------------------------------------------------------------


class _Decider:
    """The questions the rule asks of one project, memoised."""

    def __init__(self, check: Check, builds: List[Build]) -> None:
        self.check = check
        self.project = check.project
        self.values: Values = check.values
        self.builds = builds
        self._loaders: Optional[List[Tuple[str, Call]]] = None
        self._loads: Dict[Tuple[str, str], bool] = {}
        self._components: Dict[Tuple[str, int], bool] = {}
        self._keys_read: Dict[str, Set[str]] = {}
        self._standalone: Optional[Set[str]] = None
        self._counts: Dict[Tuple[str, int, str], Resolution] = {}
        self._trained: Dict[str, List[Tuple[str, Set[str]]]] = {}
        self.training = Training.shared(check.project)

    # --- sites ---------------------------------------------------------------------------------------

    def sites(self, programs: Sequence[Program]) -> List[Site]:
        """Every 1000 that becomes the class count of a ResNet-50 an Ascend program trains from scratch."""
        found: List[Site] = []
        for program in programs:
            running = [b for b in self.builds if self._runs(program, b) and not self._component(b)]
            for build in running:
                found.extend(self._python_sites(build, program))
            for config in sorted(self._candidate_configs(running, program)):
                if self._config_trains(config, program):
                    found.extend(self._yaml_sites(config, program, running))
        return found

    def standalone_configs(self) -> Set[str]:
        """YAML configs that name a ResNet-50 with a 1000-class head."""
        if self._standalone is None:
            self._standalone = {path for path, facts in self.project.yaml.items() if any(_yaml_class_counts(facts))}
        return self._standalone

    def _candidate_configs(self, running: List[Build], program: Program) -> Set[str]:
        """YAML configs with a 1000 that may be a ResNet-50's class count: beside a model key, or reaching a build."""
        found = set(self.standalone_configs())
        for build in running:
            found.update(k.where.path for k in self.class_counts(build, program).values
                         if _is_thousand(k.value) and self._in_yaml(k))
        return found

    def _runs(self, program: Program, build: Build) -> bool:
        call = build.call
        if not program.reaches(build.path, call.scope):
            return False
        return (build.path, call.scope) in self.values.live_scopes(program) and \
            self.values.can_hold(build.path, call.scope, call.guards, program)

    def _component(self, build: Build) -> bool:
        key = (build.path, build.call.id)
        if key not in self._components:
            self._components[key] = _component(self.project, build.path, build.call, 0)
        return self._components[key]

    def _python_sites(self, build: Build, program: Program) -> List[Site]:
        """1000s written in Python code (YAML values are decided per config, by :meth:`_yaml_sites`)."""
        found = []
        for known in self.class_counts(build, program).values:
            if _is_thousand(known.value) and not self._in_yaml(known) and self._is_resnet50(build, program, "") and \
                    not self._headless(build, program, "") and not self.loads(build, program, ""):
                found.append(Site(known, build, program))
        return found

    def _yaml_sites(self, config: str, program: Program, running: List[Build]) -> List[Site]:
        """The ``num_classes: 1000`` of one YAML config the program trains a ResNet-50 with."""
        linked: Dict[Where, List[Build]] = {}
        knowns: Dict[Where, Known] = {}
        facts = self.project.yaml[config]
        for build in running if not _names_other_network(facts) else ():
            for known in self.class_counts(build, program).values:
                if _is_thousand(known.value) and known.where is not None and known.where.path == config \
                        and self._is_resnet50(build, program, config):
                    linked.setdefault(known.where, []).append(build)
                    knowns[known.where] = known
        for model, key, value in _yaml_class_counts(facts):
            place = where(config, value)
            if place not in knowns and self._reads(program, key) and self._reads(program, model) and \
                    not self._trains_another_network(program, model):
                knowns[place] = Known(value.data, place, "yaml")
        found = []
        for place, known in sorted(knowns.items(), key=lambda item: item[0].start):
            builds = linked.get(place, [])
            if any(self._headless(b, program, config) or self.loads(b, program, config) for b in builds):
                continue
            if not builds and (self._config_loads(program, config) or self.program_loads(program, config)):
                continue
            found.append(Site(known, builds[0] if builds else None, program, config))
        return found

    def _in_yaml(self, known: Known) -> bool:
        return known.where is not None and known.where.path in self.project.yaml

    def _config_trains(self, config: str, program: Program) -> bool:
        """A YAML config the (Ascend) program runs with, for training, on Ascend, with the head."""
        facts = self.project.yaml[config]
        if is_test_file(config) or not config_belongs(config, program.entry) or non_ascend_config(config):
            return False
        return _run_mode(facts) not in ms.NON_TRAINING_RUN_MODES and not _yaml_headless(facts) and \
            not _yaml_device_elsewhere(facts)

    def _trains_another_network(self, program: Program, model_key: str) -> bool:
        """Every network the program trains is built by a fixed builder that is not a ResNet-50's.

        A builder that takes the config's model key (``get_network(config.net_name, ...)``) builds
        what the config names; ``glore_resnet50(class_num=config.class_num)`` builds its own network.
        """
        if program.entry not in self._trained:
            self._trained[program.entry] = self._trained_builders(program)
        builders = self._trained[program.entry]
        return bool(builders) and all(
            name not in ms.RESNET50_NAMES and model_key not in keys for name, keys in builders)

    def _trained_builders(self, program: Program) -> List[Tuple[str, Set[str]]]:
        """``(builder name, config keys its arguments read)`` of each network the program trains ("" unknown)."""
        found = []
        for use in self.training.networks(program):
            value = self.training.unwrap(use.path, use.network)
            call = self.project.python[use.path].call(value.data) if value.kind == CALL else None
            symbol = self.project.callee(use.path, call) if call is not None else None
            if call is None or symbol is None or symbol.kind not in ("function", "class"):
                return []  # a network the linter cannot name: the config may say what it is
            found.append((symbol.name, _keys_in([*call.args, *call.kwargs.values()])))
        return found

    def _reads(self, program: Program, key: str) -> bool:
        """Code the program runs reads the config key (``args.num_classes``, ``cfg["num_classes"]``)."""
        if program.entry not in self._keys_read:
            self._keys_read[program.entry] = _keys_read(self.project, program)
        return key in self._keys_read[program.entry]

    # --- values --------------------------------------------------------------------------------------

    def class_counts(self, build: Build, program: Program) -> Resolution:
        """The class counts a build may get in a program; a library default has no place (``where`` None)."""
        key = (build.path, build.call.id, program.entry)
        if key not in self._counts:
            self._counts[key] = self._class_counts(build, program)
        return self._counts[key]

    def _class_counts(self, build: Build, program: Program) -> Resolution:
        call, builder = build.call, build.builder
        argument = _argument(call, builder.classes, builder.keywords_only)
        if argument is not None:
            return self.values.resolve(build.path, argument, call.scope, program=program)
        if builder.classes is None or call.may_pass(builder.classes.keyword, builder.classes.position):
            return Resolution([], complete=False)
        if builder.classes_default is not None:
            path, value, scope = builder.classes_default
            found = self.values.resolve(path, value, scope, program=program)
            return Resolution([Known(k.value, k.where, BUILDER_DEFAULT, k.via) if k.source == "literal" else k
                               for k in found.values], found.complete)
        if builder.library_default is not None:
            return Resolution([Known(builder.library_default, None, "default")])
        return Resolution([], complete=False)

    def under(self, path: str, value: Optional[Value], scope: int, program: Program, config: str) -> Resolution:
        """The values ``value`` takes when the program runs with the YAML ``config`` (with any of them for "")."""
        found = self.values.resolve(path, value, scope, program=program)
        if not config:
            return found
        yaml = self.project.yaml
        kept = [k for k in found.values if k.where is None or k.where.path not in yaml or k.where.path == config]
        if any(k.where is not None and k.where.path == config for k in kept):
            kept = [k for k in kept if k.source != "argparse default"]  # the YAML overrides the parser
        return Resolution(kept, found.complete)

    def _is_resnet50(self, build: Build, program: Program, config: str) -> bool:
        builder = build.builder
        if builder.model is None:
            return True
        argument = build.call.argument(builder.model.keyword, builder.model.position)
        names = self.under(build.path, argument, build.call.scope, program, config)
        if not names.values or (not config and not names.complete):
            return False
        return all(_names_resnet50(k.value) for k in names.values)

    def _headless(self, build: Build, program: Program, config: str) -> bool:
        """A keyword that drops the head may be set so (``features_only=True``, ``include_top=False``)."""
        call = build.call
        for keyword in ms.HEADLESS_KEYWORDS:
            if keyword in call.kwargs:
                found = self.under(build.path, call.kwargs[keyword], call.scope, program, config)
                if not (_on(found) if keyword in ms.HEAD_KEEPING_KEYWORDS else _off(found)):
                    return True
        return False

    # --- weights -------------------------------------------------------------------------------------

    def loads(self, build: Build, program: Program, config: str) -> bool:
        """Weights are loaded into the build, or anywhere in the program (under ``config``)."""
        call, builder = build.call, build.builder
        for parameter, default in ((builder.pretrained, builder.pretrained_default), (builder.checkpoint, None)):
            if parameter is None:
                continue
            argument = _argument(call, parameter, builder.keywords_only)
            if argument is not None:
                if not _off(self.under(build.path, argument, call.scope, program, config)):
                    return True
            elif call.may_pass(parameter.keyword, None if builder.keywords_only else parameter.position):
                return True
            elif default is not None and not _off(self.under(default[0], default[1], default[2], program, config)):
                return True
        if builder.keywords_only and any(a.known and a.data is True for a in call.args):
            return True  # an unknown signature may take ``pretrained`` positionally
        if config and self._config_loads(program, config):
            return True
        return self.program_loads(program, config)

    def _config_loads(self, program: Program, config: str) -> bool:
        """The YAML config sets a load key (``pretrained``, ``ckpt_path``, ``resume``, ...) that the program reads."""
        return any(key in ms.LOAD_KEYS and _plain(value.data) not in OFF_VALUES and self._reads(program, key)
                   for _, key, value in self.project.yaml[config].entries())

    def program_loads(self, program: Program, config: str) -> bool:
        """A loader call can run in the program (with the YAML ``config``)."""
        key = (program.entry, config)
        if key not in self._loads:
            self._loads[key] = self._program_loads(program, config)
        return self._loads[key]

    def _program_loads(self, program: Program, config: str) -> bool:
        loaders = [(p, c) for p, c in self.loaders() if program.reaches(p, c.scope)]
        if not loaders:
            return False

        def holds(path: str, scope: int, guards: Sequence[Guard]) -> bool:
            return self._holds_under(path, scope, guards, program, config)

        live = self.values.live_scopes(program, holds if config else None)
        for path, call in loaders:
            if (path, call.scope) in live and holds(path, call.scope, call.guards) and \
                    not self._loads_nothing(path, call, program, config):
                return True
        return False

    def loaders(self) -> List[Tuple[str, Call]]:
        """Every call of a weight loader in the project."""
        if self._loaders is None:
            self._loaders = [(path, call) for path, facts in sorted(self.project.python.items())
                             for call in facts.calls if _loader_name(call)]
        return self._loaders

    def _loads_nothing(self, path: str, call: Call, program: Program, config: str) -> bool:
        """The loader is given an empty path, or only passes on what a nested loader call loaded."""
        facts = self.project.python[path]
        name = call.method or call.callee.rsplit(".", 1)[-1]
        for argument in (*call.args, *call.kwargs.values()):
            if argument.kind == CALL:
                inner = facts.call(argument.data)
                if inner is not None and _loader_name(inner):  # load_param_into_net(net, load_checkpoint(path))
                    return self._path_empty(path, inner, program, config)
        network = ms.LOADER_NETWORKS.get(name)
        if network is not None and not call.may_pass(network.keyword, network.position):
            return True  # returns the parameters; only a load_param_into_net (a loader itself) fills a network
        return self._path_empty(path, call, program, config)

    def _path_empty(self, path: str, call: Call, program: Program, config: str) -> bool:
        """The loader is given a path that is empty in every configuration."""
        name = call.method or call.callee.rsplit(".", 1)[-1]
        parameter = ms.LOADER_PATHS.get(name)
        file = call.argument(parameter.keyword, parameter.position) if parameter is not None else None
        if file is None:
            return False
        found = self.under(path, file, call.scope, program, config)
        return found.complete and bool(found.values) and all(k.value in ("", None) for k in found.values)

    def _holds_under(self, path: str, scope: int, guards: Sequence[Guard], program: Program, config: str) -> bool:
        """:meth:`Values.can_hold` with the program's values (of one YAML config)."""
        for condition, holds in guards:
            found = self.under(path, condition, scope, program, config)
            if found.complete and found.values and all(bool(_plain(k.value)) != holds for k in found.values):
                return False
        return True

    # --- fixes ---------------------------------------------------------------------------------------

    def fix(self, site: Site) -> Optional[Fix]:
        """1000 -> 1001 where the literal is written in place and no weight-loading build relies on it."""
        known = site.known
        where = known.where
        if where is None or known.via or where.end - where.start != len(str(ms.IMAGENET_CLASSES)):
            return None
        if self.loading_program_relying_on(where, site.config):
            return None
        return Fix(FixSafety.UNSAFE, FIX_DESCRIPTION,
                   (TextEdit(where.start, where.end, str(ms.IMAGENET_WITH_BACKGROUND)),))

    def loading_program_relying_on(self, where: Optional[Where], config: str) -> str:
        """The entry of a program that builds a ResNet-50 with this value and loads weights into it ("" none)."""
        if where is None:
            return ""
        for build in self.builds:
            for program in self.project.programs_reaching(build.path, build.call.scope):
                if any(k.where == where for k in self.class_counts(build, program).values) and \
                        self.loads(build, program, config):
                    return program.entry
        return ""


# --- helpers ----------------------------------------------------------------------------------------


def _argument(call: Call, parameter: Optional[Param], keywords_only: bool) -> Optional[Value]:
    if parameter is None:
        return None
    if keywords_only:
        keywords = ms.CLASS_COUNT_KEYWORDS if parameter.keyword in ms.CLASS_COUNT_KEYWORDS else (parameter.keyword,)
        return next((call.kwargs[k] for k in keywords if k in call.kwargs), None)
    return call.argument(parameter.keyword, parameter.position)


def _component(project: Project, path: str, call: Call, depth: int,
               seen: Optional[Set[Tuple[str, int]]] = None) -> bool:
    """The built network is a part of another Cell: stored on a Cell, or passed to a project Cell's constructor.

    ``seen``: the calls already looked at (factories calling each other are followed once each)."""
    seen = set() if seen is None else seen
    if (path, call.id) in seen:
        return False
    seen.add((path, call.id))
    if call.target.startswith("self."):
        owner = project.owner_class(path, call.scope)
        if owner is not None and project.is_cell(owner):
            return True
    facts = project.python[path]
    for other in facts.calls:
        if other.id != call.id and any(_result_of(v, call) for v in (*other.args, *other.kwargs.values())):
            symbol = project.callee(path, other)
            if symbol is not None and symbol.kind == "class" and project.is_cell((symbol.path, symbol.name)):
                return True
    scope = facts.scopes[call.scope]
    if depth < MAX_FACTORY_DEPTH and scope.kind == FUNCTION and any(_result_of(v, call) for v in scope.returns):
        return any(_component(project, caller_path, caller, depth + 1, seen)
                   for caller_path, caller in project.callers((path, call.scope))[:16])
    return False


def _result_of(value: Value, call: Call) -> bool:
    return value.kind == CALL and value.data == call.id


def _loader_name(call: Call) -> bool:
    name = call.method or call.callee.rsplit(".", 1)[-1]
    return name in ms.WEIGHT_LOADERS


def _is_thousand(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value == ms.IMAGENET_CLASSES


def _names_resnet50(value: Any) -> bool:
    """``resnet50``, ``ResNet50``, ``resnet_50``, ``resnet-50`` -- not ``seresnet50`` or ``BiT_resnet50``."""
    if not isinstance(value, str):
        return False
    return value.lower().replace("_", "").replace("-", "") == "resnet50"


def _plain(value: Any) -> Any:
    return value.name if isinstance(value, Ref) else value


def _off(found: Resolution) -> bool:
    """Every value is known, and each switches the flag (or path) off."""
    return found.complete and bool(found.values) and all(_plain(k.value) in OFF_VALUES for k in found.values)


def _on(found: Resolution) -> bool:
    """Every value is known, and each switches the flag on."""
    return found.complete and bool(found.values) and all(_plain(k.value) not in OFF_VALUES for k in found.values)


def _run_mode(facts: YamlFacts) -> str:
    for mapping in facts.mappings:
        if not mapping.path and "run_mode" in mapping.entries:
            value = mapping.entries["run_mode"].data
            return str(value).strip().lower() if isinstance(value, str) else ""
    return ""


def _yaml_class_counts(facts: YamlFacts) -> Iterator[Tuple[str, str, Value]]:
    """``(model key, class-count key, value)``: ``num_classes: 1000`` beside (or at the root above) a model key
    naming ResNet-50; never a backbone's."""
    root = next((m for m in facts.mappings if not m.path), None)
    seen: Set[int] = set()
    for mapping in facts.mappings:
        if any(part in ms.BACKBONE_KEYS for part in mapping.path):
            continue
        model = next((key for key, value in mapping.entries.items()
                      if key in ms.MODEL_KEYS and key not in ms.BACKBONE_KEYS and _names_resnet50(value.data)), None)
        if model is None:
            continue
        for scope in (mapping, root):
            for key in ms.CLASS_COUNT_KEYWORDS:
                value = scope.entries.get(key) if scope is not None else None
                if value is not None and _is_thousand(value.data) and value.start not in seen:
                    seen.add(value.start)
                    yield model, key, value


def _names_other_network(facts: YamlFacts) -> bool:
    """The config's top level names a network that is not a ResNet-50 (``model: resnet18``)."""
    root = next((m for m in facts.mappings if not m.path), None)
    if root is None:
        return False
    return any(key in ms.MODEL_KEYS and key not in NESTED_MODEL_KEYS and isinstance(value.data, str) and
               not _names_resnet50(value.data) for key, value in root.entries.items())


def _yaml_device_elsewhere(facts: YamlFacts) -> bool:
    """The config pins a device other than Ascend (``device_target: GPU``)."""
    root = next((m for m in facts.mappings if not m.path), None)
    if root is None:
        return False
    return any(key in ms.DEVICE_KEYS and isinstance(value.data, str) and value.data.strip().upper() in ("GPU", "CPU")
               for key, value in root.entries.items())


def _keys_read(project: Project, program: Program) -> Set[str]:
    """Config keys read by calls the program runs: ``args.key``, ``cfg["key"]``, ``config.key`` of a config module."""
    found: Set[str] = set()
    for path in program.files:
        facts = project.python.get(path)
        for call in facts.calls if facts is not None else ():
            if (path, call.scope) not in program.scopes:
                continue
            values = [*call.args, *call.kwargs.values(), *(v for v, _ in call.guards)]
            found.update(_keys_in(values + ([call.receiver] if call.receiver is not None else [])))
    return found


def _keys_in(values: Sequence[Value]) -> Set[str]:
    """Config keys the values read: ``args.key``, ``cfg["key"]``, ``config.key`` of a config module."""
    found: Set[str] = set()
    stack = list(values)
    while stack:
        value = stack.pop()
        if value.kind == CFG:
            found.add(value.data)
        elif value.kind == REF and "." in value.data:
            found.add(value.data.rsplit(".", 1)[1])
        stack.extend(value.parts)
    return found


def _yaml_headless(facts: YamlFacts) -> bool:
    """A key that drops the head is set so (``features_only: True``, ``backbone_features_only: True``)."""
    for _, key, value in facts.entries():
        for word in ms.HEADLESS_KEYWORDS:
            if word in key and (value.data in OFF_VALUES) == (word in ms.HEAD_KEEPING_KEYWORDS):
                return True
    return False


def _message(site: Site, loader: str = "") -> str:
    build, known = site.build, site.known
    trained = f"trained from scratch by {site.program.entry}"
    if build is None:
        return (f"num_classes: {ms.IMAGENET_CLASSES} in a ResNet-50 config {trained}; {CONVENTION}: "
                f"use {ms.IMAGENET_WITH_BACKGROUND} (labels shift by one)")
    built = f"ResNet-50 {build.builder.label} built at {build.path}:{build.call.line}"
    if known.where is None:
        return (f"{build.builder.label} defaults to num_classes={ms.IMAGENET_CLASSES}: this ResNet-50 is {trained}; "
                f"{CONVENTION}: pass num_classes={ms.IMAGENET_WITH_BACKGROUND}")
    how = {"literal": [], "default": ["a parameter default"], BUILDER_DEFAULT: ["the builder's default"],
           "yaml": ["this config"]}.get(known.source, [known.source])
    if known.via:
        how.append(f"through {known.via}")
    said = f" ({', '.join(how)})" if how else ""
    caution = f"; {loader} loads weights built with the same value: keep them in step" if loader else ""
    return (f"{ms.IMAGENET_CLASSES}{said} becomes the class count of {built}, {trained}; {CONVENTION}: use "
            f"{ms.IMAGENET_WITH_BACKGROUND} (labels shift by one){caution}")
