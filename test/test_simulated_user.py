"""The simulated user follows the feedback guidelines (section B) from observations only."""
import re

import pytest

from llm_interaction_node.core.learning.gate import explain, is_learning_request
from llm_interaction_node.eval import tasks as T
from llm_interaction_node.eval.simulated_user import (HINTS, KINDS, LEARN, RETRY, SOLUTION,
                                                      SOLUTION_DESTROYED, Observation,
                                                      SimulatedUser, Utterance)

OK = Observation(success=True)
FAIL = Observation(success=False)
DESTROYED = Observation(success=False, initial_destroyed=True)


def drop(*names):
    return Observation(success=False, dropped=list(names))


def make(template_id="block_direction_of_bowl", split="sa_si", seed=0, user_seed=0, **kw):
    task = T.make_task(template_id, split, seed)
    pos = T.world_positions(T.make_world(task))
    return SimulatedUser(task, pos, seed=user_seed, **kw), task, pos


@pytest.fixture(scope="module")
def scenes():
    """One task + initial positions per template (both splits for seen templates)."""
    out = []
    for tid in T.TEMPLATE_IDS:
        for split in T.TEMPLATES[tid].splits:
            for seed in range(2):
                task = T.make_task(tid, split, seed)
                out.append((task, T.world_positions(T.make_world(task))))
    return out


def play(user, observations):
    user.first()
    return [user.respond(o) for o in observations]


# ---------------------------------------------------------------------------- the rules
def test_first_is_the_instruction():
    user, task, _ = make()
    u = user.first()
    assert u == Utterance(task.instruction, "instruction")


def test_success_at_first_try_ends_the_run():
    user, _, _ = make()
    assert play(user, [OK]) == [None]
    assert user.done and user.history == [(OK, None)]


def test_high_level_feedback_then_success_asks_to_learn_once():
    user, task, pos = make()
    fb, learn, after = play(user, [FAIL, OK, OK])
    assert fb.kind == "high_level"
    assert T.solution_text(task, pos) not in fb.text
    meant = T.block_in_direction(task.attributes["bowl"], task.attributes["direction"], pos)
    assert meant not in fb.text                         # high-level: does not name the block
    assert learn.kind == "learn"
    assert is_learning_request(learn.text)
    assert after is None
    assert [u.kind if u else None for _, u in user.history] == ["high_level", "learn", None]


def test_high_level_twice_then_the_solution_and_no_learning_afterwards():
    """Section B: high-level feedback first; "only if that fails multiple times" the solution."""
    user, task, pos = make()
    fb1, fb2, fb3, end = play(user, [FAIL, FAIL, FAIL, OK])
    assert fb1.kind == "high_level" and fb2.kind == "high_level" and fb1.text != fb2.text
    assert fb3.kind == "solution" and T.solution_text(task, pos) in fb3.text
    assert end is None


def test_success_after_two_high_level_hints_asks_to_learn():
    user, _, _ = make()
    out = play(user, [FAIL, FAIL, OK])
    assert [u.kind if u else None for u in out] == ["high_level", "high_level", "learn"]


def test_solution_is_repeated_on_further_failures():
    user, task, pos = make()
    out = play(user, [FAIL, FAIL, FAIL, FAIL, OK])
    assert [u.kind if u else None for u in out] == ["high_level", "high_level", "solution",
                                                    "solution", None]
    assert out[2].text != out[3].text                   # a different framing
    assert T.solution_text(task, pos) in out[3].text


def test_drop_gets_retry_feedback_naming_the_block():
    user, task, _ = make()
    block = task.blocks[0]
    u = play(user, [drop(block)])[0]
    assert u.kind == "retry_execution"
    assert block in u.text
    assert re.search(r"\b(again|repeat)\b", u.text, re.I)


def test_drop_naming_several_blocks():
    user, task, _ = make("blocks_in_bowl")
    u = play(user, [drop(task.blocks[0], task.blocks[1])])[0]
    assert task.blocks[0] in u.text and task.blocks[1] in u.text


def test_drop_then_success_does_not_ask_to_learn():
    user, task, _ = make()
    assert play(user, [drop(task.blocks[0]), OK]) == [
        user.history[0][1], None]
    assert user.history[0][1].kind == "retry_execution"
    user, task, _ = make(user_seed=3)
    out = play(user, [drop(task.blocks[0]), drop(task.blocks[1]), OK])
    assert [u.kind if u else None for u in out] == ["retry_execution", "retry_execution", None]


def test_drops_do_not_count_towards_the_solution():
    user, task, _ = make()
    out = play(user, [drop(task.blocks[0]), FAIL, drop(task.blocks[0]), OK])
    assert [u.kind if u else None for u in out] == [
        "retry_execution", "high_level", "retry_execution", "learn"]


def test_high_level_then_drop_then_success_still_asks_to_learn():
    """Not *all* earlier failures were execution errors, the solution was never given."""
    user, task, _ = make()
    out = play(user, [FAIL, drop(task.blocks[0]), OK])
    assert out[-1].kind == "learn"


def test_initial_destroyed_gets_the_solution_at_once():
    user, task, pos = make()
    u, end = play(user, [DESTROYED, OK])
    assert u.kind == "solution" and T.solution_text(task, pos) in u.text
    assert end is None                                  # solution was given: no learning


def test_drop_with_destroyed_initial_condition_gets_the_solution():
    user, task, pos = make()
    u = play(user, [Observation(False, dropped=[task.blocks[0]], initial_destroyed=True)])[0]
    assert u.kind == "solution"


def test_error_ends_the_run_by_default():
    user, _, _ = make()
    assert play(user, [Observation(False, error="gave up")]) == [None]
    assert user.end_reason == "error"


def test_error_as_ordinary_failure_when_asked():
    user, _, _ = make(end_on_error=False)
    u1, u2, u3, end = play(user, [Observation(False, error="exception"), FAIL, FAIL, OK])
    assert u1.kind == "high_level" and u2.kind == "high_level" and u3.kind == "solution"
    assert end is None


def test_max_rounds():
    user, _, _ = make(max_rounds=4)
    out = play(user, [FAIL, FAIL, FAIL, FAIL, FAIL])
    assert [u.kind if u else None for u in out] == ["high_level", "high_level", "solution",
                                                    None, None]
    assert user.end_reason == "max rounds"
    user, task, _ = make(max_rounds=2)
    out = play(user, [drop(task.blocks[0]), drop(task.blocks[0])])
    assert out[-1] is None


def test_unreachable_needed_block_ends_the_run():
    user, task, pos = make()
    meant = T.block_in_direction(task.attributes["bowl"], task.attributes["direction"], pos)
    other = next(b for b in task.blocks if b != meant)
    u = play(user, [Observation(False, dropped=[other], unreachable=[other])])[0]
    assert u is not None and u.kind == "retry_execution"     # an irrelevant block: go on
    assert user.respond(Observation(False, dropped=[meant], unreachable=[meant])) is None
    assert user.end_reason == "cannot progress"


def test_history_and_log():
    user, task, _ = make()
    play(user, [FAIL, OK, OK])
    log = user.log()
    assert [e["utterance"]["kind"] if e["utterance"] else None for e in log] == [
        "high_level", "learn", None]
    assert log[0]["observation"]["success"] is False


# ---------------------------------------------------------------------------- wording
def test_deterministic_for_a_seed():
    def run(seed):
        user, task, _ = make(user_seed=seed)
        out = play(user, [FAIL, drop(task.blocks[0]), FAIL, OK])
        return [u.text if u else None for u in out]
    assert run(5) == run(5)


def test_varies_across_seeds():
    seen = {k: set() for k in ("high_level", "retry_execution", "solution", "learn")}
    for seed in range(30):
        user, task, _ = make(user_seed=seed)
        for u in play(user, [FAIL, drop(task.blocks[0]), FAIL, FAIL]):
            seen[u.kind].add(u.text)
        user, _, _ = make(user_seed=seed)
        seen["learn"].add(play(user, [FAIL, OK])[1].text)
    assert all(len(v) >= 3 for v in seen.values()), {k: len(v) for k, v in seen.items()}


def test_at_least_three_phrasings_per_kind():
    for options in (LEARN, RETRY, SOLUTION, SOLUTION_DESTROYED, *HINTS.values()):
        assert len(set(options)) >= 3
    assert set(HINTS) == set(T.TEMPLATE_IDS)


def _all_utterances(task, pos, user_seed):
    out = []
    scripts = [[FAIL, drop(*task.blocks[:1]), FAIL, drop(*task.blocks[:2]), DESTROYED],
               [Observation(False, error="gave up"), OK], [DESTROYED], [FAIL, OK]]
    for script in scripts:
        user = SimulatedUser(task, pos, seed=user_seed, end_on_error=False)
        out.append(user.first())
        out += [u for u in (user.respond(o) for o in script) if u is not None]
    user = SimulatedUser(task, None, seed=user_seed)     # position-free solution text
    user.first()
    out += [u for u in (user.respond(o) for o in [FAIL, FAIL]) if u is not None]
    return out


def test_only_learn_requests_pass_the_gate(scenes):
    kinds = set()
    for task, pos in scenes:
        for user_seed in range(4):
            for u in _all_utterances(task, pos, user_seed):
                kinds.add(u.kind)
                assert u.kind in KINDS
                if u.kind == "learn":
                    d = explain(u.text)
                    assert d.is_request and d.rule == "explicit", u.text
                else:
                    assert not is_learning_request(u.text), u.text
    assert kinds == set(KINDS)
    for text in LEARN:
        assert explain(text).rule == "explicit" and is_learning_request(text)


CODE = re.compile(r"[()_\[\]{}]|\bdef |\bcode\b|\bfunction|\bpython\b|\bvariable|\bline \d|"
                  r"\bnp\b|put_first|get_obj|denormalize", re.I)


def test_feedback_never_looks_like_code(scenes):
    for task, pos in scenes:
        for user_seed in range(4):
            for u in _all_utterances(task, pos, user_seed):
                assert not CODE.search(u.text), u.text
                assert u.text == u.text.strip() and "  " not in u.text


def test_high_level_hints_are_not_the_solution(scenes):
    for task, pos in scenes:
        sol = T.solution_text(task, pos)
        for user_seed in range(4):
            user = SimulatedUser(task, pos, seed=user_seed)
            user.first()
            u = user.respond(FAIL)
            assert u.kind == "high_level" and sol not in u.text
