#!/usr/bin/env python3
"""Run the test suite and measure it: wall time, the peak memory of the whole process tree
(pytest and every node, server and worker it starts) and of pytest itself, per test module;
optionally with CPU hogs beside it (the suite must hold under load, issue 45).

    .venv/bin/python scripts/suite_profile.py --out /tmp/suite [--hog 2] [-- pytest args]

Memory is summed from /proc (PSS where readable: pages shared by forked processes count
once; RSS otherwise), sampled every ``--interval`` s. The current test module comes from a
small pytest plugin (``-p suite_probe``, written next to the report) that writes each test's
node id to a file as it starts. Prints the report and writes it to ``OUT/report.md``;
``OUT/durations.txt`` holds pytest's own ``--durations`` output. Exit code: pytest's.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

PLUGIN = '''
import os
_PATH = os.environ["SUITE_PROBE_FILE"]

def pytest_runtest_logstart(nodeid, location):
    with open(_PATH + ".tmp", "w") as f:
        f.write(nodeid)
    os.replace(_PATH + ".tmp", _PATH)
'''

HOG = "import os\nos.nice(0)\nwhile True:\n    pass\n"


def children() -> dict[int, list[int]]:
    """pid -> its child pids, for every process now."""
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def descendants(root: int) -> list[int]:
    tree, out, todo = children(), [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(tree.get(pid, []))
    return out


def _field_kb(path: str, key: str) -> int | None:
    """The kB value of the line ``key`` of a /proc file; None if it cannot be read."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def memory_kb(pid: int) -> int:
    """PSS of a process (kB), RSS where smaps_rollup cannot be read; 0 once it is gone."""
    pss = _field_kb(f"/proc/{pid}/smaps_rollup", "Pss:")
    return pss if pss is not None else _field_kb(f"/proc/{pid}/status", "VmRSS:") or 0


def peak_kb(pid: int) -> int:
    return _field_kb(f"/proc/{pid}/status", "VmHWM:") or 0


def is_pytest(pid: int) -> bool:
    """A pytest process (the suite itself, or one of scripts/run_suite.py's)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"\0pytest\0" in f.read()
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory for the report")
    parser.add_argument("--hog", type=int, default=0, help="CPU hog processes beside the suite")
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--split", action="store_true",
                        help="run the suite as `make test` does (scripts/run_suite.py: the "
                        "embedded-model tests, then the others in two pytest processes; the "
                        "module column is then the module a test last started in)")
    parser.add_argument("--split-args", nargs="*", default=[],
                        help="options of scripts/run_suite.py (with --split), e.g. --phase others")
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "suite_probe.py").write_text(PLUGIN)
    current = out / "current_test"
    env = {**os.environ, "SUITE_PROBE_FILE": str(current),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(out), os.environ.get("PYTHONPATH")]))}
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hog)]
    probe = ["-p", "suite_probe", "--durations=30", *args.pytest_args]
    cmd = ([sys.executable, str(Path(__file__).with_name("run_suite.py")), *args.split_args,
            "--", *probe]
           if args.split else [sys.executable, "-m", "pytest", "-q", *probe])
    started = time.monotonic()
    durations = open(out / "durations.txt", "w")
    suite = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, bufsize=1)
    per_module: dict[str, int] = {}
    own_module: dict[str, int] = {}      # the pytest process's own PSS per module
    module_s: dict[str, float] = {}
    peak_total, pytest_peak = 0, 0
    last = started
    os.set_blocking(suite.stdout.fileno(), False)
    try:
        rusage = None
        while rusage is None:
            pid, status, usage = os.wait4(suite.pid, os.WNOHANG)   # pytest + its reaped children
            if pid:
                rusage = usage
                suite.returncode = os.waitstatus_to_exitcode(status)
                break
            tree = descendants(suite.pid)
            pytests = [p for p in tree if is_pytest(p)]
            own = sum(memory_kb(p) for p in pytests)
            total = own + sum(memory_kb(p) for p in tree if p not in pytests)
            pytest_peak = max([pytest_peak, *(peak_kb(p) for p in pytests)])
            peak_total = max(peak_total, total)
            try:
                module = current.read_text().split("::")[0]
            except OSError:
                module = "(collection)"
            per_module[module] = max(per_module.get(module, 0), total)
            own_module[module] = max(own_module.get(module, 0), own)
            now = time.monotonic()
            module_s[module] = module_s.get(module, 0.0) + now - last
            last = now
            while line := suite.stdout.readline():
                sys.stdout.write(line)
                durations.write(line)
            time.sleep(args.interval)
        for line in suite.stdout:
            sys.stdout.write(line)
            durations.write(line)
    finally:
        for hog in hogs:
            hog.send_signal(signal.SIGKILL)
            hog.wait()
        durations.close()
    wall = time.monotonic() - started
    lines = [f"# suite profile ({time.strftime('%Y-%m-%d %H:%M')})", "",
             f"command: {' '.join(cmd)}", f"CPU hogs beside it: {args.hog}",
             f"exit code: {suite.returncode}", f"wall: {wall / 60:.1f} min ({wall:.0f} s)",
             f"CPU time of the suite (pytest and every process it started and reaped): "
             f"{(rusage.ru_utime + rusage.ru_stime) / 60:.1f} min",
             f"peak memory of the process tree (PSS, sampled every {args.interval:g} s): "
             f"{peak_total / 2**20:.2f} GB",
             f"peak resident memory of a pytest process (VmHWM): {pytest_peak / 2**20:.2f} GB",
             "", "| module | wall (s) | peak tree memory (GB) "
             "| peak of the pytest processes (PSS, GB) |",
             "|---|---|---|---|"]
    for module, kb in sorted(per_module.items(), key=lambda kv: -kv[1]):
        lines.append(f"| {module} | {module_s.get(module, 0):.0f} | {kb / 2**20:.2f} "
                     f"| {own_module.get(module, 0) / 2**20:.2f} |")
    report = "\n".join(lines) + "\n"
    (out / "report.md").write_text(report)
    print(report)
    return suite.returncode


if __name__ == "__main__":
    sys.exit(main())
