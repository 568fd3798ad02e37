"""How a run ended, in the terms of the learning loop (eval/report.py)."""
from llm_interaction_node.eval.harness import RunRecord
from llm_interaction_node.eval.report import OUTCOMES, outcomes_markdown, run_outcome


def record(success, first, kinds, errors=(), learning=()):
    r = RunRecord("ours", "sa_si", "blocks_in_bowl", 1, 0, "put the blocks in the red bowl")
    r.success, r.first_success = success, first
    r.utterances = [[k, f"utterance {i}"] for i, k in enumerate(kinds)]
    r.errors, r.learning = list(errors), list(learning)
    return r


def test_run_outcomes():
    assert run_outcome(record(True, 0, ["instruction"])) == "right first time"
    assert run_outcome(record(True, 2, ["instruction", "high_level", "high_level", "learn"],
                              learning=[{"status": "learned"}])) == "right after feedback"
    # the solution was given before the first success: the user does not ask to learn
    assert run_outcome(record(True, 3, ["instruction", "high_level", "high_level", "solution"])) \
        == "right after the solution"
    # a later solution does not matter for a success before it
    assert run_outcome(record(True, 1, ["instruction", "high_level", "solution"])) \
        == "right after feedback"
    assert run_outcome(record(False, None, ["instruction"] + ["high_level"] * 5)) \
        == "not right in time"


def typed(statuses, errors=(), kinds=("instruction", "high_level")):
    r = record(False, None, list(kinds), errors)
    r.turn_statuses = [list(s) for s in statuses]
    return r


def test_failed_runs_are_classified_from_the_typed_turn_statuses():
    # the error text says nothing: the statuses decide
    assert run_outcome(typed([["waiting"], ["statement_cap"]], ["x"])) == "error: statement cap"
    assert run_outcome(typed([["waiting"], ["error"]], ["x"])) == "error: other"
    # a loop reset hands back normally: the run went on and did not end right
    assert run_outcome(typed([["loop_reset"], ["waiting"]])) == "loop reset, not right"
    assert run_outcome(typed([["waiting"], ["waiting"]])) == "not right in time"
    # a text that looks like a cap or a reset does not matter once statuses are there
    assert run_outcome(typed([["waiting"], ["error"]],
                             ["reset: statements in one turn"])) == "error: other"
    # a baseline's round: no statuses, an error
    assert run_outcome(typed([[], []], ["NameError: name 'objects' is not defined"])) \
        == "error: other"


def test_records_without_statuses_are_classified_from_their_error_text():
    """Runs written before the statuses were kept (docs/eval/embedded)."""
    cap = "error: the limit of 15 statements in one turn was reached"
    assert run_outcome(record(False, None, ["instruction"], [cap])) == "error: statement cap"
    assert run_outcome(record(False, None, ["instruction"], ["reset: the same statement was "
                                                             "repeated again"])) \
        == "loop reset, not right"
    assert run_outcome(record(False, None, ["instruction"], ["error: too many errors"])) \
        == "error: other"


def test_outcome_table_counts_learn_requests_and_calls():
    records = [record(True, 0, ["instruction"]),
               record(True, 1, ["instruction", "high_level", "learn"],
                      learning=[{"status": "learned"}, {"status": "refused"}])]
    lines = outcomes_markdown({"ours": records})
    header = [c.strip() for c in lines[2].strip("|").split("|")]
    row = dict(zip(header, [c.strip() for c in lines[4].strip("|").split("|")], strict=False))
    assert [row[o] for o in OUTCOMES] == ["1", "1", "0", "0", "0", "0", "0"]
    assert row["asked to learn"] == "1" and row["learn calls: status"] == "learned 1, refused 1"


def run(round_, success, first, kinds, learning=(), retrieved=()):
    r = record(success, first, kinds, learning=learning)
    r.round, r.retrieved = round_, list(retrieved)
    return r


def test_loop_breaks_say_which_stage_of_the_learning_loop_did_not_happen():
    from llm_interaction_node.eval.report import loop_breaks, loop_breaks_markdown
    learned = [{"status": "learned", "example_id": "ex1"}]
    records = [
        run(1, False, None, ["instruction", "high_level", "high_level"]),  # never solved
        run(
            2,
            True,
            1,
            ["instruction", "high_level", "learn"],
            [{"status": "replay_failed", "example_id": None}],
        ),  # rewrite failed
        run(3, True, 1, ["instruction", "high_level", "learn"], learned),  # stored
        run(4, True, 2, ["instruction", "high_level", "high_level"]),  # lesson missed
        run(5, True, 1, ["instruction", "high_level"], retrieved=["ex1"]),  # there, ignored
        run(6, True, 0, ["instruction"], retrieved=["ex1", "seedless"]),  # used
    ]
    verdicts = [row["verdict"] for row in loop_breaks(records)]
    assert verdicts == ["never asked", "bad rewrite (replay failed)", "stored",
                        "not retrieved; never asked", "retrieved but ignored; never asked",
                        "used: retrieved, right first time"]
    rows = loop_breaks(records)
    assert [r["lessons_before"] for r in rows] == [0, 0, 0, 1, 1, 1]
    assert rows[5]["lessons_retrieved"] == 1                  # only earlier lessons count
    text = "\n".join(loop_breaks_markdown(records))
    assert "| blocks_in_bowl | 6 | right first time |" in text and "| never asked | 3 |" in text


def test_a_rewrite_refused_for_its_shape_is_a_bad_rewrite_of_its_own():
    from llm_interaction_node.eval.report import LOOP_VERDICTS, loop_breaks
    records = [run(1, True, 1, ["instruction", "high_level", "learn"],
                   [{"status": "wrong_shape", "example_id": None}])]
    assert [row["verdict"] for row in loop_breaks(records)] == ["bad rewrite (wrong shape)"]
    assert "bad rewrite (wrong shape)" in LOOP_VERDICTS
