"""Facts of config files: YAML configs and shell launch scripts.

Real projects keep the decisions the rules care about outside Python code:
``amp_level: O2`` and ``num_classes: 1000`` in a YAML file (mindcv, the model zoo's
``*_config.yaml``, mindformers), ``--amp_level O2`` in ``scripts/run_train.sh``. A
YAML file becomes a list of mappings with their scalar entries as
:class:`~ms_perflint.analysis.facts.Value` s (with offsets, so that a fix can edit
one scalar and leave every other byte alone); a launch script becomes the
``--key value`` arguments of the Python commands it runs and the variables it exports.

Each YAML node is read once: an alias (``*defaults``) names the node its anchor
defined, and is not walked again, so a small file of nested aliases ("billion
laughs") costs what its text costs.
"""

from __future__ import annotations

import re
import shlex
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

from ms_perflint.analysis.facts import LIT, UNKNOWN, ConfigEntry, ShellFacts, Value, YamlFacts, YamlMapping
from ms_perflint.findings import LineIndex

YAML_SUFFIXES = (".yaml", ".yml")
SHELL_SUFFIXES = (".sh",)
#: Longest scalar text kept (a long string is not a setting the rules read).
TEXT_LIMIT = 200


def extract_yaml(text: str) -> YamlFacts:
    """The mappings of the first document of ``text`` (model-zoo configs follow their values with a document of help
    texts and one of choices, under the same keys: ``save_checkpoint_steps: "Save checkpoint steps, default is
    1000."`` is not a value); invalid YAML comes back as ``error``."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        documents = [d for d in yaml.compose_all(text, Loader=loader) if d is not None][:1]
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        return YamlFacts(error=f"invalid YAML: {message}", error_line=(mark.line + 1) if mark is not None else 1)
    except RecursionError:
        return YamlFacts(error="invalid YAML: nested too deeply")
    facts = YamlFacts()
    index = LineIndex(text)
    seen: Set[int] = set()
    try:
        for document in documents:
            for mapping in _mappings(document, (), seen, text, index):
                mapping.id = len(facts.mappings)
                facts.mappings.append(mapping)
    except RecursionError:
        return YamlFacts(error="invalid YAML: nested too deeply")
    return facts


def _mappings(node: Any, path: Tuple[str, ...], seen: Set[int], text: str, index: LineIndex) -> Iterator[YamlMapping]:
    import yaml

    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        mapping = YamlMapping(0, path, line=node.start_mark.line + 1)
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode):
                mapping.entries.setdefault(str(key.value), _scalar(value, text, index))
            elif isinstance(key, yaml.ScalarNode) and _scalars(value):
                mapping.entries.setdefault(str(key.value), _sequence(value, text))
        mapping.insert = _insertion(node, text, index)
        yield mapping
        for key, value in node.value:
            name = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
            yield from _mappings(value, (*path, name), seen, text, index)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _mappings(item, (*path, "-"), seen, text, index)


def _scalar(node: Any, text: str, index: LineIndex) -> Value:
    start, end = node.start_mark.index, node.end_mark.index
    line, column = node.start_mark.line + 1, node.start_mark.column
    raw = text[start:end] if 0 <= start <= end <= len(text) else str(node.value)
    return Value(LIT, _typed(node), text=raw[:TEXT_LIMIT], line=line, column=column, start=start, end=end)


#: Most scalars a sequence kept as a value may hold (``layer_nums: [3, 4, 6, 3]``, or a table of them, one row per
#: model size); a longer one is data, not a setting.
SEQUENCE_LIMIT = 64


def _scalars(node: Any) -> bool:
    """A short sequence of scalars, or of sequences of scalars (a table): a value the code indexes
    (``config.layer_nums[0]``, ``config.input_shape[version][1]``)."""
    import yaml

    if not isinstance(node, yaml.SequenceNode) or not node.value:
        return False
    if all(isinstance(item, yaml.ScalarNode) for item in node.value):
        return len(node.value) <= SEQUENCE_LIMIT
    rows = node.value
    return all(isinstance(row, yaml.SequenceNode) and row.value and all(isinstance(item, yaml.ScalarNode)
                                                                        for item in row.value) for row in rows) \
        and sum(len(row.value) for row in rows) <= SEQUENCE_LIMIT


def _sequence(node: Any, text: str) -> Value:
    """A sequence of scalars (or a table of them) as one literal tuple, written where the sequence is (not edited by
    any fix)."""
    start, end = node.start_mark.index, node.end_mark.index
    raw = text[start:end] if 0 <= start <= end <= len(text) else ""
    return Value(LIT, _tupled(node), text=raw[:TEXT_LIMIT],
                 line=node.start_mark.line + 1, column=node.start_mark.column, start=start, end=end)


def _tupled(node: Any) -> Any:
    return tuple(_tupled(item) for item in node.value) if isinstance(node.value, list) else _typed(node)


def _typed(node: Any) -> Any:
    """A scalar's Python value under YAML 1.1's core tags, as PyYAML's safe loader reads it."""
    tag = node.tag.rsplit(":", 1)[-1]
    value = node.value
    if tag == "bool":
        return value.lower() in ("yes", "true", "on", "y")
    if tag == "int":
        try:
            return int(value.replace("_", ""), 0)
        except ValueError:
            return value
    if tag == "float":
        try:
            return float(value.replace("_", ""))
        except ValueError:
            return value
    if tag == "null":
        return None
    return value if len(value) <= TEXT_LIMIT else value[:TEXT_LIMIT]


def _insertion(node: Any, text: str, index: LineIndex) -> Optional[Tuple[int, str, str]]:
    """Where a ``key: value`` line can go in a block mapping: after its first one-line scalar entry."""
    import yaml

    if node.flow_style:
        return None
    for key, value in node.value:
        if not (isinstance(key, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode)):
            continue
        if key.start_mark.line != value.end_mark.line or value.style in ("|", ">"):
            continue
        line = value.end_mark.line + 1  # the line after the entry (1-based: its index is ``line``)
        offset = index.starts[line] if line < len(index.starts) else len(text)
        prefix = "" if offset == 0 or text[offset - 1] in "\r\n" else _newline(text)
        return offset, prefix + " " * key.start_mark.column, _newline(text)
    return None


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


# --- shell launch scripts ------------------------------------------------------------

_PYTHON_COMMAND = re.compile(r"(^|[\s;&|(])(python[0-9.]*|torchrun|msrun|mpirun)\b")
_EXPORT = re.compile(r"^\s*(?:export\s+)([A-Za-z_][A-Za-z0-9_]*)=(\S*)")
#: ``RANK_SIZE=8`` (also exported): a shell variable a later ``--device_num=$RANK_SIZE`` reads.
_VARIABLE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)\s*$")
#: ``$NAME`` or ``${NAME}`` standing alone as an argument's value.
_REFERENCE = re.compile(r"^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$")


def extract_shell(text: str) -> ShellFacts:
    """``--key value`` arguments of the Python commands in a launch script, and ``export NAME=value`` lines.

    Argument entries are owned by ``shell:<script>.py`` (the file name of the Python
    script the command runs), so a value is matched to that program only. Values that
    are shell variables (``--device_num=$RANK_SIZE``) are recorded as unknown: that run
    sets the key, to a value the launch decides.
    """
    facts = ShellFacts()
    index = LineIndex(text)
    variables: Dict[str, Value] = {}
    for line_number, command in _commands(text):
        _note_variable(command, line_number, index, variables)
        exported = _EXPORT.match(command)
        if exported and "$" not in exported.group(2):
            column = command.find("=") + 1
            value = _shell_value(exported.group(2).strip("'\""), line_number, column, index)
            facts.entries.append(ConfigEntry(exported.group(1), value, "env"))
            continue
        if _PYTHON_COMMAND.search(command):
            facts.entries.extend(_command_arguments(command, line_number, index, facts.scripts, variables))
    return facts


def _note_variable(command: str, line: int, index: LineIndex, variables: Dict[str, Value]) -> None:
    """``NAME=value`` with a literal value: what ``$NAME`` stands for in the commands after it (a value that is
    itself a variable or a command's output, ``RANK_SIZE=$1``, makes the name unknown)."""
    assigned = _VARIABLE.match(command)
    if assigned is None:
        return
    name, raw = assigned.group(1), assigned.group(2)
    if "$" in raw or "`" in raw or not raw:
        variables.pop(name, None)
        return
    literal = raw.strip("'\"")
    column = command.find("=") + 1 + (1 if raw[:1] in "'\"" else 0)
    variables[name] = _shell_value(literal, line, column, index)


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


def _command_arguments(command: str, first_line: int, index: LineIndex, scripts: List[str],
                       variables: Dict[str, Value]) -> List[ConfigEntry]:
    try:
        words = shlex.split(command, comments=True, posix=True)
    except ValueError:
        return []
    script = next((w.rsplit("/", 1)[-1] for w in words if w.endswith(".py")), None)
    if script is None:
        return []
    if script not in scripts:
        scripts.append(script)
    entries = []
    for position, word in enumerate(words):
        if not word.startswith("--") or len(word) < 3:
            continue
        key, has_value, value = word[2:].partition("=")
        if not has_value:
            value = words[position + 1] if position + 1 < len(words) else ""
        if not value or value.startswith("-"):
            continue
        line, column = _locate(command, first_line, value, key)
        written = _shell_value(value, line, column, index)
        if "$" in value:
            reference = _REFERENCE.match(value)
            known = variables.get(reference.group(1) or reference.group(2)) if reference else None
            # ``--device_num=$RANK_SIZE``: the variable's literal where the script sets it, else a value the run
            # passes and the launch decides.
            written = known if known is not None else Value(
                UNKNOWN, text=value, line=written.line, column=written.column, start=written.start, end=written.end)
        entries.append(ConfigEntry(key.replace("-", "_"), written, f"shell:{script}", run=first_line))
    return entries


def _locate(command: str, first_line: int, value: str, key: str) -> Tuple[int, int]:
    """Line and column of ``value`` after ``--key`` in the original text."""
    for offset, physical in enumerate(command.split("\n")):
        flag = physical.find("--" + key)
        if flag >= 0:
            found = physical.find(value, flag + len(key) + 2)
            return first_line + offset, found if found >= 0 else flag
    return first_line, 0


def _shell_value(text: str, line: int, column: int, index: LineIndex) -> Value:
    value: Any = text
    if text in ("True", "true"):
        value = True
    elif text in ("False", "false"):
        value = False
    elif text.isdigit():
        value = int(text)
    start = index.offset(line, column)
    return Value(LIT, value, text=text, line=line, column=column, start=start, end=start + len(text))


def config_kind(name: str) -> Optional[str]:
    """``yaml`` or ``shell`` for a config file name, else None."""
    lowered = name.lower()
    if lowered.endswith(YAML_SUFFIXES):
        return "yaml"
    if lowered.endswith(SHELL_SUFFIXES):
        return "shell"
    return None


def entries_by_key(facts: YamlFacts) -> Dict[str, List[Tuple[YamlMapping, Value]]]:
    """Every scalar entry of a YAML file grouped by key."""
    grouped: Dict[str, List[Tuple[YamlMapping, Value]]] = {}
    for mapping, key, value in facts.entries():
        grouped.setdefault(key, []).append((mapping, value))
    return grouped
