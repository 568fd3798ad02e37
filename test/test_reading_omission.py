"""What a reading may have left out (core/reading/omission.py): after ``wrong object`` alone,
the model is asked whether the user said which one they wanted; where it says yes, it writes
that one's move line, which the reading gains. The model is the reading stand-in; the
question, the continued prompt, its grammar and what is kept are real."""
from __future__ import annotations

from llm_interaction_node.core.reading import Reader, ReadingVocabulary, parse
from llm_interaction_node.core.reading.grammar import move_rest_gbnf
from llm_interaction_node.core.reading.omission import NAMED, OmissionCheck, asks_named
from reading_support import ReadingScript

TABLE = ReadingVocabulary.of(["red block", "blue block", "yellow block", "green bowl"], [],
                             show_places=False, movable=lambda name: name.endswith(" block"))


def read(text: str):
    return parse("(said)", " " + text.replace("\n", "\n- ") + "\n\n", TABLE)


def test_only_a_wrong_object_without_a_move_line_is_asked_about():
    assert asks_named(read("wrong object"), reply=True)
    assert not asks_named(read("wrong object"), reply=False)
    assert not asks_named(read("wrong object\ndo: red block -> none"), reply=True)
    assert not asks_named(read("do: red block -> green bowl"), reply=True)
    assert not asks_named(read("done"), reply=True)


def test_a_yes_continues_the_reading_with_the_one_meant():
    said = "that's the yellow block, not the blue block"
    script = ReadingScript({said: "wrong object"}, answers={NAMED: "yes"},
                           meant={said: "blue block -> none"})
    reading = Reader(script).read(said, TABLE, reply=True, moved=["yellow block"])
    assert reading.render() == "wrong object\ndo: blue block -> none"
    assert script.checked == [NAMED] and script.continued == [said]
    # the model went on from what it wrote, under the grammar of one move line
    prompt = script.prompts[-1]
    assert prompt.endswith("reading:\n-")          # the reading's own prompt came first


def test_a_no_or_a_line_naming_nothing_new_leaves_wrong_object_alone():
    other = "no, the other one"
    script = ReadingScript({other: "wrong object"})              # the stand-in answers no
    assert Reader(script).read(other, TABLE, reply=True, moved=["red block"]).render() == \
        "wrong object"
    assert script.checked == [NAMED] and script.continued == []
    # a yes, then "none", or the very thing the attempt moved: nothing is added
    for meant in ("none -> none", "red block -> none"):
        script = ReadingScript({other: "wrong object"}, answers={NAMED: "yes"},
                               meant={other: meant})
        assert Reader(script).read(other, TABLE, reply=True, moved=["red block"]).render() \
            == "wrong object", meant
        assert script.continued == [other]


def test_the_check_keeps_what_the_continuation_returns_and_asks_once():
    asked = []

    def ask(prompt, grammar):
        asked.append(prompt.rsplit("\nclaim: ", 1)[1])
        return " yes"

    meant = read("wrong object\ndo: the block number 2 from the left -> none").moves[0]
    check = OmissionCheck(ask, lambda: meant)
    got = check(read("wrong object"), "the second from the left, not that one", reply=True)
    assert got.render() == "wrong object\ndo: the block number 2 from the left -> none"
    assert asked == [NAMED + "\nanswer:"]
    assert check(read("done"), "thanks", reply=True).render() == "done" and len(asked) == 1


def test_the_grammar_of_the_one_meant_is_one_move_line():
    grammar = move_rest_gbnf(TABLE)
    root = grammar.splitlines()[0]
    assert root == 'root ::= " " objects " -> " where "\\n\\n"'
    assert '"blue block"' in grammar and "mover ::=" in grammar
