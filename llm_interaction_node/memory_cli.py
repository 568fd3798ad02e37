"""``llm-interaction memory``: look into and edit the example memory.

  list [--source S]            one line per example: id, source, created, first utterance
  show ID                      all fields and the transcript
  search TEXT... [-k K]        the examples retrieve() would put into the prompt for these
                               utterances (oldest first, newest last), most similar LAST
  delete ID... | --learned-about TOPIC [--include-seed] [--threshold T]
  export FILE                  readable YAML (transcripts as block scalars)
  import FILE                  add the examples of an exported file (ids already present are \
skipped)
  reset --yes                  empty the store of this API set
  seed [DIR]                   add the example transcripts of DIR not stored yet
                               (default config/transcripts/<api>)

The store is the one of the agent settings' ``memory:`` section (``--config``, default
config/agent.yaml); --path, or --host/--port for a shared Chroma server, override it. As
everywhere (chat, the interaction node), opening the store adds the seed examples of
config/transcripts/<api> it lacks, so a fresh store is seeded (reset empties it until the
next command or chat).
Also runs standalone: ``python -m llm_interaction_node.memory_cli list``. The commands
themselves (their checks) are :mod:`.core.memory.commands`, shared with the interaction
node's memory service; this module parses and prints.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from .core.apis.sets import API_NAMES, api_set
from .core.memory import commands
from .core.memory.records import SOURCES


class UserError(Exception):
    """A mistake on the command line: printed without a traceback, exit code 2."""


def _add_store_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("store")
    # SUPPRESS: accepted before and after the subcommand without overwriting each other
    group.add_argument("--api", choices=API_NAMES, default=argparse.SUPPRESS,
                       help="API set (default humanoid)")
    group.add_argument(
        "--config",
        default=argparse.SUPPRESS,
        help="agent settings YAML with a 'memory:' section (default config/agent.yaml)",
    )
    group.add_argument("--path", default=argparse.SUPPRESS, help="local store directory")
    group.add_argument("--host", default=argparse.SUPPRESS, help="Chroma server host")
    group.add_argument("--port", type=int, default=argparse.SUPPRESS, help="Chroma server port")


def _populate(parser: argparse.ArgumentParser) -> None:
    _add_store_options(parser)
    sub = parser.add_subparsers(dest="memory_command", required=True, metavar="COMMAND")

    def add(name: str, help_text: str, func) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _add_store_options(p)
        p.set_defaults(memory_func=func)
        return p

    p = add("list", "list the stored examples", cmd_list)
    p.add_argument("--source", choices=SOURCES, help="only examples of this source")
    p = add("show", "show one example", cmd_show)
    p.add_argument("id")
    p = add("search", "the examples retrieved for some utterances, most similar last", cmd_search)
    p.add_argument("text", nargs="+", help="user utterances, oldest first (newest last)")
    p.add_argument("-k", type=int, default=None, help="how many (default: the configured k)")
    p.add_argument("--brief", action="store_true", help="one line per example, no transcripts")
    p = add("delete", "delete examples by id, or the learned ones about a topic", cmd_delete)
    p.add_argument("ids", nargs="*", metavar="ID")
    p.add_argument("--learned-about", metavar="TOPIC",
                   help="delete the learned/raw/episode examples about TOPIC")
    p.add_argument("--include-seed", action="store_true",
                   help="with --learned-about: seed examples too")
    p.add_argument("--threshold", type=float, default=0.5,
                   help="with --learned-about: minimum similarity (default 0.5)")
    p = add("export", "write all examples to a YAML file", cmd_export)
    p.add_argument("file")
    p = add("import", "add the examples of a YAML file (skips ids already present)", cmd_import)
    p.add_argument("file")
    p = add("reset", "delete ALL examples of this API set", cmd_reset)
    p.add_argument("--yes", action="store_true", help="really do it")
    p = add("seed", "add the predefined example transcripts not stored yet", cmd_seed)
    p.add_argument(
        "dir", nargs="?", help="folder of *.txt transcripts (default config/transcripts/<api>)"
    )
    parser.set_defaults(func=run)


def add_memory_parser(subparsers) -> None:
    """Add the ``memory`` subcommand to ``llm-interaction``'s subparsers."""
    parser = subparsers.add_parser("memory", help="inspect and edit the example memory",
                                   description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    _populate(parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llm-interaction memory", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    _populate(parser)
    return parser


# ------------------------------------------------------------------------------ helpers
def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _api(args: argparse.Namespace):
    return api_set(getattr(args, "api", "humanoid"))


def memory_settings(args: argparse.Namespace):
    """The ``memory`` settings (``--config``, default config/agent.yaml), overridden by
    --path/--host/--port; --path alone means a local store."""
    from .settings import load_settings

    try:
        settings = load_settings(getattr(args, "config", None), overrides={
            f"memory.{name}": getattr(args, name, None) for name in ("path", "host", "port")})
        if hasattr(args, "path") and not hasattr(args, "host"):
            settings.memory.host = None
    except (TypeError, ValueError) as exc:
        raise UserError(f"bad settings: {exc}") from exc
    return settings.memory


def store_of(args: argparse.Namespace, seed: bool = True):
    """The store the command line names, opened by :func:`~.session.open_memory` (seeded
    like every store the agent opens, unless ``seed`` is False)."""
    from .session import open_memory

    return open_memory(_api(args), memory_settings(args), seed=seed)


def _when(created: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(created)) if created else "-"


def _first_utterance(example) -> str:
    text = (example.utterances or example.keys or ("",))[0]
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."


# ------------------------------------------------------------------------------ commands
def cmd_list(args: argparse.Namespace) -> int:
    memory = store_of(args)
    examples = commands.list_examples(memory, args.source)
    for ex in examples:
        print(f"{ex.id}  {ex.source:<8} {_when(ex.created)}  {_first_utterance(ex)}")
    _stderr(f"{len(examples)} example(s) in {memory.name} at {memory.location}")
    return 0


def format_example(example) -> str:
    lines = [f"id:          {example.id}", f"source:      {example.source}",
             f"origin:      {example.origin or '-'}", f"created:     {_when(example.created)}"]
    if example.problem is not None:
        lines.append(f"problem:     {example.problem}")
    if example.improvement is not None:
        lines.append(f"improvement: {example.improvement}")
    if example.edit is not None:
        lines += habit_lines(example.edit)
    if example.robot or example.world:      # a lesson of a fleet (core/memory/fleet.py)
        lines.append(f"taught by:   {example.robot or '-'} in {example.world or '-'}")
    if example.needs:
        lines.append("needs:       " + ", ".join(example.needs))
    lines.append("utterances:  " + (" | ".join(example.utterances) or "-"))
    if tuple(example.keys) != tuple(example.utterances):
        lines.append("indexed by:  " + " | ".join(example.keys))
    lines += ["transcript:", example.transcript]
    return "\n".join(lines)


def habit_lines(edit_json: str) -> list[str]:
    """A habit's edit and condition in words (core/reading/edit.py)."""
    from .core.reading.edit import Edit
    try:
        edit = Edit.from_json(edit_json)
    except (ValueError, TypeError, KeyError) as exc:
        return [f"habit:       (unreadable edit: {exc})"]
    when = edit.when
    return [f"habit:       {edit.in_words()}",
            f"edit:        {edit.op} at {when.skill}, thing {when.thing}"
            + (f", place {when.place}" if when.place else "")
            + (f", {edit.argument}={edit.value!r}" if edit.argument else "")
            + (f": {'; '.join(edit.statements)}" if edit.statements else ""),
            f"taught as:   {edit.said!r}"]


def cmd_show(args: argparse.Namespace) -> int:
    print(format_example(commands.show(store_of(args), args.id)))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    if args.k is not None and args.k < 0:
        raise UserError("-k must be >= 0")
    results = commands.search(store_of(args), args.text, args.k)
    for n, (ex, score) in enumerate(results, 1):
        head = (
            f"# {n}/{len(results)}  score {score:.4f}  {ex.id}  {ex.source}  {ex.origin}".rstrip()
        )
        if args.brief:
            print(f"{score:.4f}  {ex.id}  {ex.source:<8} {_first_utterance(ex)}")
        else:
            print(f"{head}\n{ex.transcript}\n")
    _stderr(f"{len(results)} example(s), most similar last")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    if bool(args.ids) == bool(args.learned_about):
        raise UserError("give example ids or --learned-about TOPIC (not both)")
    if args.include_seed and not args.learned_about:
        raise UserError("--include-seed only goes with --learned-about")
    memory = store_of(args)
    if args.learned_about:
        removed = commands.forget(memory, args.learned_about, threshold=args.threshold,
                                  include_seed=args.include_seed)
        for ex in removed:
            print(f"deleted {ex.id}  {ex.source:<8} {_first_utterance(ex)}")
        _stderr(f"deleted {len(removed)} example(s) about {args.learned_about!r}")
        return 0
    n = commands.delete(memory, args.ids)
    print(f"deleted {n} example(s)")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    n = commands.export(store_of(args), args.file)
    print(f"exported {n} example(s) to {args.file}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    if not Path(args.file).is_file():            # before the store is opened (and seeded)
        raise UserError(f"no such file: {args.file}")
    n = commands.import_file(store_of(args), args.file)
    print(f"imported {n} example(s) from {args.file}")
    return 0


def cmd_reset(args: argparse.Namespace) -> int:
    if not args.yes:
        raise UserError("reset deletes ALL examples of this API set; add --yes to confirm")
    memory = store_of(args, seed=False)
    n = commands.reset(memory)
    print(f"removed {n} example(s) from {memory.name}")
    return 0


def cmd_seed(args: argparse.Namespace) -> int:
    directory = Path(args.dir) if args.dir else _api(args).examples_dir
    if not directory.is_dir():                   # before the store is opened
        raise UserError(f"no transcript folder {directory}")
    memory = store_of(args, seed=False)
    n = commands.seed(memory, directory)
    print(
        f"added {n} seed example(s) from {directory} ({memory.count('seed')} seed example(s) "
        f"stored)"
    )
    return 0


def run(args: argparse.Namespace) -> int:
    """Run a parsed ``memory`` command; user mistakes print a message and return 2."""
    from .core.memory.connection import MemoryStoreError

    # no download progress bars / weight-loading chatter from the embedding model
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TQDM_DISABLE", "1")
    try:
        return args.memory_func(args)
    except KeyError as exc:
        _stderr(f"error: {exc.args[0] if exc.args else exc}")
    except (UserError, MemoryStoreError, ValueError, OSError) as exc:
        _stderr(f"error: {exc}")
    return 2


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
