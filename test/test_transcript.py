from llm_interaction_node.core.transcript.transcript import Entry, Transcript

TEXT = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'bring me the mug'}
>>> for name in ['a', 'b']:
...     print(name)
a
b
>>> x = 1
>>> ask('which one?')
'the red one'
>>> wait_for_trigger()"""


def test_parse_and_render_round_trip():
    t = Transcript.parse(TEXT)
    assert [e.source for e in t] == ["wait_for_trigger()",
                                     "for name in ['a', 'b']:\n    print(name)",
                                     "x = 1", "ask('which one?')", "wait_for_trigger()"]
    assert t.entries[1].output == "a\nb"
    assert t.entries[2].output == ""
    assert t.render() == TEXT


def test_user_utterances_come_from_wait_and_ask_outputs():
    assert Transcript.parse(TEXT).user_utterances() == ["bring me the mug", "the red one"]


def test_entry_calls_and_comments():
    assert Entry("x = wait_for_trigger()").calls("wait_for_trigger")
    assert not Entry("wait_for_trigger").calls("wait_for_trigger")
    assert not Entry("this is not python(").calls("ask")
    assert Entry("# just a note").is_comment
    assert not Entry("x = 1  # note").is_comment


def test_text_before_first_prompt_is_ignored():
    t = Transcript.parse("# a header comment\nsome prose\n>>> x = 1\n")
    assert [e.source for e in t] == ["x = 1"]
