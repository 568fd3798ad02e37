"""The ``agent`` section of the settings (:class:`AgentConfig`): the interaction loop's limits
and retries, and the switches of the decoding guides (:mod:`..guides`), each a grammar
workaround for one measured habit of the small model."""
from __future__ import annotations

from dataclasses import dataclass

from ..console.builtins import SpeechBounds
from ..settings.config import check_section, setting


@dataclass
class AgentConfig:
    """The ``agent`` section of the settings: the interaction loop's limits and retries (the
    temperature and token limit are the LLM's: ``llm.config``)."""

    max_statements_per_turn: int = setting(15, "statement cap per user turn", minimum=1)
    loop_repeats: int = setting(3, "the same statement this often in a row is a loop", minimum=2)
    redo_cycle: int = setting(3, "a cycle of this many statements or more is a loop when done "
                              "twice in a row (0: only loop_repeats)", minimum=0)
    statement_timeout_s: float = setting(10.0, "generated code's own running time per statement "
                                         "(API calls such as skills excluded)", above=0.0)
    # what say()/ask() may send to the speech output (core/console/builtins.py: SpeechBounds,
    # where the defaults are argued); past a bound the call is refused with one error line
    speech_messages_per_statement: int = setting(
        SpeechBounds.statement_messages, "say()/ask() calls one statement may make; more are "
        "refused", minimum=1)
    speech_chars_per_statement: int = setting(
        SpeechBounds.statement_chars, "characters one statement may send to the speech output "
        "(~2 min of speech)", minimum=1)
    speech_messages_per_turn: int = setting(
        SpeechBounds.turn_messages, "say()/ask() calls one turn (until wait_for_trigger() "
        "returns) may make", minimum=1)
    speech_chars_per_turn: int = setting(
        SpeechBounds.turn_chars, "characters one turn may send to the speech output (~6 min "
        "of speech)", minimum=1)
    # empty answers: asked again this much hotter each time (reference: 0.1) until the
    # temperature would pass empty_temperature_max, then wait_for_trigger() stands in
    empty_temperature_step: float = setting(0.1, "temperature raise when the LLM returns nothing",
                                            minimum=0.0)
    empty_temperature_max: float = setting(1.0, "empty answers are asked again up to this "
                                           "temperature, then wait_for_trigger() stands in",
                                           minimum=0.0, maximum=2.0)
    idle_retries: int = setting(2, "a user turn answered with nothing but wait_for_trigger() is "
                                "asked again this often (at a raised temperature)", minimum=0)
    idle_temperature_step: float = setting(0.3, "temperature raise per idle retry", minimum=0.0)
    repeat_notes: int = setting(1, "a turn about to redo, statement for statement, the attempt "
                                "the user just answered gets a note in place of the statement "
                                "that completes the copy (a small model copies its last turn "
                                "after a correction), this often per turn; then it runs "
                                "(0: the reference's rule)", minimum=0)
    read_utterances: bool = setting(True, "the model reads each user utterance into a typed "
                                    "reading (core/reading: what is asked, which objects, where "
                                    "they go, a correction, a request to learn) that the "
                                    "correction focus, the learn gate and the lesson writers "
                                    "act on; off: nothing acts on the user's words (the "
                                    "reference method)")
    correction_focus: bool = setting(True, "in a turn that answers an attempt that moved "
                                     "something, the move function may only take the objects "
                                     "and targets the readings of the request and the reply "
                                     "mean, computed in the scene, never a move the attempt "
                                     "made (decoding: core/decoding/correction.py)")
    act_on_correction: bool = setting(True, "after a user reply to an attempt that the "
                                      "model read as a correction or a request (core/reading: "
                                      "missing, wrong object, wrong place, retry, do) the robot "
                                      "acts (an API call, a move) before the grammar lets it "
                                      "hand back with wait_for_trigger() (measured: the 1.5B "
                                      "model answered corrections by handing back, turn after "
                                      "turn, at any temperature)")
    move_after_correction: bool = setting(True, "where act_on_correction holds and the "
                                          "correction focus exists (the user's words name "
                                          "where things go), the first statement is a call "
                                          "of the move function within the focus (grammar "
                                          "only; measured: the 1.5B model defined look-alikes "
                                          "of the hand-back instead of acting)")
    unblock_first: bool = setting(True, "after a move refused because another object lies on "
                                  "the one named (BlockedError: 'cannot pick ...: ... lies on "
                                  "top of it'), the next input moves that object (grammar only; "
                                  "measured: the 1.5B model repeated the refused move up to 8 "
                                  "times in one interaction, the hint unread)")
    follow_lessons: bool = setting(True, "where the nearest lesson's request (in the request's "
                                   "names: memory.adapt_names) is the request at hand and its "
                                   "statements can run in this scene, the task's first turn "
                                   "is decoded to follow them, statement by statement, until "
                                   "one differs (grammar only; core/decoding/lesson_follow.py; "
                                   "measured: the 1.5B model did not copy such a lesson)")
    no_needless_question: bool = setting(True, "before the robot's first move of a task, "
                                         "ask() is left out where the request's words alone "
                                         "pick every thing its reading names (grammar only; "
                                         "core/guides/needless_question.py; measured: the "
                                         "1.5B model copied a seed example's 'mango juice or "
                                         "milk?' after 'I want to have some juice', section E)")
    take_what_was_read: bool = setting(True, "in a request's first attempt (an API with "
                                       "grasp), a grasp, move or hand-over of a thing the "
                                       "request's reading does not name and the user did not "
                                       "say takes the one named thing not taken yet (the code "
                                       "rewrites the call; core/guides/as_read.py; measured: "
                                       "'I'd like the glass' read as the tumbler, the 1.5B "
                                       "model grasped the coffee cup, issue 44)")
    go_where_it_lies: bool = setting(True, "in a request's first attempt (an API with grasp "
                                     "and list_object_locations), with both hands empty, a "
                                     "move_to a place where none of the things the reading "
                                     "names lies, while they all lie at one place, goes there "
                                     "(the code rewrites the move; core/guides/where_it_lies.py;"
                                     " measured: the 1.5B model drove to the kitchen counter "
                                     "for a spray on the long table, issue 44); in any turn, a "
                                     "grasp of a thing (a placing on a surface) where the robot "
                                     "does not stand drives there first (measured: 'can you "
                                     "grab the screwdriver for me' grasped from the room centre "
                                     "and gave up)")
    put_where_read: bool = setting(True, "in a request's first attempt (an API with "
                                   "place_object), while the robot holds a thing the reading "
                                   "sends to a named surface, a drive to the user goes to that "
                                   "surface and a hand-over or a placing elsewhere places it "
                                   "there (the code rewrites "
                                   "the call; core/guides/put_as_read.py; measured: 'carry the "
                                   "juice over to the dining table' handed to the user, issue 44);"
                                   " a one-call move (bring_object_to) of a thing the reading "
                                   "sends to a surface or to the user goes there")
    say_what_happened: bool = setting(True, "after the console reported that something did "
                                      "not happen (a learn call that stored nothing, a skill "
                                      "that failed, a name the robot does not know), say() may "
                                      "only say the console's own sentence about it, until the "
                                      "robot acts and that works or the user speaks (grammar "
                                      "and check; core/decoding/claims.py; measured: 'I will "
                                      "remember that.' right after 'I stored nothing', issue 44)")
    comments_in_a_row: int = setting(2, "after this many console inputs in a row that are "
                                     "comments only, the grammar lets the next input be a "
                                     "statement only (measured: the 1.5B model wrote 6 to 12 "
                                     "comments in a row after a failed move, variations on "
                                     "'failure' is a signal ..., until the statement cap; "
                                     "0: no limit)", minimum=0)
    restate_correction: bool = setting(False, "a turn that answers an attempt starts with a "
                                       "comment restating the user's words")
    repeat_actions_only: bool = setting(True, "the repeat note compares actions only: "
                                        "statements that only query (get_obj_names(), ...) "
                                        "are left out of both attempts")
    learn_on_request: bool = setting(True, "when the reading of the user's reply to an attempt "
                                     "asks to learn or remember (core/reading), the grammar "
                                     "lets the turn's first statement be learn_from_interaction() "
                                     "only (measured: the 1.5B model did not call it after 2 of "
                                     "6 such requests, and those lessons were lost); off: the "
                                     "LLM decides (the reference)")
    function_generation: bool = setting(True, "functions a statement calls that nobody defined "
                                        "are written by a second LLM prompt first "
                                        "(config/fgen.yaml)")
    # a console input the console refuses (echoed output, an object not in the scene: see
    # core/decoding/constraint.py) is noted in the transcript in its place ("# not run: why"), so
    # the model sees why, as it sees an error; > 0: first asked again this often, silently, at a
    # raised temperature (the same prompt tells a capable endpoint model nothing new)
    refused_retries: int = setting(0, "a console input the console refuses is asked again "
                                   "this often, silently, before a note takes its place",
                                   minimum=0)

    def __post_init__(self) -> None:
        check_section(self, "agent")

