"""The evaluation protocol of the paper (section A of the seed) for one system.

For each split, each instruction template of the split, each run r = 1..runs (instruction-
major, as the reference's ``setup.py``: all runs of one instruction in a row): a scene is
generated (deterministic for the seed), the simulated user gives the instruction, the system
acts; whenever it hands back, the world is judged with the template's success check and the
simulated user answers (feedback, a request to learn, or nothing). A round that ends in an
error (the system gave up, crashed, timed out) is a failed round whatever the world shows.
What the user observes besides success: where every object is, what the robot moved and
which goal conditions fail (:func:`observe.observe`, from the round's initial and final
positions only), blocks dropped (off the table, released away from the place point, knocked
away: :func:`execution_drops`) and whether the instruction's initial condition is destroyed
(:func:`tasks.initial_destroyed`). The world is rebuilt for
every run; the system's memory is kept across all runs, so what was learned in run r of an
instruction is there for run r+1 of it (and for the instructions after it).

Every run is written to ``OUT/runs/<split>/<template>/run_<r>.json`` (the interaction, the
observations, the user's utterances, tokens) as soon as it ends; a run whose file exists is
skipped, so an interrupted evaluation resumes where it stopped (the memory is on disk too).
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .. import provenance
from ..core.llm import Usage
from .observe import observe
from .phrasings import BUILT_IN, Phrasings
from .simulated_user import USER_POLICIES, Observation, SimulatedUser
from .systems.base import Round
from .tasks import (
    SPLITS,
    check,
    feasible_world,
    initial_destroyed,
    make_task,
    tasks_for_split,
    world_positions,
)

WorldFactory = Callable[[list, int], object]
DROP_MARGIN = 0.02        # m outside the workspace (or below the table) counts as dropped
DROP_TOLERANCE = 0.06     # m between the place point and where a released block came to rest


@dataclass
class RunRecord:
    system: str
    split: str
    template: str
    round: int                      # 1-based: the x-th run of this instruction
    seed: int
    instruction: str
    success: bool = False           # the run ended in success
    first_success: int | None = None   # interaction index of the first success (0 = no feedback)
    interactions: int = 0           # rounds the system handed back
    utterances: list = field(default_factory=list)      # (kind, text) of the user
    observations: list = field(default_factory=list)    # Observation dicts
    errors: list = field(default_factory=list)
    transcripts: list = field(default_factory=list)     # what the system did, per round
    turn_statuses: list = field(default_factory=list)   # per round: the agent's TurnStatus list
    usage: dict = field(default_factory=dict)
    wall_s: float = 0.0
    learned: bool = False  # the user asked to learn in this run
    learning: list = field(
        default_factory=list
    )  # what each learn call did (status, lesson, example)
    first_statement_s: float | None = None     # instruction -> first statement (systems that say)
    startup_s: float | None = None  # session start -> instruction (the start-up prefill)
    retrieved: list = field(default_factory=list)  # ids of the non-seed examples in its prompts
    user: str = "paper"             # the simulated user's learning rule (USER_POLICIES)
    phrasings: str = "built-in"     # the wording pool the user spoke from (Phrasings.label)
    api_preset: str = "ours"        # the robot API the system had (robot_api.preset)
    commit: str = ""                # the commit it ran at, and whether tracked files had
    dirty: bool | None = None       # changes then (llm_interaction_node/provenance.py)
    base_seed: int | None = None    # the protocol's --seed (``seed`` is this run's scene's)

    def path(self, out: Path) -> Path:
        return run_path(out, self.split, self.template, self.round)


def run_path(out: Path, split: str, template: str, round_: int) -> Path:
    """Where the record of one run is written (and found again on resume)."""
    return Path(out) / "runs" / split / template / f"run_{round_:02d}.json"


def dropped_blocks(world, bounds) -> list[str]:
    """Blocks that left the workspace or fell below the table (an execution error)."""
    out = []
    for name in world.object_names():
        if "block" not in name:
            continue
        x, y, z = np.asarray(world.object_position(name), dtype=float)[:3]
        (x0, x1), (y0, y1) = bounds[0], bounds[1]
        if (
            not (
                x0 - DROP_MARGIN <= x <= x1 + DROP_MARGIN
                and y0 - DROP_MARGIN <= y <= y1 + DROP_MARGIN
            )
            or z < -DROP_MARGIN
        ):
            out.append(name)
    return out


def execution_drops(entries: list[dict], bounds) -> list[str]:
    """Blocks the robot dropped in these pick-and-place log entries: released somewhere else
    than the place point (slid off, fell on the way), or knocked away while it handled
    another object. Seen by the user as "you dropped the ..."."""
    out: list[str] = []
    for e in entries:
        name = e.get("object")
        landed, place = e.get("landed"), e.get("place")
        if name and "block" in name and landed is not None and place is not None:
            off = float(np.linalg.norm(np.asarray(landed[:2]) - np.asarray(place[:2])))
            if off > DROP_TOLERANCE:
                out.append(name)
        out += [n for n in e.get("displaced", ()) if "block" in n]
    return list(dict.fromkeys(out))


def api_preset(system) -> str:
    """The robot API preset a system runs with (``robot_api.preset``; ours by default)."""
    return getattr(system, "api_preset", "ours")


class HarnessError(RuntimeError):
    """The harness itself (observer, simulated user) failed during a run: a defect to fix,
    not a result; the run is not recorded."""


def run_once(system, split: str, template: str, round_: int, seed: int,
             factory: WorldFactory | None = None, max_rounds: int = 6,
             strip: Path | None = None, user_policy: str = "paper",
             phrasings: Phrasings = BUILT_IN) -> RunRecord:
    """One run of one instruction (see the module docstring). With ``strip`` (and a world
    that can ``render``), a PNG with the scene at the start and after every round.
    ``user_policy``: when the simulated user asks to learn (:data:`USER_POLICIES`);
    ``phrasings``: the wording pool the simulated user speaks from (run ``round_`` of the
    template takes wording ``(round_ - 1) mod n``)."""
    if user_policy not in USER_POLICIES:
        raise ValueError(
            f"unknown user policy {user_policy!r}; use one of {', '.join(USER_POLICIES)}"
        )
    task = make_task(template, split, seed)
    world = feasible_world(task, factory)
    render = getattr(world, "render", None) if strip else None
    frames = [render()] if render else []
    try:
        initial = world_positions(world)
        bounds = np.asarray(world.bounds, dtype=float)
        user = SimulatedUser(task, initial, seed=seed, max_rounds=max_rounds,
                             learn_after_solution=user_policy == "teaching",
                             phrasings=phrasings, run=round_)
        first = user.first()
        record = RunRecord(system.name, split, template, round_, seed, first.text,
                           user=user_policy, api_preset=api_preset(system),
                           phrasings=phrasings.label)
        record.utterances.append((first.kind, first.text))
        before = system.ledger.total
        started = time.monotonic()

        log = getattr(world, "log", [])
        seen = {"log": len(log)}
        last = {"pos": initial}                            # positions at the round's start

        def observe_and_answer(round_result: Round):
            index = record.interactions
            record.interactions += 1
            final = world_positions(world)
            if render:
                frames.append(render())
            # a round that ends in an error is a failure, whatever the world looks like
            success = check(task, initial, final) and not round_result.error
            if success and record.first_success is None:
                record.first_success = index
            lost = dropped_blocks(world, bounds)           # off the workspace: out of reach
            dropped = list(dict.fromkeys(lost + execution_drops(log[seen["log"]:], bounds)))
            seen["log"] = len(log)
            view = observe(task, initial, final, last["pos"])   # what a person at the table sees
            last["pos"] = final
            obs = Observation(
                success=success,
                error=round_result.error,
                dropped=dropped,
                initial_destroyed=not success and initial_destroyed(task, initial, final),
                round_index=index,
                unreachable=lost,
                places=view.places,
                moved=view.moved,
                unmet=view.unmet,
            )
            record.observations.append(asdict(obs))
            record.transcripts.append(round_result.transcript)
            record.turn_statuses.append(list(round_result.statuses))
            if round_result.error:
                record.errors.append(round_result.error)
            record.success = success
            answer = user.respond(obs)
            if answer is None:
                return None
            record.utterances.append((answer.kind, answer.text))
            record.learned = record.learned or answer.kind == "learn"
            return answer.text

        failed: list[Exception] = []

        def next_utterance(round_result: Round):
            try:
                return observe_and_answer(round_result)
            except Exception as exc:     # the harness's own defect: kept, whatever the system does
                failed.append(exc)
                raise

        try:
            system.run(world, first.text, next_utterance)
        except Exception as exc:  # noqa: BLE001 - a crashing system fails the run, not the protocol
            if not failed:
                record.errors.append(f"system crashed: {type(exc).__name__}: {exc}")
        if failed:     # never scored as the system's failure: the evaluation stops here
            raise HarnessError(f"{split}/{template} run {round_ + 1}: the observer or the "
                               f"simulated user failed after round {record.interactions}: "
                               f"{type(failed[0]).__name__}: {failed[0]}") from failed[0]
        if record.success:
            system.episode_succeeded()
        learning_log = getattr(system, "learning_log", None)     # systems that learn say what
        if learning_log is not None:
            record.learning = learning_log()
        record.first_statement_s = getattr(system, "first_statement_s", None)
        record.startup_s = getattr(system, "startup_s", None)
        record.retrieved = list(getattr(system, "retrieved", None) or [])
        usage: Usage = system.ledger.total
        record.usage = {
            "prompt_tokens": usage.prompt_tokens - before.prompt_tokens,
            "completion_tokens": usage.completion_tokens - before.completion_tokens,
            "cached_tokens": usage.cached_tokens - before.cached_tokens,
            "evaluated_tokens": usage.evaluated_prompt_tokens - before.evaluated_prompt_tokens,
            "calls": usage.calls - before.calls,
            "llm_wall_s": round(usage.wall_s - before.wall_s, 3),
            "estimated": usage.estimated,
        }
        record.wall_s = round(time.monotonic() - started, 3)
        record.usage["outside_llm_s"] = round(record.wall_s - record.usage["llm_wall_s"], 3)
        if frames:
            from ..sims.tabletop_bullet import save_strip
            strip.parent.mkdir(parents=True, exist_ok=True)
            save_strip(frames, strip)
        return record
    finally:
        close = getattr(world, "close", None)
        if close:
            close()


def run_seed(base_seed: int, split: str, template: str, round_: int) -> int:
    """A distinct, reproducible scene seed for every (split, template, round)."""
    key = f"{split}/{template}/{round_}"
    return (base_seed * 1_000_003 + sum((i + 1) * ord(c) for i, c in enumerate(key))) % (2**31)


def plan(splits: Iterable[str], runs: int, templates: Iterable[str] | None = None):
    """The runs in protocol order, instruction-major: (split, round, template), every run of
    one template in a row (the reference's order)."""
    wanted = set(templates) if templates else None
    for split in splits:
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; use {', '.join(SPLITS)}")
        ids = [t.id for t in tasks_for_split(split) if wanted is None or t.id in wanted]
        for template in ids:
            for round_ in range(1, runs + 1):
                yield split, round_, template


def run_protocol(system, out: str | Path, splits=SPLITS, runs: int = 10, seed: int = 0,
                 templates=None, factory: WorldFactory | None = None,
                 progress: Callable[[int, int, RunRecord | None], None] | None = None,
                 max_rounds: int = 6, frames: bool = False,
                 user_policy: str = "paper", phrasings: Phrasings = BUILT_IN) -> list[RunRecord]:
    """Run (or resume) the protocol; returns every run's record, old and new. ``frames``:
    an image strip per run next to its JSON (PyBullet world). A resumed protocol keeps its
    ``user_policy``, its wording pool and the system's API preset: records of another policy,
    pool or preset in ``out`` are an error, not a mix."""
    out = Path(out)
    todo = list(plan(splits, runs, templates))
    records: list[RunRecord] = []
    made_at = provenance.record()
    for i, (split, round_, template) in enumerate(todo):
        seed_ = run_seed(seed, split, template, round_)
        path = run_path(out, split, template, round_)
        if path.exists():
            old = RunRecord(**json.loads(path.read_text()))
            if old.user != user_policy:
                raise ValueError(f"{path} was run with the {old.user!r} user, not "
                                 f"{user_policy!r}: use another --out")
            if old.phrasings != phrasings.label:
                raise ValueError(f"{path} was run with the wordings {old.phrasings!r}, not "
                                 f"{phrasings.label!r}: use another --out")
            if old.api_preset != api_preset(system):
                raise ValueError(f"{path} was run with the {old.api_preset!r} API preset, not "
                                 f"{api_preset(system)!r}: use another --out")
            records.append(old)
        else:
            record = run_once(system, split, template, round_, seed_, factory, max_rounds,
                              strip=path.with_suffix(".png") if frames else None,
                              user_policy=user_policy, phrasings=phrasings)
            record.commit, record.dirty = made_at["commit"], made_at["dirty"]
            record.base_seed = seed
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(asdict(record), indent=1, default=str))
            tmp.replace(path)                     # atomic: a killed run leaves no half file
            records.append(record)
        if progress:
            progress(i + 1, len(todo), records[-1])
    return records


def load_records(out: str | Path) -> list[RunRecord]:
    return [RunRecord(**json.loads(p.read_text()))
            for p in sorted(Path(out).glob("runs/*/*/run_*.json"))]
