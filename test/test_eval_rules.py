"""The reference's rules in the benchmark harness (issue 16): run order, loop resets that hand
back normally, run records with the agent's turn statuses and the transcript before a reset.
Only the LLM is scripted; the world, the memory (ChromaDB) and the agent are real."""
from llm_interaction_node.core.agent import LOOP_NOTE
from llm_interaction_node.core.console.session import NEW_TASK_MARKER
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.eval.harness import plan, run_once, run_protocol
from llm_interaction_node.eval.report import run_outcome
from llm_interaction_node.eval.systems import make_system
from llm_interaction_node.eval.tasks import tasks_for_split


def test_the_plan_is_instruction_major():
    """All runs of one instruction in a row, so what run 1 learned is there for run 2."""
    ids = [t.id for t in tasks_for_split("sa_si")][:2]
    assert list(plan(["sa_si"], 3, ids)) == [("sa_si", r, t) for t in ids for r in (1, 2, 3)]
    order = list(plan(["sa_si", "ua_si"], 2, None))
    for split in ("sa_si", "ua_si"):
        templates = [t for s, _r, t in order if s == split]
        # each template's runs are contiguous
        assert all(templates.count(t) == 2 and templates[templates.index(t) + 1] == t
                   for t in set(templates))


def test_a_loop_reset_hands_back_and_the_user_carries_on(tmp_path):
    """A second loop resets the interaction and hands back normally: the world is judged, the
    round is no error, the simulated user gives feedback; the run record keeps the statuses
    and the transcript before the reset."""
    llm = ScriptedLLM(["get_obj_names()"] * 4 + ["wait_for_trigger()"] * 40)
    system = make_system("ours", llm, tmp_path / "memory")
    record = run_once(system, "sa_si", "blocks_in_bowl", 1, seed=3, max_rounds=2)
    assert record.errors == [] and record.interactions == 2
    assert [k for k, _ in record.utterances][:2] == ["instruction", "high_level"]
    assert record.turn_statuses[0] == ["loop_reset"]
    assert record.turn_statuses[1] and "loop_reset" not in record.turn_statuses[1]
    first = record.transcripts[0]
    assert first.count(">>> get_obj_names()") == 2 and "# " + LOOP_NOTE in first
    assert record.instruction in first                             # from before the reset
    assert first.index(LOOP_NOTE) < first.index(NEW_TASK_MARKER)   # then the fresh task
    assert record.observations[0]["error"] is None
    assert run_outcome(record) == "loop reset, not right"


def test_resume_keeps_instruction_major_order_and_statuses(tmp_path):
    llm = ScriptedLLM(["wait_for_trigger()"] * 200)
    system = make_system("ours_no_learning", llm, tmp_path / "memory")
    ids = [t.id for t in tasks_for_split("sa_si")][:1]
    out = tmp_path / "out"
    first = run_protocol(system, out, splits=["sa_si"], runs=2, templates=ids, max_rounds=1)
    assert [r.round for r in first] == [1, 2]
    assert all(r.turn_statuses and r.turn_statuses[0] == ["waiting"] for r in first)
    (out / "runs" / "sa_si" / ids[0] / "run_02.json").unlink()
    calls = len(llm.calls)
    again = run_protocol(system, out, splits=["sa_si"], runs=2, templates=ids, max_rounds=1)
    assert [r.round for r in again] == [1, 2] and again[0].turn_statuses == first[0].turn_statuses
    assert 0 < len(llm.calls) - calls <= len(llm.calls) // 2 + 1


def test_a_failing_simulated_user_stops_the_evaluation_and_is_never_a_run_result(tmp_path,
                                                                                monkeypatch):
    """A defect of the harness (observer, simulated user) is not the system's failure: the
    run is not recorded (resuming after the fix runs it again) and the error says so, even
    when the system swallows the exception of its user callback (ours' agent does not)."""
    import pytest

    from llm_interaction_node.eval import harness
    from llm_interaction_node.eval.simulated_user import SimulatedUser

    def broken(self, obs):
        raise IndexError("tuple index out of range")
    monkeypatch.setattr(SimulatedUser, "respond", broken)
    llm = ScriptedLLM(["wait_for_trigger()"] * 20)
    system = make_system("ours_no_learning", llm, tmp_path / "memory")
    ids = [t.id for t in tasks_for_split("sa_si")][:1]
    out = tmp_path / "out"
    with pytest.raises(harness.HarnessError, match="simulated user failed after round 1"):
        run_protocol(system, out, splits=["sa_si"], runs=1, templates=ids, max_rounds=2)
    assert not list(out.glob("runs/**/*.json"))

    class Swallowing:                       # a system that catches everything its callback raises
        name, ledger = "swallow", system.ledger

        def run(self, world, instruction, next_utterance):
            try:
                next_utterance(harness.Round())
            except Exception:               # noqa: BLE001
                pass

        def episode_succeeded(self):
            pass
    with pytest.raises(harness.HarnessError):
        run_once(Swallowing(), "sa_si", ids[0], 1, seed=3)
