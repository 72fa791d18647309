"""Config files of a MindSpore project: YAML configs and shell launch scripts.

Real projects keep the decisions the rules care about outside the Python code:
``amp_level: O2`` and ``num_classes: 1000`` in a YAML file (MindCV, the model zoo's
``*_config.yaml``, mindformers), ``--amp_level O2`` in ``scripts/run_train.sh``.
This module reads those files into :class:`~ms_perflint.project.facts.ConfigEntry`
values (the same shape as argparse defaults and dict configs in Python) and
reports the findings that live in YAML itself:

- MSP104: a ResNet-50 configured with 1000 classes (fix: ``1000`` -> ``1001``);
- MSP103: a mindformers ``CheckpointMonitor`` callback saving synchronously.

Fixes are line-based edits of the one scalar they change: PyYAML tells where the
scalar is, and everything else -- comments, quoting, layout -- stays byte for
byte. (A round-tripping YAML library would rewrite the whole file to change one
number, and would be a second YAML dependency.)
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Iterator, List, Optional, Sequence, Tuple

from ms_perflint.noqa import NOQA_INLINE
from ms_perflint.project.facts import CONFIG_KEYS, ConfigEntry

YAML_SUFFIXES = (".yaml", ".yml")
SHELL_SUFFIXES = (".sh",)
#: A YAML file is parsed only if its text holds one of these.
YAML_MARKERS = (*sorted(CONFIG_KEYS), "CheckpointMonitor")
#: Keys whose value names the network (``model: resnet50``, ``backbone: {type: ResNet50}``).
MODEL_KEYS = frozenset(("model", "model_name", "arch", "network", "net", "net_name", "backbone", "type", "name"))
RESNET50 = re.compile(r"^resnet[_-]?50$", re.IGNORECASE)
CLASS_COUNT_KEYS = ("num_classes", "class_num")
#: Keys that load existing weights: 1000-class weights no longer load into a 1001-class head.
PRETRAINED_KEYS = re.compile(r"pre_?train|ckpt|checkpoint_(file_)?path|resume", re.IGNORECASE)
CHECKPOINT_MONITOR = "CheckpointMonitor"


@dataclass(frozen=True)
class TextEdit:
    """Replace ``old`` at ``line``:``column`` (1-based line, 0-based column) with ``new``."""

    line: int
    column: int
    old: str
    new: str


@dataclass
class ConfigFinding:
    """A finding in a config file, positioned like a :class:`~ms_perflint.rule.Violation`."""

    code: str
    message: str
    line: int
    column: int
    edit: Optional[TextEdit] = None
    #: ``"safe"``/``"unsafe"`` (as :class:`~ms_perflint.rule.FixSafety`), or None without an edit.
    safety: Optional[str] = None
    #: Where the reported scalar ends (exclusive, 0-based column); 0 when unknown.
    end_line: int = 0
    end_column: int = 0


@dataclass
class YamlScan:
    """What one YAML file says: config values, and findings in it."""

    entries: List[ConfigEntry] = field(default_factory=list)
    findings: List[ConfigFinding] = field(default_factory=list)
    error: Optional[str] = None


# --- YAML --------------------------------------------------------------------


@dataclass
class _Scalar:
    key: str
    value: Any
    text: str
    line: int
    column: int
    end_line: int
    end_column: int
    key_column: int
    #: Written in flow style (``{type: X, ...}``): no line can be inserted into it.
    flow: bool = False


def scan_yaml(text: str) -> YamlScan:
    """Read a YAML file's config values and findings. Invalid YAML comes back as ``error``."""
    scan = YamlScan()
    if not any(marker in text for marker in YAML_MARKERS):
        return scan
    import yaml

    try:
        return _scan_documents(_compose_all(text), scan)
    except (yaml.YAMLError, RecursionError) as error:  # the user's file, not our crash
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        return YamlScan(error=message)


def _scan_documents(documents: list, scan: YamlScan) -> YamlScan:
    for document in documents:
        mappings = list(_mappings(document))
        scalars = [s for mapping in mappings for s in mapping]
        for scalar in scalars:
            if scalar.key in CONFIG_KEYS:
                entry = ConfigEntry(scalar.line, scalar.column, owner="yaml", key=scalar.key, value=scalar.value)
                scan.entries.append(entry)
        scan.findings.extend(_resnet50_findings(scalars))
        for mapping in mappings:
            scan.findings.extend(_checkpoint_monitor_findings(mapping))
    return scan


def _compose_all(text: str) -> list:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return [document for document in yaml.compose_all(text, Loader=loader) if document is not None]


def _mappings(node: Any) -> Iterator[List[_Scalar]]:
    """Every mapping in the document, as its list of scalar ``key: value`` pairs."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        pairs = []
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode):
                pairs.append(_scalar(key, value, bool(node.flow_style)))
        yield pairs
        for _, value in node.value:
            yield from _mappings(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _mappings(item)


def _scalar(key: Any, value: Any, flow: bool) -> _Scalar:
    return _Scalar(
        key=str(key.value),
        value=_typed(value),
        text=str(value.value),
        line=value.start_mark.line + 1,
        column=value.start_mark.column,
        end_line=value.end_mark.line + 1,
        end_column=value.end_mark.column,
        key_column=key.start_mark.column,
        flow=flow,
    )


def _typed(node: Any) -> Any:
    """A scalar node's Python value under YAML 1.1's core tags, as PyYAML's safe loader reads it."""
    tag = node.tag.rsplit(":", 1)[-1]
    text = node.value
    if tag == "bool":
        return text.lower() in ("yes", "true", "on", "y")
    if tag == "int":
        try:
            return int(text.replace("_", ""), 0)
        except ValueError:
            return text
    if tag == "null":
        return None
    return text


def _resnet50_findings(scalars: Sequence[_Scalar]) -> List[ConfigFinding]:
    models = [s for s in scalars if s.key in MODEL_KEYS and isinstance(s.value, str) and RESNET50.match(s.value)]
    if not models or any(_loads_weights(s) for s in scalars):
        return []
    findings = []
    for scalar in scalars:
        if scalar.key in CLASS_COUNT_KEYS and scalar.value == 1000 and type(scalar.value) is int:
            message = (
                f"ResNet-50 ({models[0].key}: {models[0].text} at line {models[0].line}) is configured with "
                f"{scalar.key}: 1000; use 1001: MindSpore's ResNet-50 on Ascend is tuned for 1001 classes"
            )
            edit = TextEdit(scalar.line, scalar.column, scalar.text, scalar.text.replace("1000", "1001"))
            findings.append(ConfigFinding("MSP104", message, scalar.line, scalar.column, edit, "unsafe",
                                          scalar.end_line, scalar.end_column))
    return findings


def _loads_weights(scalar: _Scalar) -> bool:
    if not PRETRAINED_KEYS.search(scalar.key):
        return False
    value = scalar.value
    return value is True or (isinstance(value, str) and value.strip() not in ("", "False", "false"))


def _checkpoint_monitor_findings(mapping: Sequence[_Scalar]) -> List[ConfigFinding]:
    kind = next((s for s in mapping if s.key == "type" and s.value == CHECKPOINT_MONITOR), None)
    if kind is None:
        return []
    flag = next((s for s in mapping if s.key == "async_save"), None)
    if flag is None:
        insert = None
        if kind.end_line == kind.line and not kind.flow:
            line_text = " " * kind.key_column + "async_save: True\n"
            insert = TextEdit(kind.line + 1, 0, "", line_text)
        message = "CheckpointMonitor saves checkpoints synchronously, stalling training; add async_save: True"
        return [ConfigFinding("MSP103", message, kind.line, kind.column, insert, "safe" if insert else None,
                              kind.end_line, kind.end_column)]
    if flag.value is False:
        message = "CheckpointMonitor saves checkpoints synchronously (async_save: False); use async_save: True"
        single_line = flag.end_line == flag.line and flag.text in ("False", "false", "FALSE", "no", "No", "off", "Off")
        edit = TextEdit(flag.line, flag.column, flag.text, "True") if single_line else None
        return [ConfigFinding("MSP103", message, flag.line, flag.column, edit, "unsafe" if edit else None,
                              flag.end_line, flag.end_column)]
    return []


# --- shell launch scripts ------------------------------------------------------

_PYTHON_COMMAND = re.compile(r"(^|[\s;&|(])(python[0-9.]*|torchrun|msrun|mpirun)\b")


def scan_shell(text: str) -> List[ConfigEntry]:
    """``--amp_level O2`` style arguments of the Python commands in a launch script.

    Each entry's ``owner`` is ``shell:<script>.py``, the file name of the Python
    script the command runs, so the value is matched to that program only.
    Values that are shell variables (``$AMP_LEVEL``) are not literal and skipped.
    """
    entries: List[ConfigEntry] = []
    for line_number, command in _commands(text):
        if not _PYTHON_COMMAND.search(command):
            continue
        entries.extend(_command_arguments(command, line_number))
    return entries


def _commands(text: str) -> Iterator[Tuple[int, str]]:
    """Logical lines (backslash continuations joined) with their first physical line number."""
    buffer: List[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if not buffer:
            start = number
        stripped = raw.rstrip()
        if stripped.endswith("\\"):
            buffer.append(stripped[:-1])
            continue
        buffer.append(raw)
        yield start, "\n".join(buffer)
        buffer = []
    if buffer:
        yield start, "\n".join(buffer)


def _command_arguments(command: str, first_line: int) -> List[ConfigEntry]:
    code = command
    try:
        words = shlex.split(code, comments=True, posix=True)
    except ValueError:
        return []
    script = next((w.rsplit("/", 1)[-1] for w in words if w.endswith(".py")), None)
    if script is None:
        return []
    entries = []
    for index, word in enumerate(words):
        if not word.startswith("--"):
            continue
        key, has_value, value = word[2:].partition("=")
        if not has_value:
            value = words[index + 1] if index + 1 < len(words) else ""
        key = key.replace("-", "_")
        if key not in CONFIG_KEYS or not value or "$" in value or value.startswith("-"):
            continue
        line, column = _locate(command, first_line, word if has_value else value, key)
        entries.append(ConfigEntry(line, column, owner=f"shell:{script}", key=key, value=_shell_value(value)))
    return entries


def _locate(command: str, first_line: int, needle: str, key: str) -> Tuple[int, int]:
    """Line and column of the value in the original text (after the ``--key``)."""
    for offset, physical in enumerate(command.split("\n")):
        flag = physical.find("--" + key)
        if flag < 0:
            flag = physical.find("--" + key.replace("_", "-"))
        if flag >= 0:
            found = physical.find(needle.split("=", 1)[-1], flag)
            return first_line + offset, max(found, flag)
    return first_line, 0


def _shell_value(value: str) -> Any:
    if value in ("True", "true"):
        return True
    if value in ("False", "false"):
        return False
    return int(value) if value.isdigit() else value


# --- applying findings ------------------------------------------------------


def is_suppressed(lines: Sequence[str], finding: ConfigFinding) -> bool:
    """``# noqa`` / ``# noqa: MSP104`` at the end of the finding's line, as in Python files."""
    text = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    match = NOQA_INLINE.search(text)
    if match is None:
        return False
    codes = match.group("codes")
    if not codes:
        return True
    return any(finding.code.startswith(code.upper()) for code in re.split(r"[,\s]+", codes.strip()) if code)


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """Apply non-overlapping edits; an edit whose ``old`` text is not where expected is skipped."""
    lines = text.splitlines(keepends=True)
    for edit in sorted(edits, key=lambda e: (e.line, e.column), reverse=True):
        index = edit.line - 1
        if edit.old == "":
            if 0 <= index <= len(lines):
                if index > 0 and not lines[index - 1].endswith(("\n", "\r")):
                    lines[index - 1] += _newline(text)
                lines.insert(index, edit.new.replace("\n", _newline(text)))
            continue
        if not 0 <= index < len(lines):
            continue
        line = lines[index]
        if line[edit.column : edit.column + len(edit.old)] != edit.old:
            continue
        lines[index] = line[: edit.column] + edit.new + line[edit.column + len(edit.old) :]
    return "".join(lines)


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"
