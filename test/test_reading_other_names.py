"""What people call the scene's things (core/reading/other_names.py), asked of the model where
a request's reading named a thing in no word said (core/reading/asked_name.py): one thing
called by the words said takes the reading's place, several or none leave it to the yes or no
question. The model is the reading stand-in; the prompt, grammar, parsing, matching and what
the reading becomes are real."""
from __future__ import annotations

from llm_interaction_node.core.reading import Reader, ReadingVocabulary, other_names
from llm_interaction_node.core.reading.other_names import OtherNames, called_by, parse
from reading_support import ReadingScript

HOME = ReadingVocabulary.of(["coffee-cup_0", "tumbler_0", "mango-juice_0", "kitchen-sponge_0",
                             "screwdriver_0"],
                            ["on_kitchen-counter_0", "handover_to_human"],
                            ["inFrontOf_kitchen-counter_0", "handover_to_human"], me=True)
CALLED = {"tumbler": "glass, bottle, cup", "coffee cup": "cup, teacup, coffee mug",
          "mango juice": "juice, drink, smoothie", "screwdriver": "screw, driver, wrench",
          "kitchen sponge": "sponge, dish sponge, dish scrubber"}
CUP = "the user names the coffee cup"


def read(said, reading, called=CALLED, answers=None):
    script = ReadingScript({said: reading}, answers=answers or {}, called=called)
    got = Reader(script).read(said, HOME)
    return got.render(HOME.spoken), script


def test_the_thing_the_words_call_takes_the_place_of_the_one_read():
    got, script = read("I'd like the glass", "do: coffee cup -> me")
    assert got == "do: tumbler -> me"
    assert CUP not in script.checked                     # no question: the names decided
    assert "tumbler" in script.named


def test_the_thing_read_is_kept_without_a_question_where_the_words_call_it():
    got, script = read("could I have the glass?", "do: tumbler -> me",
                       answers={"the user names the tumbler": "no"})
    assert got == "do: tumbler -> me"
    assert not [c for c in script.checked if c.startswith("the user names")]


def test_a_name_s_head_word_calls_where_no_whole_name_is_said():
    got, _ = read("bring me the scrubber", "do: screwdriver -> me")
    assert got == "do: kitchen sponge -> me"


def test_two_things_called_alike_leave_it_to_the_question():
    called = {**CALLED, "mango juice": "juice, glass, drink"}
    got, script = read("I'd like the glass", "do: coffee cup -> me", called, {CUP: "no"})
    assert got == "do: none -> me" and CUP in script.checked
    got, _ = read("I'd like the glass", "do: coffee cup -> me", called)      # answered yes
    assert got == "do: coffee cup -> me"


def test_no_thing_called_leaves_it_to_the_question():
    got, script = read("pass me the H2O", "do: mango juice -> me",
                       answers={"the user names the mango juice": "no"})
    assert got == "do: none -> me"
    assert "the user names the mango juice" in script.checked


def test_names_are_asked_only_where_a_thing_is_named_in_no_word_said_and_once_each():
    script = ReadingScript({"bring me the juice": "do: mango juice -> me",
                            "I'd like the glass": "do: coffee cup -> me",
                            "get me the glass": "do: coffee cup -> me"}, called=CALLED)
    reader = Reader(script)
    reader.read("bring me the juice", HOME)
    assert script.named == []                            # its name was said: nothing asked
    reader.read("I'd like the glass", HOME)
    asked = list(script.named)
    # every movable thing with no word said, once; the coffee cup was read, asked as well
    assert sorted(asked) == sorted(HOME.movers)
    assert reader.read("get me the glass", HOME).render(HOME.spoken) == "do: tumbler -> me"
    assert script.named == asked                         # kept: not asked again


def test_a_thing_said_among_others_stays_and_the_unsaid_one_is_replaced():
    got, _ = read("the juice and the glass, please", "do: mango juice and coffee cup -> me")
    assert got == "do: mango juice and tumbler -> me"


def test_a_reply_is_looked_at_but_never_asked():
    script = ReadingScript({"You forgot the glass.": "do: coffee cup -> me",
                            "no, the H2O": "wrong object\ndo: coffee cup -> none"},
                           called=CALLED, answers={CUP: "no"})
    reader = Reader(script)
    got = reader.read("You forgot the glass.", HOME, reply=True, moved=["mango-juice_0"])
    assert got.render(HOME.spoken) == "do: tumbler -> me"
    assert "tumbler" in script.named
    got = reader.read("no, the H2O", HOME, reply=True, moved=["tumbler_0"])
    assert "do: coffee cup" in got.render(HOME.spoken)      # nothing called: it stands
    assert CUP not in script.checked


def test_the_line_parses_into_names_of_content_words():
    assert parse(" glass, bottle, cup\n") == ("glass", "bottle", "cup")
    assert parse(" the thing, Dish  Scrubber, glass") == ("dish scrubber", "glass")
    assert parse("") == ()


def test_matching_whole_names_before_head_words():
    names = {"tumbler": ("glass",), "empty mug": ("empty glass",), "sponge": ("dish scrubber",)}.get
    assert called_by("I'd like the glass", ["tumbler", "empty mug", "sponge"], names) == \
        ["tumbler"]
    assert called_by("an empty glass", ["tumbler", "empty mug"], names) == \
        ["tumbler", "empty mug"]
    assert called_by("the scrubber", ["tumbler", "sponge"], names) == ["sponge"]
    assert called_by("the rag", ["tumbler", "sponge"], names) == []


def test_a_failed_answer_is_not_kept():
    calls = []

    def ask(prompt, grammar):
        calls.append(prompt)
        if len(calls) == 1:
            raise RuntimeError("the model failed")
        return " glass, bottle, cup\n"
    names = OtherNames(ask)
    try:
        names.of("tumbler")
    except RuntimeError:
        pass
    assert names.kept() == {}
    assert names.of("tumbler") == ("glass", "bottle", "cup") and len(calls) == 2
    assert calls[-1] == other_names.build("tumbler")
    assert calls[-1].endswith("thing: tumbler\ncalled:")


def test_the_prompt_s_examples_are_our_own_and_three_names_each():
    header, examples = other_names.load()
    assert header and len(examples) >= 4
    for thing, called in examples:
        assert len(parse(called)) == 3, thing
    assert other_names.prefix() in other_names.build("tumbler")


def test_the_embedded_model_s_names_are_kept_on_disk_for_the_next_process(tmp_path):
    """A store beside the model's saved states: a second process (a new OtherNames) asks
    nothing for a thing asked before; another model file or prompt is another store; an
    endpoint (no saved states) keeps nothing on disk; a broken store is asked again."""
    from types import SimpleNamespace

    from llm_interaction_node.core.reading.other_names import store_for

    model = SimpleNamespace(disk=SimpleNamespace(directory=tmp_path, fingerprint="abc123"))
    store = store_for(model)
    assert store.parent == tmp_path and store.name.startswith("abc123-names-")
    assert store_for(SimpleNamespace(disk=SimpleNamespace(directory=tmp_path,
                                                          fingerprint="other"))) != store
    assert store_for(SimpleNamespace()) is None                  # an endpoint
    calls = []

    def ask(prompt, grammar):
        calls.append(prompt)
        return " glass, bottle, cup\n"
    assert OtherNames(ask, store=store).of("tumbler") == ("glass", "bottle", "cup")
    assert store.exists() and len(calls) == 1

    def no_model(prompt, grammar):
        raise AssertionError("asked again")
    later = OtherNames(no_model, store=store)
    assert later.of("tumbler") == ("glass", "bottle", "cup")
    assert later.kept() == {"tumbler": ("glass", "bottle", "cup")}
    store.write_text("{not json")
    assert OtherNames(ask, store=store).of("tumbler") == ("glass", "bottle", "cup")
    assert len(calls) == 2
