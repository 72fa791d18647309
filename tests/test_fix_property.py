"""Property test: over generated MindSpore-like modules, fixing is safe and stable.

Modules are composed from snippets -- imports under several aliases, Cells with
Dense layers, CheckpointConfig calls in one-line and one-per-line layouts,
save_checkpoint in a training loop, ResNet-50 builders, ``# noqa`` lines, plain
code -- with random comments, blank lines, indentation (spaces or tabs) and
newlines (LF or CRLF). For every module, with all rules and unsafe fixes on:

- the fixed file compiles, and no fix was discarded;
- fixing it again changes nothing, and no fixable finding is left;
- a module with no fixable finding is returned unchanged;
- the newline style is kept (a CRLF file has no bare LF after fixing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ms_perflint.fixer import fix_source, wanted
from ms_perflint.settings import Settings

ALL_ON = Settings()


@dataclass(frozen=True)
class Profile:
    """An import header and how it spells the MindSpore names snippets use."""

    header: str
    nn: str
    checkpoint_config: str
    save_checkpoint: Optional[str]
    resnet50: Optional[str] = None


PROFILES = (
    Profile(
        "import mindspore as ms\nfrom mindspore import nn\nfrom mindspore.train import CheckpointConfig\n",
        "nn",
        "CheckpointConfig",
        "ms.save_checkpoint",
    ),
    Profile(
        "import mindspore\nimport mindspore.nn as mnn\n",
        "mnn",
        "mindspore.train.CheckpointConfig",
        "mindspore.save_checkpoint",
    ),
    Profile(
        "from mindspore import nn, save_checkpoint\n"
        "from mindspore.train.callback import CheckpointConfig as CC\n"
        "from mindspore.common import dtype as mstype\n",
        "nn",
        "CC",
        "save_checkpoint",
    ),
    Profile(
        "import mindspore.nn as nn\nfrom mindspore import train\nfrom mindcv.models import resnet50\n",
        "nn",
        "train.CheckpointConfig",
        None,
        "resnet50",
    ),
)

DIMS = st.sampled_from(["1", "10", "16", "32", "1000", "2 * 8", "HIDDEN"])
COMMENT = st.sampled_from(["", "  # layer", "  # noqa", "  # noqa: MSP103", "  # noqa: MSP101,MSP102", "\t# tabbed  "])


@st.composite
def dense_cell(draw, profile: Profile, number: int) -> str:
    first, second = draw(DIMS), draw(DIMS)
    keyword = draw(st.booleans())
    space = draw(st.sampled_from(["", " ", "  "]))
    args = f"in_channels={first}, out_channels={second}" if keyword else f"{first},{space}{second}"
    chains = [""]  # already covered in fp16, or kept in fp32 on purpose, where the header can spell it
    if "import mindspore\n" in profile.header:
        chains.append(".to_float(mindspore.float16)")
    if "mstype" in profile.header:
        chains.append(".to_float(mstype.float32)")
    chain = draw(st.sampled_from(chains))
    return (
        f"class Net{number}({profile.nn}.Cell):\n"
        "{I}def __init__(self):\n"
        "{I}{I}super().__init__()\n"
        f"{{I}}{{I}}self.fc = {profile.nn}.Dense({args}){chain}{draw(COMMENT)}\n"
        "\n"
        "{I}def construct(self, x):\n"
        "{I}{I}return self.fc(x)\n"
    )


@st.composite
def checkpoint_config(draw, profile: Profile, number: int) -> str:
    extra = draw(st.sampled_from(["", ", async_save=False", ", async_save=True", ", keep_checkpoint_max=5", ", **options"]))
    if draw(st.booleans()):
        return f"config{number} = {profile.checkpoint_config}(save_checkpoint_steps=10{extra}){draw(COMMENT)}\n"
    trailing = draw(st.sampled_from(["", ","]))
    return (
        f"config{number} = {profile.checkpoint_config}(\n"
        "{I}save_checkpoint_steps=10,\n"
        f"{{I}}keep_checkpoint_max=5{trailing}\n"
        ")\n"
    )


@st.composite
def training_loop(draw, profile: Profile, number: int) -> str:
    extra = draw(st.sampled_from(["", ", async_save=True", ", async_save=False"]))
    return (
        f"def train{number}(net, dataset, step):\n"
        "{I}for epoch in range(2):\n"
        "{I}{I}for data, label in dataset.create_tuple_iterator():\n"
        "{I}{I}{I}step(data, label)\n"
        f"{{I}}{{I}}{profile.save_checkpoint}(net, f\"e{{{{epoch}}}}.ckpt\"{extra}){draw(COMMENT)}\n"
    )


@st.composite
def resnet(draw, profile: Profile, number: int) -> str:
    classes = draw(st.sampled_from(["num_classes=1000", "num_classes=1001", "1000", "", "pretrained=True"]))
    return f"model{number} = {profile.resnet50}({classes}){draw(COMMENT)}\n"


@st.composite
def plain(draw, profile: Profile, number: int) -> str:
    snippets = [f"x{number} = [1,  2 ,3]  # plain\n", f"if x{number}:\n{{I}}pass\n", f"y{number} = (\n{{I}}1 +\n{{I}}2\n)\n"]
    return draw(st.sampled_from(snippets))


@st.composite
def modules(draw) -> tuple:
    profile = draw(st.sampled_from(PROFILES))
    kinds = [dense_cell, checkpoint_config, plain]
    if profile.save_checkpoint:
        kinds.append(training_loop)
    if profile.resnet50:
        kinds.append(resnet)
    parts = []
    if draw(st.booleans()):
        parts.append('"""A generated module."""\n')
    if draw(st.booleans()):
        parts.append("from __future__ import annotations\n")
    parts.append(profile.header)
    parts.append("HIDDEN = 100\n")
    for number in range(draw(st.integers(1, 5))):
        parts.append("\n" * draw(st.integers(0, 2)))
        if draw(st.booleans()):
            parts.append(draw(st.sampled_from(["# a comment\n", "#\n", "    # indented comment   \n"])))
        parts.append(draw(draw(st.sampled_from(kinds))(profile, number)))
    indent = draw(st.sampled_from(["    ", "\t", "  "]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = "".join(parts).replace("{I}", indent).replace("{{", "{").replace("}}", "}")
    return text.replace("\n", newline), newline


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_fixing_generated_modules_is_safe_and_stable(generated):
    source, newline = generated
    data = source.encode("utf-8")
    result = fix_source(data, "generated.py", ALL_ON, unsafe=True)
    assert result.remaining.error is None, (result.remaining.error, source)
    assert result.problems == [], [p.message for p in result.problems]
    fixable_before = [v for v in result.before.violations if wanted(v, True)]
    if not fixable_before:
        assert result.fixed_text is None
        return
    fixed = result.fixed_text
    assert fixed is not None and result.fixed_bytes is not None
    compile(fixed, "generated.py", "exec", dont_inherit=True)
    assert [v for v in result.remaining.violations if wanted(v, True)] == []
    again = fix_source(result.fixed_bytes, "generated.py", ALL_ON, unsafe=True)
    assert again.fixed_text is None, f"not idempotent:\n{fixed}\n---\n{again.fixed_text}"
    if newline == "\r\n":
        assert fixed.count("\n") == fixed.count("\r\n")
