"""One bench session in a new process, as a person restarting the robot would (the teach /
check / other sessions of section E and of the household's teach-once pairs).

The session's spec goes to ``python -m MODULE --session SPEC OUT`` in a temp file; the record it
writes to ``OUT`` is kept (a rerun of the bench does not run it again). A session that timed out
or failed is not kept: its record says why, with ``failed`` (the bench's "nothing learned,
nothing used" fields), and its whole stderr goes beside ``OUT``."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def in_new_process(module: str, spec: dict, out: Path, failed: dict,
                timeout_s: float) -> dict:
    """The record of the session of ``spec`` run by ``module`` in a new process."""
    if out.exists():
        return json.loads(out.read_text())
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
    try:
        r = subprocess.run([sys.executable, "-m", module, "--session", f.name, str(out)],
                           capture_output=True, text=True, timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired:
        return {**spec, "error": f"timeout after {timeout_s} s", **failed}
    finally:
        os.unlink(f.name)
    if r.returncode != 0 or not out.exists():       # not kept: run again next time
        out.with_suffix(".stderr.log").write_text(r.stderr, encoding="utf-8")   # all of it
        return {**spec, "error": f"exit {r.returncode}: {r.stderr[-1500:]}", **failed}
    return json.loads(out.read_text())


def add_session_option(parser: argparse.ArgumentParser) -> None:
    """The hidden ``--session SPEC OUT`` option a bench's module serves its sessions by."""
    parser.add_argument("--session", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS)


def served_session(args: argparse.Namespace, run_session) -> bool:
    """Run the session of ``args.session`` (its SPEC file) with ``run_session`` and write its
    record to OUT; False where the command was not asked to run one."""
    if not getattr(args, "session", None):
        return False
    spec = json.loads(Path(args.session[0]).read_text())
    Path(args.session[1]).write_text(json.dumps(run_session(spec), indent=1, default=str))
    return True


def run_agent(session) -> tuple[str | None, float]:
    """Run a bench session's agent until its user has nothing more to say: (the error it
    raised, in one line, or None; the wall time in seconds). A bench goes on after an error."""
    start = time.perf_counter()
    try:
        session.agent.run()
    except Exception as exc:  # noqa: BLE001 - reported, the bench goes on
        return f"{type(exc).__name__}: {exc}", time.perf_counter() - start
    return None, time.perf_counter() - start


__all__ = ["in_new_process", "add_session_option", "served_session", "run_agent"]
