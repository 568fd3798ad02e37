"""llm-interaction run: start the ROS 2 nodes of a graph and talk to the robot.

    llm-interaction run                      # household_sim + interaction_node + tts, console
    llm-interaction run --world ladder_and_shelf --llm-model qwen2.5:7b \\
        --llm-base-url http://localhost:11434/v1
    llm-interaction run --graph robot        # interaction_node only, for a real robot
    llm-interaction run --no-console         # just the nodes, until Ctrl-C
    llm-interaction run --speech             # + microphone and speech recognition (asr)
    llm-interaction run --record ~/bags/run1 # + a rosbag2 (MCAP) of the run's topics
    llm-interaction run --api-preset paper   # the paper's API: a failed skill says 'failure'
    llm-interaction run --memory-host 127.0.0.1 --memory-port 8000 --robot-id kitchen_bot
                                             # lessons on a Chroma server a fleet shares
    llm-interaction run --warm-up-only       # warm the embedded model up once, then stop
    llm-interaction bag summary ~/bags/run1  # what it holds, the dialogue as text

Each node is a separate process (python -m MODULE --ros-args --params-file config/NODE.yaml ...,
see llm_interaction_node/ros/graph.py); their output goes to a log directory. The speech
console runs in the foreground; leaving it (/quit, Ctrl-D, Ctrl-C) stops every node.
rclpy is imported only when the command runs.

``--warm-up-only`` starts the same nodes without a console, waits until the interaction node has
warmed its model up (the embedded model evaluates the start of its prompts once and keeps the
states on disk, ~200 s on 2 cores the first time, seconds after), then stops them: `make run`
does it once after install, so a request said as soon as the robot listens is answered at once
(issue 44: 205.8 s to the first action without it).
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import yaml

from .core.settings.config_files import config_path
from .core.settings.world_file import read_world_file
from .llm_options import add_llm_options, endpoint_line, llm_environment
from .paths import world_path
from .ros.graph import (
    GRAPHS,
    LAUNCH_ARGUMENTS,
    GraphRunner,
    NodeSpec,
    argument_overrides,
    format_value,
    graph_nodes,
)


def parse_param(text: str) -> tuple[str, str, object]:
    """``NODE:NAME:=VALUE`` -> (node, name, value); the value is read as YAML, as ROS does."""
    node, sep, rest = text.partition(":")
    name, sep2, value = rest.partition(":=")
    if not (sep and sep2 and node and name):
        raise ValueError(f"--param {text!r}: expected NODE:NAME:=VALUE, e.g. tts:backend:=espeak")
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        parsed = value
    if parsed is None or isinstance(parsed, dict):
        parsed = value
    return node, name, parsed


def build_overrides(args: argparse.Namespace, graph: tuple[NodeSpec, ...]) -> dict[str, dict]:
    """Parameter overrides by node name from the options; ValueError for a node not in the graph.
    --world, --llm-*, --memory-path, --memory-host, --memory-port, --robot-id, --api-preset set
    what the launch arguments of the same names set (--llm-* also reach every node as its
    environment, llm_environment: they beat its params file and the caller's variables)."""
    given = {name: None if getattr(args, name) is None else str(getattr(args, name))
             for name in LAUNCH_ARGUMENTS}
    overrides = argument_overrides(graph, given, {name: "--" + name.replace("_", "-")
                                                  for name in given})
    names = {spec.name for spec in graph}
    for text in args.param or ():
        node, name, value = parse_param(text)
        if node not in names:
            raise ValueError(f"--param: the {args.graph} graph has no node {node!r} "
                             f"(its nodes: {', '.join(s.name for s in graph)})")
        overrides.setdefault(node, {})[name] = value
    return overrides


def interaction_settings(graph: tuple[NodeSpec, ...], overrides: dict[str, dict],
                         env: Mapping[str, str] = os.environ):
    """The Settings the graph's interaction node will read (its params files, the overrides,
    its environment ``env``): checked before any node starts."""
    from .ros.interaction_parameters import read_params_files
    spec = next(s for s in graph if s.module.endswith(".interaction_node"))
    return read_params_files([config_path(f) for f in spec.params_files], spec.name,
                             overrides.get(spec.name), env).settings


def record_path(text: str) -> Path:
    """The ``--record`` directory: absolute, and new or empty (ValueError otherwise)."""
    path = Path(text).expanduser().resolve()
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise ValueError(f"--record {text}: {path} exists and is not an empty directory "
                         "(a bag is written into a new directory)")
    return path


WARM_UP_TIMEOUT_S = 3600.0


def cmd_run(args: argparse.Namespace) -> int:
    if args.warm_up_only:                 # nothing of a session: no microphone, no bag
        args.speech, args.record = False, None
    graph = graph_nodes(args.graph, args.speech, record=bool(args.record))
    try:
        overrides = build_overrides(args, graph)
        if args.record:
            overrides.setdefault("recorder", {})["path"] = str(record_path(args.record))
        env = llm_environment(args)
        runner = GraphRunner(graph, overrides, log_dir=args.log_dir,
                             echo="all" if args.no_console else "warnings", env=env)
        settings = interaction_settings(graph, overrides, env)
        if args.world:              # a bad world file is one line here, before any node runs
            read_world_file(world_path(args.world))
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(endpoint_line(settings.llm), flush=True)
    if not settings.llm.is_configured and settings.llm.local:
        from .core.llm.models import get

        print(
            f"no LLM endpoint is set: the robot uses the embedded "
            f"{get(settings.llm.local_model).summary} "
            "(llama.cpp in-process, no key; see README 'What the embedded model can do'). "
            "For a larger model: --llm-base-url URL --llm-model NAME (or "
            "LLM_INTERACTION_BASE_URL / OPENAI_API_KEY).",
            flush=True,
        )
    # the in-process console must discover the nodes the same way they discover each other
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    # SIGINT (Ctrl-C) and SIGTERM stop the graph, as they stop a ROS node, also when this was
    # started with SIGINT ignored (a background job of a script)
    previous = (signal.signal(signal.SIGINT, signal.default_int_handler),
                signal.signal(signal.SIGTERM, _terminate))
    try:
        runner.start()
        if args.warm_up_only:
            return warm_up(runner, settings)
        if args.no_console:
            print("running; Ctrl-C stops the nodes", flush=True)
            runner.wait()
            return 1                       # a node exited (reported by the runner)
        from .ros.nodes.speech_console import run_console
        console_args = [] if args.quiet else ["--transcript"]
        if args.speech:
            console_args.append("--speech")
        # the interaction node may need a while to load; typed lines wait for it
        console_args += ["--ros-args", "-p", f"listener_timeout:={format_value(float(args.wait))}"]
        if args.record:
            console_args += ["-p", "recorded:=true"]
        code = run_console(console_args, stop_when=runner.exited)
        ended = [name for name, c in runner.exit_codes().items() if c is not None]
        if ended:                          # the console ended because a node did
            print(f"error: {', '.join(ended)} exited (see above); the console ended",
                  file=sys.stderr, flush=True)
            return 1
        return code
    except KeyboardInterrupt:
        print(flush=True)
        return 0
    finally:
        print("stopping the nodes ...", flush=True)
        runner.stop()
        if args.record:
            print(f"recorded: {args.record} (llm-interaction bag summary {args.record})",
                  flush=True)
        signal.signal(signal.SIGINT, previous[0])
        signal.signal(signal.SIGTERM, previous[1])


def warm_up(runner: GraphRunner, settings, timeout_s: float = WARM_UP_TIMEOUT_S) -> int:
    """Wait until the started graph's interaction node says ``idle`` (its warm-up is over);
    0 then, 1 if a node exited or the wait timed out."""
    from .ros.state_watch import wait_until_idle

    stateful = not settings.llm.is_configured and settings.llm.local
    print("warming up: the interaction node evaluates the start of its prompts once and saves "
          "the states on disk" if stateful else
          "warming up: nothing to evaluate for an LLM endpoint; waiting for the node", flush=True)
    start = time.monotonic()
    outcome = wait_until_idle(timeout_s, stop_when=runner.exited,
                              echo=lambda line: print(f"  {line}", flush=True))
    took = time.monotonic() - start
    if outcome == "idle":
        print(f"warmed up in {took:.0f} s: the next `llm-interaction run` answers its first "
              "request without waiting for the model", flush=True)
        return 0
    why = ("a node exited (see above)" if outcome == "exited"
           else f"the node was not idle after {timeout_s:.0f} s")
    print(f"error: the warm-up did not finish: {why}; the robot will warm up when it starts",
          file=sys.stderr, flush=True)
    return 1


def _terminate(signum, frame):
    raise SystemExit(128 + signum)


def add_run_parser(subparsers) -> argparse.ArgumentParser:
    run = subparsers.add_parser(
        "run", help="start the ROS 2 nodes and talk to the robot in a speech console",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("--graph", choices=sorted(GRAPHS), default="sim",
                     help="sim: household_sim + interaction_node + tts (default); "
                     "robot: interaction_node only, with config/robot.yaml")
    run.add_argument("--world", help="household scenario (a name in config/worlds or a YAML "
                     "path): household_sim world and interaction_node knowledge")
    run.add_argument("--memory-path", metavar="PATH",
                     help="embedded example memory directory (interaction_node memory.path)")
    run.add_argument("--memory-host", metavar="HOST",
                     help="a Chroma server shared by several robots (`chroma run --path DIR "
                     "--port N`; interaction_node memory.host); down: the robot goes on with "
                     "its seed examples and uses the server once it answers")
    run.add_argument("--memory-port", metavar="PORT",
                     help="that server's port (interaction_node memory.port, default 8000)")
    run.add_argument("--robot-id", metavar="ID",
                     help="who this robot is, recorded with each lesson it stores "
                     "(interaction_node memory.robot_id; default: the host name)")
    run.add_argument("--api-preset", metavar="PRESET",
                     help="the robot API: ours (default: a failed skill says why) or paper (the "
                     "paper's bare 'failure'); interaction_node robot_api.preset, checked "
                     "before any node starts")
    run.add_argument("--param", action="append", metavar="NODE:NAME:=VALUE",
                     help="any node parameter, e.g. tts:backend:=espeak (repeatable)")
    run.add_argument("--speech", action="store_true",
                     help="talk with your voice: also start the microphone and asr nodes "
                     "(config/microphone.yaml, config/asr.yaml); the console then shows what "
                     "was heard and takes only commands")
    run.add_argument("--no-console", action="store_true",
                     help="no speech console: run the nodes until Ctrl-C")
    run.add_argument("--warm-up-only", action="store_true",
                     help="start the nodes, wait until the interaction node has warmed its model "
                     "up (saved states on disk for the next start), stop them (make run does "
                     "it once after install)")
    run.add_argument("-q", "--quiet", action="store_true",
                     help="console: do not show the interaction node's transcript")
    run.add_argument("--record", metavar="DIR",
                     help="record the graph's topics (dialogue, transcript, state, skills, "
                     "scene, markers; config/recorder.yaml) into a new rosbag2 (MCAP) "
                     "directory; complete on disk every second, also after a crash")
    run.add_argument("--log-dir", metavar="DIR", help="where the node logs go "
                     "(default ~/.cache/llm_interaction_node/run/<timestamp>)")
    run.add_argument("--wait", type=float, default=60.0, metavar="S",
                     help="how long a typed line waits for the interaction node to listen "
                     "(default 60 s)")
    add_llm_options(run)
    run.set_defaults(func=cmd_run)
    return run
