"""The cost of one reading (issue 60 item 1): the reader counts every model call a reading
makes (the reading and each check's question) with their tokens, and the reading bench
(bench/reading.py) sums them up per reading."""
from __future__ import annotations

from llm_interaction_node.bench.reading import cost_line, reading_cost
from llm_interaction_node.core.reading import Reader, ReadingVocabulary
from reading_support import ReadingScript

HOUSE = ReadingVocabulary.of(["coffee-cup_0", "tumbler_0"],
                             ["on_kitchen-counter_0", "on_dining-table_0", "handover_to_human"],
                             ["inFrontOf_kitchen-counter_0", "inFrontOf_dining-table_0",
                              "handover_to_human"], me=True)


class Counted(ReadingScript):
    """The reading stand-in, counting the calls it gets."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.n = 0

    def execute(self, request):
        self.n += 1
        return super().execute(request)


def test_a_reading_counts_each_model_call_it_made_with_its_tokens():
    said = "you are too slow, drive faster to the kitchen counter"
    script = Counted({said: "faster: dining table -> kitchen counter"})
    reader = Reader(script)
    reader.read(said, HOUSE, reply=True, moved=())
    cost = reader.costs[-1]
    assert script.n >= 3 and script.checked        # the reading, its checks' questions
    assert cost.calls == script.n
    assert cost.prompt_tokens == script.n == cost.evaluated_tokens    # 1 each, none cached
    assert cost.wall_s >= 0
    quiet = Counted({"stop": "stop"})
    reader = Reader(quiet, check_slots=False)
    reader.read("stop", HOUSE)
    assert reader.costs[-1].calls == quiet.n == 1


def test_the_bench_reports_the_cost_of_one_reading():
    records = [{"calls": c, "prompt_tokens": 100 * c, "evaluated_tokens": 10 * c,
                "generated_tokens": 5 + c, "wall_s": 0.5 * c} for c in (1, 1, 2, 4)]
    cost = reading_cost(records)
    assert cost["calls"] == {"median": 1.5, "mean": 2.0, "p90": 2, "max": 4}
    assert cost["wall_s"]["mean"] == 1.0 and cost["evaluated_tokens"]["max"] == 40
    assert cost["by_calls"] == {"1": 2, "2": 1, "4": 1}
    line = cost_line(cost)
    assert line.startswith("cost of one reading: model calls 1.5 median, 2 mean")
    assert "1 call(s): 2" in line
    # records of before the calls were counted: the fields they have
    old = reading_cost([{"evaluated_tokens": 3, "generated_tokens": 2, "wall_s": 1.0}])
    assert "calls" not in old and old["by_calls"] == {} and "evaluated 3 median" in cost_line(old)
