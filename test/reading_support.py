"""A stand-in for the model that reads (core/reading): it answers a reading prompt with the
reading a test gives for the utterance in it, as the model would write it under the grammar.

Only the LLM is replaced: the reader, its prompt, the parser (which checks every name against
the scene) and whatever acts on the reading are the real ones."""
from __future__ import annotations

from llm_interaction_node.core.llm import Completion, Usage
from llm_interaction_node.core.llm.base import Backend
from llm_interaction_node.core.llm.config import LLMConfig
from llm_interaction_node.core.reading import Reader
from llm_interaction_node.core.reading.omission import QUESTIONS

SAID = "\nsaid: "
CHECK = "\nanswer:"
MEANT = "\n- do:"
ALONG = "- also:"
CALLED = "\ncalled:"
EDIT = "\nwhen:"
KIND = "\nkind: "


class ReadingScript(Backend):
    """``readings``: utterance -> its clauses (one string, clauses on lines, or a list), as the
    model writes them after ``reading:\\n-``; an utterance it was not given reads as
    ``default`` (None: the stand-in writes nothing, so there is no reading of it). ``asked``:
    the utterances it was asked to read, in order; ``prompts`` the whole prompts. Asked
    whether the user said a slot (core/reading/check.py), it answers from ``answers`` (claim
    -> yes / no), else yes to a slot and no to what a reading may have left out
    (core/reading/omission.py): the reading stands as given; ``checked``: the claims asked.
    Asked to go on with the one meant after ``- do:`` (omission.py), it writes ``meant``'s
    rest of the line for the utterance (default ``none -> none``); ``continued``: for which.
    Asked whether a reply speaks about every time (core/reading/lasting.py), it answers from
    ``lasting`` (utterance -> "this time" / "every time", default "this time": the reading
    stands); ``lasted``: the utterances asked. Asked to go on with an ``also`` line after
    ``- also:`` (asked_hand.py: a reply's "both" denied), it writes ``along``'s rest of the
    line for the utterance (default ``none with none``: the reading stands). Asked what people
    call a thing (core/reading/other_names.py), it answers from ``called`` (spoken form ->
    "a, b, c"; default the thing's own name three times: it calls nothing new); ``named``:
    the things asked. Asked to read a habit as an edit (core/reading/edit_reading.py), it
    writes ``edits``' form for the utterance (``edit_reading.form_text``; default nothing to
    learn); ``edited``: the utterances asked. Asked whether a thing is of a kind
    (core/reading/kind_of.py), it answers from ``kinds`` ((spoken thing, kind) -> yes / no;
    default no); ``kinded``: the pairs asked. Asked which kind of thing a habit's user spoke
    of, it answers from ``kind_said`` (utterance -> a word said; default anything)."""

    def __init__(self, readings: dict[str, str | list[str]], default: str | None = "other",
                 answers: dict[str, str] | None = None, meant: dict[str, str] | None = None,
                 lasting: dict[str, str] | None = None, along: dict[str, str] | None = None,
                 called: dict[str, str] | None = None, edits: dict[str, str] | None = None,
                 kinds: dict[tuple[str, str], str] | None = None,
                 kind_said: dict[str, str] | None = None):
        self.kind_said = dict(kind_said or {})
        self.edits = dict(edits or {})
        self.edited: list[str] = []
        self.kinds = dict(kinds or {})
        self.kinded: list[tuple[str, str]] = []
        self.called = dict(called or {})
        self.named: list[str] = []
        self.along = dict(along or {})
        self.along_prompts: list[str] = []
        self.lasting = dict(lasting or {})
        self.lasted: list[str] = []
        self.answers = dict(answers or {})
        self.meant = dict(meant or {})
        self.checked: list[str] = []
        self.continued: list[str] = []
        self.readings = dict(readings)
        self.default = default
        self.config = LLMConfig(model="reading-script")
        self.asked: list[str] = []
        self.prompts: list[str] = []

    def describe(self) -> str:
        return "scripted reader"

    def execute(self, request) -> Completion:
        if request.prompt.endswith("\nkind:"):      # the kind a habit's user spoke of
            said = request.prompt[request.prompt.rindex(SAID) + len(SAID):-len("\nkind:")]
            return Completion(" " + self.kind_said.get(said, "anything"),
                              Usage(prompt_tokens=1, calls=1))
        if request.prompt.endswith(EDIT):          # a habit read as an edit
            said = request.prompt[request.prompt.rindex(SAID) + len(SAID):-len(EDIT)]
            self.edited.append(said)
            return Completion(self.edits.get(said, " nothing to learn") + "\n\n",
                              Usage(prompt_tokens=1, calls=1))
        tail = request.prompt[request.prompt.rfind("\nthing: "):]
        if request.prompt.endswith(CHECK) and KIND in tail:    # is the thing of the kind?
            thing, kind = tail[len("\nthing: "):-len(CHECK)].split(KIND)
            self.kinded.append((thing, kind))
            return Completion(" " + self.kinds.get((thing, kind), "no"),
                              Usage(prompt_tokens=1, calls=1))
        if request.prompt.endswith(CALLED):        # what people call a thing
            thing = request.prompt[request.prompt.rindex("\nthing: ") + 8:-len(CALLED)]
            self.named.append(thing)
            names = self.called.get(thing, ", ".join([thing] * 3))
            return Completion(" " + names + "\n", Usage(prompt_tokens=1, calls=1))
        last = request.prompt[request.prompt.rfind(SAID):]
        if request.prompt.endswith(CHECK) and "\nclaim: " not in last:   # about every time?
            said = last[len(SAID):-len(CHECK)]
            self.lasted.append(said)
            return Completion(" " + self.lasting.get(said, "this time"),
                              Usage(prompt_tokens=1, calls=1))
        if request.prompt.endswith(CHECK):       # asked whether the user said a slot: yes
            self.checked.append(request.prompt.rsplit("\nclaim: ", 1)[1][:-len(CHECK)])
            answer = self.answers.get(self.checked[-1],
                                      "no" if self.checked[-1] in QUESTIONS else "yes")
            return Completion(" " + answer, Usage(prompt_tokens=1, calls=1))
        said = request.prompt[request.prompt.rindex(SAID) + len(SAID):].split("\n", 1)[0]
        if request.prompt.endswith(ALONG):       # an also line goes on
            self.continued.append(said)
            self.along_prompts.append(request.prompt)
            return Completion(" " + self.along.get(said, "none with none") + "\n\n",
                              Usage(prompt_tokens=1, calls=1))
        if request.prompt.endswith(MEANT):       # the move line of the one meant goes on
            self.continued.append(said)
            return Completion(" " + self.meant.get(said, "none -> none") + "\n\n",
                              Usage(prompt_tokens=1, calls=1))
        self.asked.append(said)
        self.prompts.append(request.prompt)
        clauses = self.readings.get(said, self.default)
        if clauses is None:
            return Completion("", Usage(prompt_tokens=1, calls=1))
        if isinstance(clauses, str):
            clauses = clauses.split("\n")
        return Completion(" " + "\n- ".join(clauses) + "\n\n", Usage(prompt_tokens=1, calls=1))

    def chat(self, messages, **kwargs):
        raise NotImplementedError("the reading stand-in only reads")


def scripted_reader(readings: dict[str, str | list[str]],
                    default: str | None = "other") -> Reader:
    """A :class:`Reader` over a :class:`ReadingScript`."""
    return Reader(ReadingScript(readings, default))


def reads(readings: dict[str, str | list[str]], vocabulary) -> callable:
    """A ``read(utterance)`` as the learner has it (``Learner.read``): the reading of each
    utterance given, parsed over ``vocabulary`` (a ReadingVocabulary); None for others."""
    from llm_interaction_node.core.reading import parse

    def read(utterance: str):
        clauses = readings.get(utterance)
        if clauses is None:
            return None
        if isinstance(clauses, str):
            clauses = clauses.split("\n")
        return parse(utterance, " " + "\n- ".join(clauses) + "\n\n", vocabulary)
    return read
