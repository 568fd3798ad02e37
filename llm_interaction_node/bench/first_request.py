"""Benchmark (issue 44 item 6): the first request after install, through `llm-interaction run`.

Starts the graph as a person does (``llm-interaction run --no-console --world drinks_and_cup``,
or ``--world W``)
on a FRESH cache (``LLM_INTERACTION_CACHE``: no saved model state, no exported embedding model;
with ``--keep-models`` the rest of the usual cache is linked in, so the 1.1 GB GGUF is not
joined from its PyPI parts again: only the saved model states are fresh) and a fresh memory,
and says the first request on ``speech/asr_text``:

* ``--when warm`` (default): once the robot's state says the start-up warm-up is over
  (``interaction/state`` turns ``idle``; core/llm/warmup.py): what a person who waits for the robot
  to be ready gets (target: the first action <= 15 s after the request);
* ``--when ready``: as soon as the interaction node listens (state ``warming``): the request
  waits for the warm-up; the time to the first action then includes the rest of it.

``--installed`` first does what `make run` does once after install, in the same fresh cache
and memory: ``llm-interaction run --warm-up-only`` (its time is reported as ``install_s``);
the measured start then finds the saved states on disk, as a person's first `make run` does.
``--installed --world living_room``: the install warmed the default world (``--install-world``,
what `make run` does with no ARGS), the request comes in a world never started before.

Measured from the request: the first skill goal the node sends (``interaction/skills``: the
first action) and the first thing it says; from the start: when it listened and when the
warm-up ended; the warm-up's progress lines (``interaction/llm_progress``). With no LLM option
the embedded model runs (one embedded-model process at a time on a small machine).

    python -m llm_interaction_node.bench.first_request --keep-models [--when warm|ready]
        [--installed [--install-world W]] [--world W] [--out docs/eval/first_request]
        [--llm-base-url URL --llm-model NAME]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .processes import stop_process

REQUEST = "bring me the juice please"     # every household world of config/worlds has a juice
WORLD = "drinks_and_cup"                  # the world `make run` starts with no ARGS
TARGET_S = 15.0
CLI = Path(sys.executable).parent / "llm-interaction"


def fresh_cache(root: Path, keep_models: bool) -> Path:
    """A new, empty cache directory under ``root``; with ``keep_models`` everything of the
    usual cache but the saved model states linked into it (the joined GGUF in ``models/``,
    the exported embedding model): made at a first start before the robot listens, so they
    do not change the time to the first action, only the wait for the start."""
    from ..core.settings.cache import cache_dir
    cache = root / "cache"
    cache.mkdir(parents=True)
    if keep_models:
        usual = cache_dir()
        if not (usual / "models").is_dir():       # an endpoint needs none; the embedded model
            print(f"note: --keep-models: {usual / 'models'} does not exist: the embedded "
                  "model's files are made in the fresh cache, before the robot listens",
                  flush=True)
        for entry in (usual.iterdir() if usual.is_dir() else ()):
            if entry.name != "states":
                (cache / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return cache


def run_args(root: Path, llm_args: list[str], world: str = WORLD) -> list[str]:
    """The `llm-interaction run` options of the measured start (and of the install's warm-up:
    the same memory and LLM; the world of each)."""
    return ["--world", world, "--memory-path", str(root / "memory"),
            "--param", "household_sim:time_scale:=0.0", "--param", "tts:backend:=log",
            *llm_args]


def install(root: Path, env: dict, llm_args: list[str], timeout_s: float, echo=print,
            world: str = WORLD) -> float:
    """What `make run` does once after install: ``llm-interaction run --warm-up-only`` (in
    ``world``: `make run` with no ARGS starts the default one); its wall time in s
    (RuntimeError if it fails)."""
    start = time.monotonic()
    with open(root / "install.log", "w") as out:
        code = subprocess.run([str(CLI), "run", "--warm-up-only", "--log-dir",
                               str(root / "install_logs"),
                               *run_args(root, llm_args, world)],
                              stdout=out, stderr=subprocess.STDOUT, env=env,
                              timeout=timeout_s).returncode
    took = time.monotonic() - start
    if code != 0:
        raise RuntimeError(f"the install's warm-up failed ({code}):\n"
                           f"{(root / 'install.log').read_text()[-3000:]}")
    echo(f"install: warmed up in {took:.1f} s")
    return took


def measure(root: Path, when: str, keep_models: bool, llm_args: list[str],
            timeout_s: float = 1800.0, echo=print, installed: bool = False,
            world: str = WORLD, install_world: str = WORLD) -> dict:
    cache = fresh_cache(root, keep_models)
    env = {**os.environ, "LLM_INTERACTION_CACHE": str(cache), "PYTHONUNBUFFERED": "1",
           "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}
    env.setdefault("ROS_DOMAIN_ID", str(150 + os.getpid() % 80))
    os.environ.update({k: env[k] for k in ("ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE")})
    install_s = install(root, env, llm_args, timeout_s, echo, install_world) \
        if installed else None
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from std_msgs.msg import String

    from ..ros import names
    from ..ros.qos import LATCHED

    latched = LATCHED
    events: dict[str, list[tuple[float, str]]] = {"state": [], "skills": [], "says": [],
                                                  "progress": []}
    rclpy.init()
    node = rclpy.create_node("bench_first_request")
    for key, topic, qos in (("state", names.STATE, latched), ("skills", names.SKILL_EVENTS, 100),
                            ("says", names.TTS_TEXT, 10), ("progress", names.LLM_PROGRESS, 50)):
        node.create_subscription(String, topic, lambda m, k=key: events[k].append(
            (time.monotonic(), m.data)), qos)
    asr = node.create_publisher(String, names.ASR_TEXT, 10)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    threading.Thread(target=executor.spin, daemon=True).start()
    out = open(root / "run.log", "w")
    start = time.monotonic()
    run = subprocess.Popen([str(CLI), "run", "--no-console", "--log-dir", str(root / "logs"),
                            *run_args(root, llm_args, world)],
                           stdout=out, stderr=subprocess.STDOUT, env=env)

    def wait(predicate, what):
        deadline = start + timeout_s
        while not predicate():
            if run.poll() is not None:
                raise RuntimeError(f"`llm-interaction run` exited ({run.returncode}) before "
                                   f"{what}:\n{(root / 'run.log').read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {what} in {timeout_s} s")
            time.sleep(0.05)
        return time.monotonic()

    def listening() -> bool:
        infos = node.get_subscriptions_info_by_topic("/" + names.ASR_TEXT)
        return any(i.node_name == "interaction_node" for i in infos) and bool(events["state"])

    try:
        listened = wait(listening, "interaction node listening")
        warm = wait(lambda: events["state"][-1][1] == "idle", "warm-up end") \
            if when == "warm" else None
        time.sleep(0.5)                               # the subscriber side of discovery
        said = time.monotonic()
        load_at_request = [round(x, 2) for x in os.getloadavg()]
        asr.publish(String(data=REQUEST))
        acted = wait(lambda: any('"goal"' in text for _, text in events["skills"]),
                     "first skill goal")
        first_goal = next(json.loads(text) for _, text in events["skills"]
                          if '"goal"' in text)
        spoke = next((t for t, _ in events["says"]), None)
        warmed = next((t for t, s in events["state"] if s == "idle"), None)
    finally:
        run.send_signal(signal.SIGINT)                # as Ctrl-C: every node stops
        try:
            run.wait(60)
        except subprocess.TimeoutExpired:
            stop_process(run)
        out.close()
        executor.shutdown()
        node.destroy_node()
        rclpy.shutdown()
    first_action_s = round(acted - said, 1)
    result = {
        "benchmark": "first_request", "when": when, "request": REQUEST,
        "fresh_cache": "model states (the rest linked)" if keep_models else "all",
        "world": world, "installed": installed,
        "install_world": install_world if installed else None,
        "install_s": round(install_s, 1) if installed else None,
        "llm": next((line.strip() for line in (root / "run.log").read_text().splitlines()
                     if line.startswith("LLM:")), "?"),
        "listening_s": round(listened - start, 1),
        "warm_up_end_s": round(warmed - start, 1) if warmed is not None else None,
        "request_at_s": round(said - start, 1),
        "first_action_s": first_action_s, "first_skill": first_goal.get("skill"),
        "first_speech_s": round(spoke - said, 1) if spoke is not None and spoke > said else None,
        "target_s": TARGET_S, "met": first_action_s <= TARGET_S,
        "states_seen": [s for _, s in events["state"]],
        "warm_up_lines": [text for _, text in events["progress"] if "warm" in text],
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        # a shared machine: how busy it was (1, 5, 15 min load averages) as the request came
        "load_average": load_at_request,
    }
    if warm is not None:
        result["waited_for_warm_up_s"] = round(warm - listened, 1)
    echo(f"listening after {result['listening_s']} s, warm-up over after "
         f"{result['warm_up_end_s']} s; request at {result['request_at_s']} s -> first action "
         f"({result['first_skill']}) after {first_action_s} s "
         f"({'meets' if result['met'] else 'misses'} the {TARGET_S:.0f} s target)")
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.first_request",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--when", choices=("warm", "ready"), default="warm",
                        help="say the request after the warm-up (warm) or as soon as the node "
                        "listens (ready)")
    parser.add_argument("--installed", action="store_true",
                        help="first warm up as `make run` does once after install "
                        "(llm-interaction run --warm-up-only), in the same fresh cache")
    parser.add_argument("--keep-models", action="store_true",
                        help="link the usual cache's joined model files into the fresh cache")
    parser.add_argument("--out", default="docs/eval/first_request",
                        help="where the result JSON goes (a file per run)")
    parser.add_argument("--world", default=WORLD,
                        help=f"the world of the measured start (default {WORLD})")
    parser.add_argument("--install-world", default=WORLD,
                        help="with --installed: the world of the install's warm-up (default "
                        f"{WORLD}, what `make run` warms with no ARGS): another --world is a "
                        "world never started before")
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--llm-base-url")
    parser.add_argument("--llm-model")
    args = parser.parse_args(argv)
    llm_args = [*(("--llm-base-url", args.llm_base_url) if args.llm_base_url else ()),
                *(("--llm-model", args.llm_model) if args.llm_model else ())]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    kind = f"{args.when}-installed" if args.installed else args.when
    kind += f"-{Path(args.world).stem}" if args.world != WORLD else ""
    with tempfile.TemporaryDirectory(prefix="first_request-") as tmp:
        result = measure(Path(tmp), args.when, args.keep_models, llm_args, args.timeout,
                         installed=args.installed, world=args.world,
                         install_world=args.install_world)
        path = out / f"{time.strftime('%Y%m%d-%H%M%S')}-{kind}.json"
        node_log = Path(tmp) / "logs" / "interaction_node.log"
        if node_log.is_file():      # where the time went: the node's readings and calls
            shutil.copyfile(node_log, path.with_suffix(".node.log"))
    result["command"] = "python -m llm_interaction_node.bench.first_request " + " ".join(
        sys.argv[1:] if argv is None else argv)
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
