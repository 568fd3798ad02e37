"""How long one replay of a ``final`` example takes (the learner's end check replays a final
example up to ``MAX_FINAL_REPLAYS`` times: the accepted attempt, every statement that worked,
then the greedy drops).

Per world it builds a corrected interaction in the in-process world (no LLM), takes the fuller
form (every statement that worked), and times ``replay.replay_check`` on it with the live
world's end compared, as the learner calls it:

* tabletop (2-D): three puts into matching bowls, the rejected red put, the accepted fix;
* household: the milk interaction of the tests (grasp, failed handovers, put back).

It also prints how far PyBullet (the live world of the benchmark) and the 2-D world (the
replay's) put the same blocks after the same puts (3 blocks, 3 bowls, six puts into bowls,
onto blocks and onto the table; ``--seeds`` scenes), and how many of those ends
:func:`~..sims.world_end.end_difference` calls different: what its tolerances must survive.

    python -m llm_interaction_node.bench.final_replay [--repeats N] [--seeds N]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from ..core.apis.tabletop import TabletopApi
from ..core.learning.final import MAX_FINAL_REPLAYS, worked_example
from ..core.transcript.errors import EndOfInteraction
from ..core.user.channel import EventQueue
from ..replay import interaction_start, live_end, replay_check
from ..session import build_console, make_world
from ..sims.tabletop2d import TabletopWorld2D
from ..sims.world_end import end_difference, end_of

PUT = "put_first_on_second('{}', '{}')"
TABLETOP = ("tabletop", "red block,blue block,green block,red bowl,blue bowl,green bowl",
            ["put the blocks in the bowls with matching colors",
             "the red block is in the blue bowl, it belongs in the red bowl",
             "well done, learn that for next time"],
            ["wait_for_trigger()", PUT.format("blue block", "blue bowl"),
             PUT.format("red block", "blue bowl"), PUT.format("green block", "green bowl"),
             "wait_for_trigger()", PUT.format("red block", "red bowl"), "wait_for_trigger()"])
TABLE = "move_to(get_location_coordinates('inFrontOf_dining-table_0'))"
HOUSEHOLD = ("humanoid", "drinks_and_cup",
             ["can I have the milk?", "then just put it back on the table",
              "next time, put it on the table right away when the handover fails"],
             ["wait_for_trigger()", "list_object_locations(affordance='grasp')", TABLE,
              "grasp('milk-carton_0')", "move_to(get_location_coordinates('handover_to_human'))",
              "handover_object_to_human('milk-carton_0')",
              "say('Sorry, I cannot hand it over.')\nwait_for_trigger()",
              TABLE, "place_object('milk-carton_0', 'on_dining-table_0')", "wait_for_trigger()"])


def time_replay(api: str, world: str, said: list[str], statements: list[str],
                repeats: int) -> tuple[int, float, float, bool]:
    """(statements in the fuller form, median wall ms and CPU ms of this process per replay,
    whether it ends like the live world). CPU time says what a replay costs on a loaded
    machine, where the wall time waits for the CPU."""
    robot = make_world(api, world)
    start = interaction_start(robot)()                  # the world before the first statement
    console = build_console(api, robot, EventQueue(said, close=True))
    for statement in statements:
        try:
            console.execute(statement)
        except EndOfInteraction:
            break
    example = worked_example(console.transcript)
    check = replay_check(api, start, live=live_end(robot))
    wall, cpu, replayed = [], [], None
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        replayed = check(example)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    ends_alike = replayed.end_checked and replayed.end_differs is None
    return len(example.statements()), statistics.median(wall), statistics.median(cpu), ends_alike


def physics_offsets(seeds: int) -> tuple[list[float], int]:
    """(every block's xy distance PyBullet vs 2-D after the same puts, scenes whose ends
    :func:`end_difference` calls different)."""
    from ..sims.tabletop_bullet import TabletopWorldBullet
    offsets, differ = [], 0
    for seed in range(seeds):
        names = TabletopWorld2D.random(3, 3, seed).object_names()
        blocks = [n for n in names if n.endswith(" block")]
        bowls = [n for n in names if n.endswith(" bowl")]
        puts = [(blocks[0], bowls[0]), (blocks[1], bowls[0]), (blocks[2], blocks[0]),
                (blocks[2], [0.1, -0.6]), (blocks[1], bowls[1]), (blocks[0], [-0.15, -0.35])]
        flat = TabletopWorld2D.from_names(names, seed)
        with TabletopWorldBullet.from_names(names, seed) as bullet:
            for world in (flat, bullet):
                api = TabletopApi(world)
                for block, target in puts:
                    api.put_first_on_second(block, target)
            offsets += [float(np.linalg.norm(flat.object_position(b)[:2]
                                             - bullet.object_position(b)[:2])) for b in blocks]
            differ += end_difference(end_of(flat), end_of(bullet)) is not None
    return offsets, differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=6)
    args = parser.parse_args(argv)
    print(f"one replay of a final example's fuller form, median of {args.repeats}; "
          f"at most {MAX_FINAL_REPLAYS} per learn call")
    print("| world | statements | wall ms / replay | CPU ms / replay | wall ms for the bound "
          "| ends like the live world |")
    print("|---|---|---|---|---|---|")
    for api, world, said, statements in (TABLETOP, HOUSEHOLD):
        n, ms, cpu, alike = time_replay(api, world, said, statements, args.repeats)
        print(f"| {api} | {n} | {ms:.1f} | {cpu:.1f} | {ms * MAX_FINAL_REPLAYS:.0f} | {alike} |")
    if args.seeds:
        offsets, differ = physics_offsets(args.seeds)
        cm = np.asarray(offsets) * 100
        print(f"\nPyBullet vs 2-D after the same 6 puts, {args.seeds} scenes, {len(offsets)} "
              f"blocks: xy offset median {np.median(cm):.1f} cm, 90th percentile "
              f"{np.percentile(cm, 90):.1f} cm, max {cm.max():.1f} cm; ends called different: "
              f"{differ} of {args.seeds}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
