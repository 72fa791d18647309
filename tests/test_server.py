"""``ms-perflint server`` driven by a real LSP client process pair: pygls' LanguageClient starts the server as
its own process and speaks JSON-RPC to it over standard input and output, as an editor does."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Dict, List, Optional

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from tests.conftest import REPO

NET = """\
import mindspore.nn as nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(2048, 2048)
        self.fc2 = nn.Dense(2048, 10)

    def construct(self, x):
        return self.fc2(self.fc1(x))
"""
TRAIN = """\
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
import mindspore as ms
from net import Net
ms.set_context(mode=ms.GRAPH_MODE)
if __name__ == "__main__":
    config = CheckpointConfig(save_checkpoint_steps=100)
    Model(Net(), loss_fn=None, optimizer=None, amp_level="O2").train(10, data, callbacks=[ModelCheckpoint(config=config)],
                                                                      dataset_sink_mode=True)
"""
TIMEOUT = 60


class Editor:
    """A language client that records the diagnostics the server publishes."""

    def __init__(self) -> None:
        self.client = LanguageClient("test-editor", "1")
        self.diagnostics: Dict[str, List[types.Diagnostic]] = {}
        #: The document version each uri's latest diagnostics say they were computed for.
        self.versions: Dict[str, Optional[int]] = {}
        self.published = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = params.diagnostics
            self.versions[params.uri] = params.version
            self.published.set()

    async def start(self, root: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        await self.client.start_io(sys.executable, "-m", "ms_perflint", "server", cwd=str(root), env=env)
        await asyncio.wait_for(self.client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(root)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)), name="project")])), TIMEOUT)
        self.client.initialized(types.InitializedParams())

    async def open(self, path: Path, text: str, version: int = 1) -> List[types.Diagnostic]:
        self.published.clear()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
            uri=from_fs_path(str(path)), language_id="python", version=version, text=text)))
        await asyncio.wait_for(self.published.wait(), TIMEOUT)
        return self.diagnostics[from_fs_path(str(path))]

    async def change(self, path: Path, text: str, version: int) -> List[types.Diagnostic]:
        self.published.clear()
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=from_fs_path(str(path)), version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        await asyncio.wait_for(self.published.wait(), TIMEOUT)
        return self.diagnostics[from_fs_path(str(path))]

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), TIMEOUT)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "net.py").write_text(NET)
    (tmp_path / "train.py").write_text(TRAIN)
    return tmp_path


def test_diagnostics_code_actions_and_hover_over_lsp(project: Path):
    async def session() -> None:
        editor = Editor()
        await editor.start(project)
        try:
            train = project / "train.py"
            found = await editor.open(train, TRAIN)
            assert [(d.code, d.range.start.line, d.range.start.character) for d in found] == [("MSP103", 5, 13)]
            assert found[0].source == "ms-perflint" and "async_save" in found[0].message

            uri = from_fs_path(str(train))
            actions = await asyncio.wait_for(editor.client.text_document_code_action_async(types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=found[0].range,
                context=types.CodeActionContext(diagnostics=found))), TIMEOUT)
            titles = [a.title for a in actions]
            assert titles == ["MSP103: Save checkpoints asynchronously (async_save=True)",
                              "MSP103: suppress on this line (# noqa: MSP103)"]
            fix = actions[0].edit.changes[uri]
            assert [(e.range.start.line, e.range.start.character, e.new_text) for e in fix] == [
                (5, 55, ", async_save=True")]
            assert actions[0].is_preferred
            noqa = actions[1].edit.changes[uri][0]
            assert noqa.new_text.endswith("  # noqa: MSP103")

            hover = await asyncio.wait_for(editor.client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(5, 20))), TIMEOUT)
            assert hover is not None and hover.contents.value.startswith("# MSP103 sync-checkpoint-save")

            # The unsaved buffer is what is checked, with the rest of the project as it is on disk.
            fixed = TRAIN.replace("steps=100)", "steps=100, async_save=True)")
            assert list(await editor.change(train, fixed, 2)) == []
            assert (project / "train.py").read_text() == TRAIN  # the server never writes files
        finally:
            await editor.stop()

    asyncio.run(session())


def test_the_network_file_is_checked_with_its_project(project: Path):
    """net.py alone trains nothing; with train.py's program its findings are the project's (none here: O2)."""
    async def session() -> None:
        editor = Editor()
        await editor.start(project)
        try:
            assert list(await editor.open(project / "net.py", NET)) == []
            without_amp = TRAIN.replace(', amp_level="O2"', "")
            (project / "train.py").write_text(without_amp)
            found = await editor.open(project / "train.py", without_amp)
            assert sorted(d.code for d in found) == ["MSP101", "MSP103"]
        finally:
            await editor.stop()

    asyncio.run(session())


def test_without_pygls_the_server_command_says_how_to_install_it(tmp_path: Path):
    import subprocess

    blocker = tmp_path / "pygls"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('pygls is not installed')\n")
    completed = subprocess.run([sys.executable, "-m", "ms_perflint", "server"], cwd=tmp_path, capture_output=True,
                               text=True, env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{REPO}"},
                               timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert completed.returncode == 2
    assert "pip install 'ms-perflint[server]'" in completed.stderr


def test_diagnostics_carry_the_version_they_were_computed_for_and_a_syntax_error_its_code(project: Path):
    """An editor drops diagnostics of a version it has moved past; a syntax error is coded as the CLI codes it
    (``bad.py:2:5: SyntaxError: ...``, ``[SyntaxError]`` in pylint's format, the check name in GitLab's)."""
    async def session() -> None:
        editor = Editor()
        await editor.start(project)
        try:
            train = project / "train.py"
            uri = from_fs_path(str(train))
            assert [d.code for d in await editor.open(train, TRAIN, version=7)] == ["MSP103"]
            assert editor.versions[uri] == 7
            [error] = await editor.change(train, "import mindspore\nx = (\n", 8)
            assert editor.versions[uri] == 8
            assert (error.code, error.severity, error.range.start.line) == ("SyntaxError", types.DiagnosticSeverity.Error, 1)
            assert error.message == "'(' was never closed"
            await editor.change(train, TRAIN, 9)
            assert editor.versions[uri] == 9
        finally:
            await editor.stop()

    asyncio.run(session())


def test_a_workspace_without_a_project_marker_is_the_project(tmp_path: Path):
    """The workspace is the working folder (docs/project.md): net.py is checked with train.py's program."""
    (tmp_path / "net.py").write_text(NET)
    (tmp_path / "train.py").write_text(TRAIN.replace(', amp_level="O2"', ""))

    async def session() -> None:
        editor = Editor()
        await editor.start(tmp_path)
        try:
            found = await editor.open(tmp_path / "train.py", (tmp_path / "train.py").read_text())
            assert sorted(d.code for d in found) == ["MSP101", "MSP103"]  # MSP101 needs net.py's layers
        finally:
            await editor.stop()

    asyncio.run(session())
