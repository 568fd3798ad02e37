#!/usr/bin/env python3
"""The whole test suite on two cores (`make test`; issue 45: <= 12 min, <= 4 GB).

    .venv/bin/python scripts/run_suite.py [--workers 2] [-- extra pytest options]

Two phases, each a plain pytest run of this venv:

1. the tests that run the embedded model (``-m embedded_model``), alone: llama.cpp takes
   both cores, and its two threads wait for each other when anything else runs;
2. every other test in ``--workers`` pytest processes at once, the test modules split so that
   their measured times (``WEIGHTS``, seconds on an idle 2-core machine; a module not listed
   counts DEFAULT_S) are about even. Most of these tests wait (for node processes to start,
   for DDS discovery, for a stand-in LLM), so one process keeps about half a core busy.

Each worker claims its own ROS domain (test/ros_support.py), its own pytest temp directory
and free ports. The output of each run is printed whole when it ends; the exit code is 0 when
every run passed, else the first failing run's (5, no tests collected, is a failure too).
Options after ``--`` go to every pytest run (``-x``, ``-v``, ``--durations=20``); a selection
of tests (paths, ``-k``, ``-m``) is not split: ``make test ARGS=test/test_cli.py`` runs one
plain pytest (``--workers 1`` does too).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_S = 2.0
# seconds per module without the embedded-model tests (scripts/suite_profile.py, idle
# machine); only the split uses them: a wrong or missing one makes it less even, not wrong
WEIGHTS = {
    "test_ros_faults.py": 100, "test_speech_ros.py": 90, "test_memory_cli.py": 30,
    "test_section_e.py": 30, "test_memory_server.py": 30, "test_cli.py": 30,
    "test_eval_e2e.py": 28, "test_warmup.py": 27, "test_record_run.py": 25,
    "test_sandbox_process.py": 25, "test_household_bench.py": 20, "test_person_session.py": 18,
    "test_ros_e2e.py": 18, "test_learning_e2e.py": 16, "test_household_sim_node.py": 16,
    "test_launch_graph.py": 16, "test_embedding.py": 15, "test_prompt_layout.py": 14,
    "test_run_command.py": 14, "test_learning_replay.py": 12, "test_correction_household.py": 12,
    "test_api_preset.py": 12, "test_ros_stress.py": 11, "test_memory_store.py": 10,
    "test_llm_client.py": 10, "test_agent.py": 10, "test_sandbox.py": 9,
    "test_tabletop_sim_node.py": 8, "test_first_request_bench.py": 8, "test_speech_nodes.py": 8,
    "test_eval_observations.py": 7, "test_lesson_scale_bench.py": 7, "test_eval_rules.py": 6,
    "test_learning_auto.py": 6, "test_learned_prefix.py": 5,
}


def split(modules: list[Path], workers: int) -> list[list[Path]]:
    """Longest first, each to the least loaded worker; each worker's list in name order."""
    bins: list[tuple[float, list[Path]]] = [(0.0, []) for _ in range(workers)]
    for module in sorted(modules, key=lambda m: -WEIGHTS.get(m.name, DEFAULT_S)):
        i = min(range(workers), key=lambda k: bins[k][0])
        load, members = bins[i]
        bins[i] = (load + WEIGHTS.get(module.name, DEFAULT_S), members + [module])
    return [sorted(members) for _, members in bins if members]


# options whose value is the next argument (not a path that selects tests)
VALUED = {"-p", "-o", "-c", "-W", "--timeout", "--basetemp", "--rootdir", "--durations",
          "--maxfail", "--deselect", "--ignore", "--tb", "-r"}


def selects_tests(options: list[str]) -> bool:
    """Whether the pytest options choose tests (paths, node ids, -k, -m)."""
    it = iter(options)
    for a in it:
        if a in VALUED:
            next(it, None)
        elif a in ("-k", "-m") or a.startswith(("-k", "-m")) or not a.startswith("-"):
            return True
    return False


def pytest_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", *args]


def run_phase(name: str, commands: list[list[str]], env: dict[str, str]) -> int:
    """Run the commands at once; print each one's output whole as it ends; the first
    non-zero exit code, else 0."""
    started = time.monotonic()
    runs = []
    for i, cmd in enumerate(commands):
        log = tempfile.TemporaryFile(mode="w+")
        runs.append((f"{name}" + (f" [{i + 1}/{len(commands)}]" if len(commands) > 1 else ""),
                     cmd, log, subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log,
                                                stderr=subprocess.STDOUT, text=True)))
    code = 0
    pending = list(runs)
    while pending:
        for run in list(pending):
            label, cmd, log, proc = run
            if proc.poll() is None:
                continue
            pending.remove(run)
            log.seek(0)
            print(f"===== {label}: {' '.join(cmd[1:])}", flush=True)
            sys.stdout.write(log.read())
            print(f"===== {label}: exit code {proc.returncode} after "
                  f"{time.monotonic() - started:.0f} s", flush=True)
            log.close()
            code = code or proc.returncode
        time.sleep(0.2)
    return code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--phase", choices=("all", "embedded", "others"), default="all",
                        help="run only the embedded-model tests or only the others")
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    extra = args.pytest_args
    if selects_tests(extra) or args.workers < 2:
        return subprocess.call(pytest_cmd("-q", *extra), cwd=ROOT)
    env = {k: v for k, v in os.environ.items() if k != "ROS_DOMAIN_ID"}   # one per worker
    code = 0
    if args.phase in ("all", "embedded"):
        code = run_phase("the embedded-model tests",
                         [pytest_cmd("-q", "-m", "embedded_model", *extra)], env)
    if args.phase == "embedded":
        return code
    modules = sorted((ROOT / "test").glob("test_*.py"))
    groups = split(modules, args.workers)
    code = run_phase("the other tests", [
        pytest_cmd("-q", "-m", "not embedded_model", *extra,
                   *(str(m.relative_to(ROOT)) for m in group)) for group in groups], env) or code
    return code


if __name__ == "__main__":
    sys.exit(main())
