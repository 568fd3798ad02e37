"""What a guide is given and what it returns: :class:`GuideState`, the agent as the guides
read it (its turn, task memory and reading helpers, read only but for the reading a change of
hands resolves), :class:`Guidance`, the restriction of the next console input that the guides
compose, and :class:`Guide`, one guide with the ``AgentConfig`` switch that turns it on.

The agent's settings and its turn are typed by what the guides read of them
(:class:`GuideSettings`, :class:`TurnSoFar`): the agent composes the guides, so no guide
imports the agent."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..console.session import ConsoleSession
    from ..decoding.claims import Report
    from ..decoding.constraint import ConsoleVocabulary
    from ..decoding.correction import Focus
    from ..decoding.lesson_follow import LessonPlan
    from ..reading import Reading
    from ..reading.select import Scene
    from ..transcript.errors import BlockedError


class GuideSettings(Protocol):
    """The ``agent`` settings a guide reads besides its switch (``core/agent/config.py``:
    ``AgentConfig`` has them; a switch is read by its name, :meth:`Guide.on`)."""

    restate_correction: bool                       # restate.py
    comments_in_a_row: int                         # comments.py
    repeat_actions_only: bool                      # repeat.py
    learn_on_request: bool                         # learn.py
    take_what_was_read: bool                       # as_read.py
    go_where_it_lies: bool                         # where_it_lies.py
    put_where_read: bool                           # put_as_read.py


class TurnSoFar(Protocol):
    """The turn as a guide reads it (``core/agent/limits.py``: ``TurnState`` has it)."""

    statements: list[str]                          # the turn's statements so far


class GuideState(Protocol):
    """The agent's state a guide reads (:class:`~..agent.loop.Agent` has it, under these
    public names; its other state stays private to it): its settings, console and turn, the
    task's memory (what the user said and how the model read it, the attempt the user
    answered and its moves, the learn request's hold, the last refusal, the program for an
    asked hand, what the console reported), the nearest lesson and the reading helpers. The
    one write is :meth:`keep_reply_reading` (the change of hands, ``hands.py``)."""

    config: GuideSettings
    console: ConsoleSession
    turn: TurnSoFar
    answered: list[str]                            # the attempt the user's last words answered
    attempt_moves: list[tuple[str, str | None]]    # its moves (the API's log)
    moves_seen: int                                # moves in the API's log before this turn
    task_utterances: list[str]                     # what the user said in this task
    readings: list[Reading | None]                 # ... as the model read it
    request_scene: Scene | None                    # the scene the task's request was said in
    learn_waits: bool                              # a request to learn waits for an approval
    learn_held: bool                               # ... held by this turn's latest reading
    learn_now: bool                                # this reply accepts what was asked
    restated: bool                                 # the turn's correction was restated
    blocked: BlockedError | None                   # the last input's refusal, if it was that
    turn_failed: bool                              # an input of this turn failed
    hand_change: LessonPlan | None                 # the code's program for an asked hand
    report: Report | None                          # what say() must keep to

    def nearest_lesson(self) -> str | None: ...

    def scene(self) -> Scene | None: ...

    def reply_reading(self) -> Reading | None: ...

    def keep_reply_reading(self, reading: Reading) -> None: ...

    def latest_reading(self) -> Reading | None: ...

    def move_log(self) -> list[tuple[str, str | None]]: ...

    def answers_an_attempt(self) -> bool: ...

    def wanted_targets(self) -> set[str]: ...


@dataclass(frozen=True)
class Guidance:
    """A restriction of the next console input: one guide's (what it does not restrict stays
    at the default) or the composition of those before (:meth:`then`). ``must_act`` is a
    decision the later guides read (the hand-back left out, the move now)."""

    focus: Focus | None = None                  # what the move function may take
    must_act: bool = False                      # the robot acts before it hands back
    withheld: frozenset[str] = frozenset()      # names left out of the grammar
    required: str | None = None                 # the statement the grammar forces
    move_now: bool = False                      # the input is a move within the focus
    comment_allowed: bool = True                # the input may be a comment only
    speech: tuple[str, ...] | None = None       # what say() may say (None: anything)
    speech_refusal: str = ""                    # ... and why other words are not run

    def then(self, later: Guidance | None) -> Guidance:
        """This composition followed by a later guide's restriction: a later focus and a later
        speech replace the earlier, withheld names add up, the first required statement
        stands, ``must_act`` and ``move_now`` once decided stay, a comment once refused
        stays refused."""
        if later is None:
            return self
        return Guidance(
            focus=later.focus if later.focus is not None else self.focus,
            must_act=self.must_act or later.must_act,
            withheld=self.withheld | later.withheld,
            required=self.required if self.required is not None else later.required,
            move_now=self.move_now or later.move_now,
            comment_allowed=self.comment_allowed and later.comment_allowed,
            speech=later.speech if later.speech is not None else self.speech,
            speech_refusal=later.speech_refusal if later.speech is not None
            else self.speech_refusal)


class Decide(Protocol):
    """A guide's decision: given the turn's state, the statement's vocabulary (its scene
    listing) and what the guides before it decided, its restriction or None."""

    def __call__(self, state: GuideState, vocabulary: ConsoleVocabulary,
                 so_far: Guidance) -> Guidance | None: ...


@dataclass(frozen=True)
class Guide:
    """One guide: its name, the ``AgentConfig`` field that turns it on (None: always on; it
    acts only on what the model read) and its decision."""

    name: str
    switch: str | None
    decide: Decide

    def on(self, config: GuideSettings) -> bool:
        return self.switch is None or bool(getattr(config, self.switch))

