"""``llm-interaction``: the command-line entry point.

Subcommands:
  replay FILE   run the statements of a console transcript against the in-process world
                (no LLM) and print the resulting transcript; --check compares outputs
  chat          talk to the agent in the terminal; the robot acts in the in-process world
  run           start the ROS 2 nodes (simulated household or a real robot) and a speech console
  eval          the paper's benchmark for one system (PyBullet tabletop, simulated user)
  eval-report   several evaluations side by side
  bag summary DIR  what a bag of `run --record DIR` holds, and its dialogue as text
"""
from __future__ import annotations

import argparse
import logging
import re
import sys
from pathlib import Path

from .core.agent import AgentConfig
from .core.transcript.transcript import Transcript
from .core.user.channel import CallbackUser
from .llm_options import add_llm_options, endpoint_line, llm_overrides
from .preset_option import add_api_preset_option, preset_overrides
from .replay import output_mismatches, replay_transcript
from .session import API_NAMES, api_set, build_session, make_world
from .settings import load_settings


def _add_world_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--api", choices=API_NAMES, default="humanoid", help="API set (default humanoid)"
    )
    p.add_argument("--world", help="humanoid: a world name in config/worlds or a YAML path; "
                   "tabletop: comma-separated object names (default: a random scene; replay: "
                   "the transcript's '# world:' line)")
    p.add_argument("--seed", type=int, default=0, help="seed of a random tabletop scene")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds a statement's own code may run (default: the setting "
                   f"agent.statement_timeout_s, {AgentConfig.statement_timeout_s:g})")
    add_api_preset_option(p)


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8")
        world = make_world(args.api, args.world or header_value(text, "world"), args.seed)
    except (OSError, ValueError) as exc:
        _stderr(f"error: {exc}")
        return 2
    recorded = Transcript.parse(text)
    if not recorded.entries:
        _stderr(f"error: {args.file} holds no console input (lines starting with '>>> ')")
        return 2
    agent = AgentConfig() if args.timeout is None else AgentConfig(statement_timeout_s=args.timeout)
    replayed = replay_transcript(args.api, world, recorded, agent,
                                 speak=lambda t: _stderr(f"[say] {t}"),
                                 api_options=api_set(args.api).options(args.api_preset or "ours"))
    print(replayed.render())
    if args.check:
        mismatches = output_mismatches(recorded.entries, replayed.entries)
        for n, want, got in mismatches:
            _stderr(f"mismatch at input {n}: {got.source.splitlines()[0]!r}\n"
                    f"  recorded: {want.output!r}\n  replayed: {got.output!r}")
        if mismatches:
            return 1
        _stderr(f"all {len(replayed)} outputs match the recording")
    return 0


def header_value(text: str, key: str) -> str | None:
    """``# key: value`` from the comment lines before a transcript's first prompt."""
    for line in text.splitlines():
        if line.startswith(">>>"):
            break
        match = re.match(rf"#\s*{re.escape(key)}\s*:\s*(.+?)\s*$", line)
        if match:
            return match.group(1)
    return None


def cmd_chat(args: argparse.Namespace) -> int:
    from .core.llm import LLMNotConfigured, make_client
    from .core.memory.connection import MemoryStoreError

    try:
        settings = load_settings(args.config, overrides={
            "agent.statement_timeout_s": args.timeout, "memory.path": args.memory_path,
            "memory.enabled": False if args.no_memory else None, **llm_overrides(args),
            **preset_overrides(args)})
        print(endpoint_line(settings.llm), flush=True)
        client = make_client(settings.llm)
        world = make_world(args.api, args.world, args.seed)
    except LLMNotConfigured as exc:
        _stderr(str(exc))
        return 2
    except (OSError, ValueError) as exc:
        _stderr(f"error: {exc}")
        return 2

    def listen(purpose, prompt):
        label = "you> " if purpose == "trigger" else "answer> "
        while True:
            try:
                line = input(label)
            except EOFError:
                return None
            if line.strip() in ("/quit", "/exit"):
                return None
            if line.strip() == "/tokens":
                print(_usage_line(session.ledger.total))
                continue
            if line.strip():
                return line

    if settings.memory.enabled:
        print("loading the example memory ...", flush=True)
    try:
        session = build_session(args.api, world, CallbackUser(listen), settings, llm=client,
                                speak=lambda t: print(f"robot says: {t}", flush=True),
                                examples_dir=args.examples,
                                listeners=[] if args.quiet else
                                [lambda e: print(e.render(), flush=True)])
    except (MemoryStoreError, OSError, ValueError) as exc:
        _stderr(f"error: {exc}")
        return 2
    show_progress(client, lambda line: print(f"({line})", flush=True))
    print(f"llm-interaction chat: {args.api} robot ({settings.robot_api.preset} API); "
          f"{client.describe()}; "
          f"memory: {session.memory_note}\nType a request; /tokens shows token use, "
          "/quit or Ctrl-D ends.", flush=True)
    try:
        session.agent.run()
    except KeyboardInterrupt:
        print()
    print(f"tokens used: {_usage_line(session.ledger.total)}")
    return 0


def show_progress(client, write) -> bool:
    """Long LLM calls tell the user how far they are (a line every few seconds, see
    ``core/llm/progress.py``), when the client can tell; True if it can."""
    from .core.llm.progress import ProgressReporter

    if not hasattr(client, "progress"):
        return False
    client.progress = ProgressReporter(write)
    return True


def _usage_line(usage) -> str:
    estimated = " (estimated)" if usage.estimated else ""
    evaluated = (f", {usage.evaluated_tokens} evaluated by the model"
                 if usage.evaluated_tokens is not None else "")
    return (f"{usage.prompt_tokens} prompt, {usage.completion_tokens} completion, "
            f"{usage.cached_tokens} cached{evaluated}{estimated} in {usage.calls} LLM calls, "
            f"{usage.wall_s:.1f} s waiting for the LLM")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llm-interaction", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True)

    replay = sub.add_parser("replay", help="replay a console transcript without an LLM")
    replay.add_argument("file", help="console transcript (lines starting with '>>> ')")
    replay.add_argument("--check", action="store_true",
                        help="exit 1 if an output differs from the recorded one")
    _add_world_args(replay)
    replay.set_defaults(func=cmd_replay)

    chat = sub.add_parser("chat", help="talk to the agent in the terminal")
    _add_world_args(chat)
    chat.add_argument("--config", help="agent settings YAML (default config/agent.yaml)")
    chat.add_argument("--examples", help="with --no-memory: folder of example transcripts "
                      "(default config/transcripts/<api>)")
    chat.add_argument("--no-memory", action="store_true",
                      help="no example memory: fixed examples, no learning")
    chat.add_argument("--memory-path", help="embedded memory directory (overrides the config)")
    chat.add_argument("-q", "--quiet", action="store_true", help="do not echo the console")
    add_llm_options(chat)
    chat.set_defaults(func=cmd_chat)

    from .memory_cli import add_memory_parser
    add_memory_parser(sub)
    from .run_cli import add_run_parser
    add_run_parser(sub)
    from .eval_cli import add_eval_parsers
    add_eval_parsers(sub)
    from .bag_cli import add_bag_parser
    add_bag_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
