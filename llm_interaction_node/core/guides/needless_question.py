"""No question the request's words already answered (``agent.no_needless_question``): before
the robot's first move of a task, the grammar leaves ``ask`` out where every thing the
request's reading names is picked by the user's own words alone (a word of its spoken name
was said, and no other thing of the scene has all the words said of it).

Measured (section E with the development pool, aef6863 ... ab71ffb, 5 runs): in the drinks
world the model copied the seed example's question ``ask('I can bring you mango juice or
milk. Which one would you like?')`` after "I want to have some juice", "could I get some
juice?", "some mango juice would be nice" and even "could you bring me the sponge please"
(25 of 1,102 household first turns, every one that copy); the user's next words were taken as
the answer and the juice never came. Where the words leave a choice ("the juice" beside an
orange juice and a mango juice), or a lesson shown to the request asks, the model may ask.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from ..decoding.constraint import ConsoleVocabulary
from ..reading.asked_name import words_of
from ..reading.structure import named_things
from .state import Guidance, GuideState

ASK_FUNCTION = "ask"


def picked_by_words(name: str, said: str, things: Iterable[str],
                    spoken: Callable[[str], str]) -> bool:
    """Whether the words of ``said`` pick ``name`` alone among ``things``: some word of its
    spoken form was said, and no other thing's spoken form has every such word."""
    mine = words_of(spoken(name)) & words_of(said)
    return bool(mine) and not any(mine <= words_of(spoken(other))
                                  for other in things if other != name)


def answered_by_request(state: GuideState) -> bool:
    """The task's request (its first utterance, no reply yet) names only things its words
    pick alone, and the robot has not moved since."""
    if len(state.task_utterances) != 1 or not state.readings:
        return False
    names = named_things(state.readings[0])
    scene = state.request_scene           # the scene it was read in (no query per statement)
    if not names or scene is None or len(state.move_log()) > state.moves_seen:
        return False
    said = state.task_utterances[0]
    things = tuple(scene.vocabulary.things.values())
    return all(picked_by_words(n, said, things, scene.vocabulary.spoken) for n in names)


def _lesson_asks(state: GuideState) -> bool:
    lesson = state.nearest_lesson()
    return lesson is not None and f"{ASK_FUNCTION}(" in lesson


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance | None:
    if so_far.required is not None or _lesson_asks(state) or not answered_by_request(state):
        return None
    return Guidance(withheld=frozenset({ASK_FUNCTION}))
