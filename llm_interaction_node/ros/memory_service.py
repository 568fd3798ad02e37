"""The interaction node's ManageMemory service: the memory commands over ROS.

The commands and their checks are :mod:`..core.memory.commands` (the same as
``llm-interaction memory``'s); this module maps the service's command names onto them, gives
the results as JSON and keeps exports inside one directory (any peer on the ROS domain can
call the service).
"""
from __future__ import annotations

import json
from pathlib import Path

from llm_interaction_interfaces.srv import ManageMemory

from ..core.memory import commands


class MemoryService:
    """The ManageMemory callback over the session's memory (``None``: the node runs without
    one); exports go to ``export_dir``. A bad request gets an answer, not a crash."""

    def __init__(self, memory, export_dir: Path):
        self.memory = memory
        self.export_dir = export_dir

    def __call__(self, request, response):
        try:
            result = memory_command(self.memory, request.command, request.argument,
                                    export_dir=self.export_dir)
            response.success, response.message = True, "ok"
            response.result_json = json.dumps(result, default=str)
        except Exception as exc:  # noqa: BLE001 - a bad request gets an answer, not a crash
            response.success, response.message = False, error_text(exc)
            response.result_json = "null"
        return response


def export_directory(configured: str, memory_path: str) -> Path:
    """Where memory exports go: ``configured`` (the node's ``export_dir``), by default
    ``<memory.path>/exports``."""
    return Path(configured or Path(memory_path) / "exports").expanduser()


def error_text(exc: BaseException) -> str:
    """An exception as a message: a KeyError's text without the quotes str() adds."""
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        return exc.args[0]
    return str(exc)


def export_path(directory: Path, name: str) -> Path:
    """The file an export named ``name`` goes to: inside ``directory`` only. Any peer on the
    ROS domain can call the memory service, so a name with a path separator or '..' (or one
    resolving elsewhere through a link) is refused."""
    if not name or any(sep in name for sep in ("/", "\\", "\x00")) or ".." in name \
            or name.startswith("~"):
        raise ValueError(f"export name {name!r} refused: give a plain file name (no path "
                         f"separators, no '..'); exports go to {directory}")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    if path.resolve().parent != directory.resolve():
        raise ValueError(f"export name {name!r} refused: it leads out of {directory}")
    return path


def memory_command(memory, command: str, argument: str, export_dir: Path | None = None):
    """The ManageMemory service's commands over an ExampleMemory (exports: a file name in
    ``export_dir``), as results for JSON; the commands are :mod:`..core.memory.commands`
    (the same as ``llm-interaction memory``'s)."""
    if memory is None:
        raise RuntimeError("this node runs without a memory (memory.enabled is false)")
    if command == ManageMemory.Request.COMMAND_COUNT:
        return memory.count()
    if command == ManageMemory.Request.COMMAND_LIST:
        return [_summary(e) for e in commands.list_examples(memory, argument or None)]
    if command == ManageMemory.Request.COMMAND_SHOW:
        return commands.show(memory, argument).to_dict()
    if command == ManageMemory.Request.COMMAND_SEARCH:
        return [{**_summary(e), "score": round(float(s), 4)}
                for e, s in commands.search(memory, [argument])]
    if command == ManageMemory.Request.COMMAND_DELETE:
        return {"deleted": commands.delete(memory, [argument])}
    if command == ManageMemory.Request.COMMAND_FORGET:
        return {"removed": [_summary(e) for e in commands.forget(memory, argument)]}
    if command == ManageMemory.Request.COMMAND_EXPORT:
        if export_dir is None:
            raise ValueError("exports are off: no export directory")
        path = export_path(Path(export_dir), argument)
        return {"exported": commands.export(memory, path), "path": str(path)}
    raise ValueError(f"unknown command {command!r}; use count, list, show, search, delete, "
                     "forget or export")


def _summary(example) -> dict:
    return {"id": example.id, "source": example.source, "origin": example.origin,
            "utterances": list(example.utterances), "robot": example.robot,
            "world": example.world}
