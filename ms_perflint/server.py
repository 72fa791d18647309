"""``ms-perflint server``: a Language Server Protocol server for editors (pygls, the ``server`` extra).

It keeps one :class:`~ms_perflint.run.session.Session` for its whole life, so a project's
model stays warm between checks: opening or saving a file re-analyses only what changed.

- Diagnostics are published when a Python file or a YAML config is opened, changed or saved;
  the unsaved buffer is what is checked, with the rest of its project as it is on disk.
- Code actions: each finding's fix (unsafe ones say so and are never preferred), and a
  ``# noqa: CODE`` to suppress it on its line.
- Hover over a finding shows its rule's page, the text of ``--explain``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from ms_perflint import __version__
from ms_perflint.findings import Finding, FixSafety, TextEdit
from ms_perflint.run.session import Session, SessionOptions
from ms_perflint.sources import PYTHON, YAML, kind_of

SOURCE = "ms-perflint"
#: Kinds of file the server checks (notebooks are left to notebook-aware front ends).
CHECKED_KINDS = (PYTHON, YAML)


@dataclass
class Checked:
    """What the diagnostics of one document were computed from."""

    text: str
    findings: List[Finding]
    kind: str


class PerflintServer(LanguageServer):
    """The server: a session, and the last check of each open document."""

    def __init__(self) -> None:
        super().__init__(SOURCE, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.session = Session(SessionOptions(jobs=1))
        self.checked: Dict[str, Checked] = {}

    def start_session(self, root: Optional[str]) -> None:
        """Keep the project indexes where the CLI keeps them, at the workspace's root; the workspace is the working
        folder (a file with no project marker above it belongs to the workspace's project, as to the CLI's run there)."""
        cache = os.path.join(root, ".ms_perflint_cache") if root else None
        self.session = Session(SessionOptions(jobs=1, cache_folder=cache, working_folder=root))

    def check(self, uri: str, text: str, version: Optional[int]) -> None:
        """Check the document's text (an unsaved buffer counts) and publish its diagnostics, with the version of the
        document they were computed for (an editor drops diagnostics of a version it has moved past)."""
        path = to_fs_path(uri)
        kind = kind_of(path) if path else None
        if path is None or kind not in CHECKED_KINDS:
            return
        absolute = os.path.abspath(path)
        self.session.overlay[absolute] = text.encode("utf-8")
        try:
            result = self.session.check([absolute])[0]
        finally:
            del self.session.overlay[absolute]
        findings = [] if result.error is not None else list(result.findings)
        source_text = result.source.text if result.source is not None else text
        self.checked[uri] = Checked(source_text, findings, kind)
        diagnostics = [diagnostic(f, source_text) for f in findings]
        if result.error is not None:
            # The code is the error's kind (SyntaxError, DecodeError ...), as the CLI's reports name it.
            diagnostics.append(types.Diagnostic(
                range=types.Range(types.Position(max(result.error.line - 1, 0), 0),
                                  types.Position(max(result.error.line - 1, 0), 0)),
                message=result.error.message, source=SOURCE, code=result.error.kind,
                severity=types.DiagnosticSeverity.Error))
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics,
                                                                              version=version))


server = PerflintServer()


@server.feature(types.INITIALIZE)
def initialize(ls: PerflintServer, params: types.InitializeParams) -> None:
    root = None
    if params.workspace_folders:
        root = to_fs_path(params.workspace_folders[0].uri)
    elif params.root_uri:
        root = to_fs_path(params.root_uri)
    ls.start_session(root)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: PerflintServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.check(params.text_document.uri, params.text_document.text, params.text_document.version)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: PerflintServer, params: types.DidChangeTextDocumentParams) -> None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    ls.check(params.text_document.uri, document.source, params.text_document.version)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: PerflintServer, params: types.DidSaveTextDocumentParams) -> None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    ls.session.forget()  # the disk changed: configurations and other files may have too
    ls.check(params.text_document.uri, document.source, document.version)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: PerflintServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.checked.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_actions(ls: PerflintServer, params: types.CodeActionParams) -> List[types.CodeAction]:
    uri = params.text_document.uri
    checked = ls.checked.get(uri)
    document = ls.workspace.get_text_document(uri)
    if checked is None or document.source != checked.text:
        return []  # edited since the last check: offsets would land in the wrong place
    actions: List[types.CodeAction] = []
    for finding in checked.findings:
        where = finding_range(finding, checked.text)
        if not overlaps(where, params.range):
            continue
        matching = [diagnostic(finding, checked.text)]
        if finding.fix is not None:
            unsafe = finding.fix.safety is FixSafety.UNSAFE
            title = f"{finding.code}: {finding.fix.description}" + (" (unsafe: review the change)" if unsafe else "")
            actions.append(types.CodeAction(
                title=title, kind=types.CodeActionKind.QuickFix, diagnostics=matching, is_preferred=not unsafe,
                edit=workspace_edit(uri, checked.text, finding.fix.edits)))
        noqa = noqa_edit(checked, finding)
        if noqa is not None:
            actions.append(types.CodeAction(
                title=f"{finding.code}: suppress on this line (# noqa: {finding.code})",
                kind=types.CodeActionKind.QuickFix, diagnostics=matching,
                edit=workspace_edit(uri, checked.text, [noqa])))
    return actions


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: PerflintServer, params: types.HoverParams) -> Optional[types.Hover]:
    from ms_perflint.rules import RULES_BY_CODE
    from ms_perflint.rules.docs import render_rule

    checked = ls.checked.get(params.text_document.uri)
    if checked is None:
        return None
    point = types.Range(params.position, params.position)
    for finding in checked.findings:
        where = finding_range(finding, checked.text)
        if overlaps(where, point) and finding.code in RULES_BY_CODE:
            page = render_rule(RULES_BY_CODE[finding.code])
            return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=page), range=where)
    return None


# --- positions: ms-perflint's character offsets and LSP's UTF-16 positions -------------------------------


def position(text: str, offset: int) -> types.Position:
    """The LSP position (line, UTF-16 column) of a character offset."""
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return types.Position(line=line, character=len(text[start:offset].encode("utf-16-le")) // 2)


def finding_range(finding: Finding, text: str) -> types.Range:
    if finding.end > finding.start or finding.start:
        return types.Range(position(text, finding.start), position(text, max(finding.end, finding.start)))
    line = max(finding.line - 1, 0)
    return types.Range(types.Position(line, finding.column), types.Position(line, finding.column))


def diagnostic(finding: Finding, text: str) -> types.Diagnostic:
    return types.Diagnostic(range=finding_range(finding, text), message=finding.message, source=SOURCE,
                            code=finding.code, severity=types.DiagnosticSeverity.Warning)


def overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> Tuple[int, int]:
        return (p.line, p.character)
    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def workspace_edit(uri: str, text: str, edits: Sequence[TextEdit]) -> types.WorkspaceEdit:
    changes = [types.TextEdit(range=types.Range(position(text, e.start), position(text, e.end)), new_text=e.new)
               for e in edits]
    return types.WorkspaceEdit(changes={uri: changes})


def noqa_edit(checked: Checked, finding: Finding) -> Optional[TextEdit]:
    """The edit that adds (or extends) the ``# noqa`` comment of the finding's line, as one replacement."""
    from ms_perflint.fix.noqa import add_noqa_to_config_text, add_noqa_to_text

    add = add_noqa_to_config_text if checked.kind == YAML else add_noqa_to_text
    new = add(checked.text, [(finding.line, finding.code)]).text
    if new == checked.text:
        return None
    start = 0
    while start < min(len(new), len(checked.text)) and new[start] == checked.text[start]:
        start += 1
    end_old, end_new = len(checked.text), len(new)
    while end_old > start and end_new > start and checked.text[end_old - 1] == new[end_new - 1]:
        end_old, end_new = end_old - 1, end_new - 1
    return TextEdit(start, end_old, new[start:end_new])


def main() -> int:
    """Serve over standard input and output until the client says exit."""
    server.start_io()
    return 0
