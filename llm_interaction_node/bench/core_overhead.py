"""Benchmark: the core's own time per statement, everything except the LLM call.

A 50-statement humanoid interaction (drinks_and_cup world, in-process) with 16 examples in
the prompt is driven by the scripted LLM. For each agent step we time the whole step and the
time spent inside the LLM client, and report the difference: prompt building, output
parsing, sandbox checks, execution of the API call in the world, transcript rendering.

Issue 27: generated code runs in a sandbox worker process; ``--in-process`` measures the
console without it (the earlier path), and ``api_call_ms_*`` is the time one robot API call
costs from generated code (a loop of ``--calls`` cheap calls, per call), and
``statement_ms_*`` what one trivial statement costs (``n = 1``: parse, check, run, record),
in both paths.

    python -m llm_interaction_node.bench.core_overhead [--statements 50] [--examples 16]
        [--in-process] [--calls 500]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from itertools import cycle, islice

from ..core.agent import AgentConfig
from ..core.llm import ScriptedLLM, estimate_tokens
from ..core.user.channel import EventQueue
from ..session import build_agent, build_console, load_examples, make_world

# One user turn: fetch an item, put it back; every statement succeeds in drinks_and_cup.
TURN = [
    "list_object_locations(affordance='grasp')",
    "say('Ok, I will get the mango juice.')",
    "list_locations()",
    "counter = get_location_coordinates('inFrontOf_kitchen-counter_0')",
    "move_to(counter)",
    "grasp('mango-juice_0', 'left')",
    "juice_pose = get_obj_pos('mango-juice_0')",
    "[round(float(v), 2) for v in juice_pose[:3]]",
    "get_object_in_hand('left')",
    "place_object('mango-juice_0', 'on_kitchen-counter_0')",
    "is_object_at_location('mango-juice_0', 'on_kitchen-counter_0')",
    "for name in ['coffee-cup_0', 'tumbler_0']:\n    get_obj_pos(name)[:2].round(2)",
    "wait_for_trigger()",
]


class TimedLLM:
    """Wraps the scripted LLM and adds up the time spent inside it."""

    def __init__(self, llm: ScriptedLLM):
        self.llm, self.config, self.inside_s = llm, llm.config, 0.0

    def complete(self, prompt, **kwargs):
        start = time.perf_counter()
        try:
            return self.llm.complete(prompt, **kwargs)
        finally:
            self.inside_s += time.perf_counter() - start


def api_call_ms(isolated: bool, calls: int = 500) -> float:
    """ms per robot API call made by generated code (a cheap one: get_obj_pos)."""
    world = make_world("humanoid", "drinks_and_cup")
    console = build_console("humanoid", world, EventQueue([], close=True), isolated=isolated)
    console.execute("get_obj_pos('mango-juice_0')")      # starts the worker
    loop = f"for i in range({calls}):\n    p = get_obj_pos('mango-juice_0')"
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        result = console.execute(loop)
        best = min(best, time.perf_counter() - start)
        if not result.ok:
            raise RuntimeError(f"benchmark loop failed: {result.entry.output}")
    console.close()
    return best * 1000 / calls


def statement_ms(isolated: bool, repeats: int = 200) -> float:
    """ms per console statement that does nothing but assign (parse, check, run, record)."""
    world = make_world("humanoid", "drinks_and_cup")
    console = build_console("humanoid", world, EventQueue([], close=True), isolated=isolated)
    console.execute("n = 0")                              # starts the worker
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeats):
            console.execute("n = 1")
        best = min(best, time.perf_counter() - start)
    console.close()
    return best * 1000 / repeats


def run(statements: int = 50, n_examples: int = 16, isolated: bool = True,
        calls: int = 500) -> dict:
    script = list(islice(cycle(TURN), statements))
    n_turns = script.count("wait_for_trigger()") + 1
    examples = list(islice(cycle(load_examples("humanoid")), n_examples))
    world = make_world("humanoid", "drinks_and_cup")
    channel = EventQueue([f"request {i}: the juice, please" for i in range(n_turns)], close=True)
    console = build_console("humanoid", world, channel, isolated=isolated)
    console.runner.run("None")      # the worker is started before timing
    scripted = ScriptedLLM(script)
    llm = TimedLLM(scripted)
    agent = build_agent("humanoid", llm, console, examples,
                        config=AgentConfig(max_statements_per_turn=len(TURN)))
    agent.start_task(marker=False)
    overhead_ms = []
    while scripted.remaining:
        before_llm, start = llm.inside_s, time.perf_counter()
        agent.step()
        total = time.perf_counter() - start
        overhead_ms.append((total - (llm.inside_s - before_llm)) * 1000)
    errors = [e for e in console.transcript if "Traceback" in e.output or "Error" in e.output]
    if errors:
        raise RuntimeError(f"benchmark interaction hit errors: {errors[0]}")
    q = statistics.quantiles(overhead_ms, n=20)
    last_prompt = scripted.prompts[-1]
    console.close()
    return {
        "worker_process": isolated,
        "statements": len(overhead_ms), "examples_in_prompt": n_examples,
        "overhead_ms_median": round(statistics.median(overhead_ms), 3),
        "overhead_ms_p95": round(q[18], 3), "overhead_ms_max": round(max(overhead_ms), 3),
        "overhead_ms_mean": round(statistics.fmean(overhead_ms), 3),
        "last_prompt_chars": len(last_prompt),
        "last_prompt_tokens_estimated": estimate_tokens(last_prompt),
        "statement_ms_in_process": round(statement_ms(False), 4),
        "statement_ms_worker": round(statement_ms(True), 4),
        "api_call_ms_in_process": round(api_call_ms(False, calls), 4),
        "api_call_ms_worker": round(api_call_ms(True, calls), 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--statements", type=int, default=50)
    parser.add_argument("--examples", type=int, default=16)
    parser.add_argument("--in-process", action="store_true",
                        help="run generated code in this process (no sandbox worker)")
    parser.add_argument("--calls", type=int, default=500, help="API calls timed per loop")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = run(args.statements, args.examples, not args.in_process, args.calls)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:32s} {value}")
        print(f"target: median < 5 ms -> {'met' if result['overhead_ms_median'] < 5 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
