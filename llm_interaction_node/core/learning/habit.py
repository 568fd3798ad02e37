"""A habit taught in words, kept as an edit of the program (core/reading/edit.py).

Where a request to learn (or a lasting instruction: "from now on", "never", "whenever") says
nothing the named lesson kinds act on (a move, what comes along, asking first, a hand, a speed),
the model reads the instruction into one edit (:class:`~..reading.edit_reading.EditReader`):
"tell me when you are done" -> ``after the request: say("I am done.")``; "never put glasses on
the windowsill" -> ``never place_object of every glass at the windowsill``. Then the code:

1. binds the edit to the anchor: the thing of the attempt's anchor call becomes a parameter
   where the condition is a kind or any thing (:func:`~..reading.edit.bound`);
2. applies it to the accepted attempt (the edited program is the lesson's transcript, shown
   by ``llm-interaction memory show``) and has the robot do now what the edit adds to what it
   did (it says it now, drives there now), so the user sees it understood;
3. replays the edited program in the simulated world from the interaction's start; a program
   that fails there is not stored, and the robot says so plainly;
4. stores the lesson (source ``habit``, its edit as JSON); later requests apply it before each
   statement runs (:mod:`..guides.habits`), never as an example the model copies.

A reading the code cannot apply (no edit read, a thing or place the scene lacks, an anchor the
attempt never called where the edit needs one) stores nothing and says so: nothing is
promised that is not kept.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from ..reading.attempt import oriented
from ..reading.edit import (
    ANY,
    HANDOVER_LOCATION,
    REQUEST,
    Call,
    Condition,
    Edit,
    Facts,
    apply,
    at_request_end,
    bound,
    holds,
    place_of,
    written,
)
from ..reading.structure import names_said
from ..transcript.statements import bare_call
from ..transcript.transcript import Entry, Transcript
from .final import _FinalTry
from .final_forms import final_parts
from .hand import asked_hand
from .outcome import LearnOutcome, LearnStatus, Lesson
from .route import FASTER, SLOWER
from .taught_place import places_said
from .transcripts import move_key

if TYPE_CHECKING:
    from .mode import ModeLearner

log = logging.getLogger(__name__)

# the reading kinds that are no habit: a correction of the choice, a retry, forgetting. Every
# other request to learn is read as an edit first (measured, issue 59, held-out habits: "every
# time you bring me something to drink, say cheers" was read as ``also: coffee cup with mango
# juice`` and the named path brought the cup along). The form decides where a named kind's
# path and the form agree (:func:`named_path_takes`).
NOT_HABITS = ("retry", "wrong object", "forget")
SAY_NO_EDIT = ("Sorry, I could not turn that into a rule I can keep, so I did not store it. "
               "Could you say it another way?")
SAY_NO_ANCHOR = ("Sorry, I did not {act} this time, so I cannot tell where that rule goes. "
                 "I did not store it.")
SAY_REPLAY = ("Sorry, when I tried that rule in my simulation it did not work, so I did not "
              "store it.")
SAY_STORED = "Understood. From now on, {words}."
ANSWER = "yes"        # the user's answer to a question a habit adds, in its stored program

ReadEdit = Callable[[str, str], Edit | None]     # (what the user said, what the robot did)


def asks_a_change(reading) -> bool:
    """The reading says something beyond approval and a request to learn (``other``: no kind
    names it) and no approval (``done``): the user asks for a change of how things are
    done."""
    kinds = set(reading.kinds) if reading is not None else set()
    return "other" in kinds and "done" not in kinds


def wants_habit(reading) -> bool:
    """A learn request's reading that may teach a habit: not a correction, a retry or a
    request to forget."""
    return reading is not None and not set(reading.kinds) & set(NOT_HABITS)


def named_path_takes(edit: Edit | None, reading) -> bool:
    """Where a named kind's measured path is the lesson: a speed on a route that names no end
    to drive to and no speed the form reads (learning/route.py); a place for a thing (the
    reading sends a named thing to a named place: learning/taught_place.py, a ``final``
    lesson) unless the form's edit puts that thing there (measured, five-kind bench at seed
    28755: "from now on, put the water on the long table" was read by the form as "never put
    down any water on the long table"). A hand, asking first, what comes along and a speed to
    a place are rows of :data:`FROM_READING`; whatever else the form reads is its edit."""
    kinds = set(reading.kinds) if reading is not None else set()
    places = places_said(reading)
    if places and not (edit is not None and _puts_there(edit, places)):
        return True
    # a speed on a route whose end the reading names is a row (:func:`speed_edit`); the named
    # route path keeps a speed with no end named ("you can go faster from the sofa")
    return bool(kinds & {"faster", "slower"}) and speed_edit(reading) is None and not (
        edit is not None and edit.op == "set" and edit.argument == "speed_factor")


def _puts_there(edit: Edit, places: dict[str, str]) -> bool:
    """The edit adds a move of a thing of ``places`` to its place there."""
    calls = [Call.of(s) for s in edit.statements] if edit.op in ("before", "after",
                                                                  "instead") else []
    return any(c is not None and c.thing in places and c.place is not None
               and c.place == place_of(places[c.thing]) for c in calls)


# the named lesson kinds that are rows of data in the edit shape: a reading's clause kind ->
# the edit it teaches for the thing it is about (and the reading). "Always ask me before you
# take the juice" (``ask first``) is a question before the grasp of the juice; "use your left
# hand for the juice from now on" (``hand: left``) sets the hand of its grasp (a one-call
# bring's too); where the model's form reads the habit (a kind: "any drink"), its edit is
# taken instead.
FROM_READING: dict[str, Callable[[str, object], Edit | None]] = {
    "ask first": lambda thing, reading: Edit("before", Condition("grasp", thing),
                                             ('ask("May I take the {said}?")',), taught=thing),
    "hand": lambda thing, reading: None if asked_hand(reading) is None else Edit(
        "set", Condition("grasp", thing), argument="hand", value=asked_hand(reading),
        taught=thing),
}


def speed_edit(reading, said: str = "") -> Edit | None:
    """"The route from the kitchen counter to the coffee table is safe, you can go faster
    there": ``set speed_factor`` on every drive to the route's end (a one-call bring there
    too: measured, five-kind bench at seed 18703, the named route path wrote the speed only
    into ``move_to`` and stored nothing for a bring). None where the reading asks no speed or
    names no end to drive to (the named route path then: learning/route.py)."""
    asked = reading.speed if reading is not None else None
    end = (asked.route or (None, None))[1] if asked is not None else None
    if end is None:
        return None
    factor = FASTER if asked.kind == "faster" else SLOWER
    return Edit("set", Condition("move_to", ANY, end), argument="speed_factor", value=factor,
                said=said)


def companions(reading) -> list[tuple[str, str]]:
    """``(what comes along, what it comes with)`` of each ``also`` clause that names both."""
    return [(thing, with_) for clause in (reading.of_kind("also") if reading else ())
            for thing in names_said(clause.objects) for with_ in names_said(clause.companion)
            if thing != with_]


def also_edit(reading, ends: dict[str, str], write_move: Callable[[str, str], str] | None,
              said: str = "") -> Edit | None:
    """"Whenever you bring me the milk, also bring me the juice": after the hand-over (or the
    placing) of what the ``also`` clause says it comes with, the move of the other thing to
    where that one went (the API's move function, ``write_move``); the clause the right way
    round by what the robot moved (``ends``: measured, "bring the sponge along with the
    cleaning spray" after the spray was brought was read the other way round). None where the
    reading holds no ``also`` with two things."""
    pairs = companions(oriented(reading, ends))
    if not pairs:
        return None
    thing, with_ = pairs[0]
    to = ends.get(with_) or HANDOVER_LOCATION
    skill = "handover_object_to_human" if to == HANDOVER_LOCATION else "place_object"
    move = write_move(thing, to) if write_move is not None else \
        f"bring_object_to({thing!r}, {to!r})"
    return Edit("after", Condition(skill, with_), (move,), said=said, taught=with_)


def chosen(form: Edit | None, row: Edit | None, facts: Facts,
           named: tuple[str, ...] = ()) -> Edit | None:
    """The lesson's edit, of the form the model filled and the row of a named kind the clause
    reading says (:func:`edit_of_reading`). The form where it agrees with the row (the same
    change at the same skill; it may say more: a kind of thing) or where no kind is read; the
    row where the form reads nothing or something else, or reads a kind where the clause
    reading names the thing (``named``) (measured, five-kind bench at seed
    28755: the form read four of the five kinds as other edits - a drive, a refusal - where
    the clause reading had them right). What comes along is the row only where the form goes
    for that thing (:func:`_goes_for`): the clause reader read ``also`` for two held-out habits
    of other kinds ("say cheers", "move to the room center") that the form read right."""
    if row is None or form is None:
        return form or row
    if row.op == "after":                   # the only row that adds a call: what comes along
        return row if _goes_for(form, row, facts) else form
    agrees = form.op == row.op and form.when.skill == row.when.skill and \
        form.argument == row.argument
    if agrees and form.when.general and row.when.thing in named:
        # the clause reading names the thing (measured, five-kind bench at seed 62203:
        # "always ask me before you take the glass" read by the form for every glass, and the
        # sponge was judged a glass)
        return row
    return form if agrees else row


def _goes_for(edit: Edit, along: Edit, facts: Facts) -> bool:
    """The form's edit goes for what the ``also`` reading says comes along: it is about that
    thing, moves it, or adds a drive to where it lies or to the handover place (measured,
    five-kind bench: "whenever you bring me the juice, also bring me the cup" read by the form
    as a drive to the kitchen counter, where the cup lies (seed 28755), "... also bring me
    the sponge" as a drive to the handover place (18703), "... also bring me the remote" as a
    drive after the remote's hand-over (28755)). A form that speaks, or drives elsewhere,
    stands (held-out: "say cheers" and "move to the room center" were read ``also`` too)."""
    thing = Call.of(along.statements[0]).thing
    added = Call.of(edit.statements[0]) if edit.op in ("before", "after") and \
        edit.statements else None
    if thing is None or added is None:
        return False
    if edit.when.thing == thing or added.thing == thing:
        return True
    return added.skill == "move_to" and added.place is not None and added.place in (
        place_of(facts.lies(thing)), HANDOVER_LOCATION)


def edit_of_reading(reading, attempt: list[Entry], ends: dict[str, str],
                    said: str = "", write_move: Callable[[str, str], str] | None = None
                    ) -> Edit | None:
    """The edit a named kind's clause in ``reading`` teaches (:data:`FROM_READING`; ``also``:
    :func:`also_edit`), for the thing it is about: the first the reading names, else the last
    the attempt moved (the API's move log, ``ends``, else its one-call moves); None where it
    holds none of them."""
    if reading is not None and reading.of_kind("also"):
        return also_edit(reading, ends, write_move, said)
    if reading is not None and reading.speed is not None:
        return speed_edit(reading, said)
    kinds = [k for k in (reading.kinds if reading is not None else ()) if k in FROM_READING]
    if not kinds:
        return None
    named = [n for c in reading.clauses for n in names_said(c.objects)]
    moved = list(ends) or [k[1] for k in (move_key(e.source) for e in attempt) if k]
    things = named or moved
    if not things:
        return None
    edit = FROM_READING[kinds[0]](things[0] if named else things[-1], reading)
    return replace(edit, said=said) if edit is not None else None


def did_in_words(attempt: list[Entry]) -> str:
    """The attempt's calls, as the edit prompt shows what the robot did."""
    calls = [e.source for e in attempt if not e.is_comment and bare_call(e.source) is not None]
    return "; ".join(" ".join(c.split()) for c in calls[-6:])


def taught_on(edit: Edit, attempt: list[Entry], facts: Facts,
              earlier: list[Entry] = ()) -> Edit | None:
    """``edit`` with the thing of the attempt's anchor call it was taught on (the last call
    its condition holds for), bound where the condition is general; None where the attempt
    made no such call and the edit needs one (all but an edit at the request's end)."""
    if edit.when.skill == REQUEST:
        return edit
    anchors = [c for c in (Call.of(e.source) for e in attempt if not e.is_comment)
               if c is not None and holds(edit.when, c, facts)]
    if not anchors:
        # "never put glasses on the windowsill" may come without a glass on the windowsill:
        # a refusal or a removal needs no anchor in this attempt; nor does a replacement the
        # accepted attempt made already of a call an earlier attempt made ("never hand me the
        # bottle, leave it on the sideboard": the robot handed it over, then put it there;
        # measured, a misread "instead of handing the ladder over" after the robot had only
        # brought it to the counter would be kept without the earlier call)
        done = _done_already(edit, attempt) and any(
            (c := Call.of(e.source)) is not None and holds(edit.when, c, facts)
            for e in earlier if not e.is_comment)
        return edit if edit.op in ("never", "remove") or done else None
    thing = anchors[-1].thing
    if edit.when.general and thing:
        return bound(replace(edit, taught=thing))
    return edit


def _done_already(edit: Edit, attempt: list[Entry]) -> bool:
    """An ``instead`` edit for a named thing whose one replacement (a move of that thing to a
    place) the attempt made."""
    if edit.op != "instead" or edit.when.general or len(edit.statements) != 1:
        return False
    new = Call.of(edit.statements[0])
    return new is not None and new.thing == edit.when.thing and new.place is not None and any(
        (c := Call.of(e.source)) is not None and c.thing == new.thing
        and c.place == new.place for e in attempt if not e.is_comment)


def edited(edit: Edit, attempt: list[Entry], facts: Facts) -> tuple[list[Entry], list[str]]:
    """The attempt as the edit makes it, and the statements the edit adds to what was done
    (those the robot does now). A question the edit adds is answered yes in the program (the
    replay takes the user's answers from it)."""
    out: list[Entry] = []
    added: list[str] = []

    def inserted(sources: list[str]) -> list[Entry]:
        return [Entry(s, repr(ANSWER) if Entry(s).calls("ask") else "") for s in sources]

    for entry in attempt:
        if entry.is_comment:
            out.append(entry)
            continue
        applied = apply([edit], entry.source, facts)
        out += inserted(applied.before)
        if applied.source is not None:
            out.append(Entry(applied.source, entry.output if applied.source == entry.source
                             else ""))
        out += inserted(applied.after)
        if edit.op in ("before", "after"):
            added += applied.before + applied.after
    end = at_request_end([edit], acted=bool(attempt))
    out += inserted(end)
    added += end
    return out, added


def learn_habit(learner: ModeLearner, transcript: Transcript, said: str, read_edit: ReadEdit,
                facts: Facts, reading=None) -> LearnOutcome | None:
    """The habit ``said`` teaches, read by the model (``read_edit``) and stored as a lesson
    (see the module docstring), after the robot did what it adds now and the edited program
    replayed; the outcome says why not otherwise. None where the model read no edit (the
    request to learn is then the named paths', e.g. "perfect, remember how you did that")."""
    parts = final_parts(transcript, learner.read)
    if parts is None:
        return None
    edit = read_edit(said, did_in_words(parts.attempt)) if read_edit is not None else None
    if named_path_takes(edit, reading):
        return None
    named = tuple(n for c in (reading.clauses if reading is not None else ())
                  for n in names_said(c.objects))
    edit = chosen(edit, edit_of_reading(reading, parts.attempt, learner.ends(), said,
                                        learner.write_move), facts, named)
    if edit is None and asks_a_change(reading):
        # the user asked for something no kind names and no edit says: storing the attempt
        # as it was would be a promise broken (issue 59: "I will remember the way you accepted
        # it", and the habit was never kept)
        log.info("no edit read for %r: nothing stored", said[:80])
        learner.say(SAY_NO_EDIT)
        return LearnOutcome(LearnStatus.NOTHING_TO_LEARN,
                            "Nothing was learned: the user asked for a change no edit of the "
                            "program was read for; the attempt as it was is not that lesson.")
    if edit is None:
        return None
    taught = taught_on(edit, parts.attempt, facts, parts.earlier)
    if taught is None:
        act = edit.when.in_words().removeprefix("I ")
        learner.say(SAY_NO_ANCHOR.format(act=act))
        return LearnOutcome(LearnStatus.NOTHING_TO_LEARN,
                            f"Nothing was learned: the habit ({edit.in_words()}) is about a "
                            f"call the attempt never made; do the request first.")
    program, added = edited(taught, parts.attempt, facts)
    example = replace(parts, attempt=program).example(parts.bindings)
    tried = _FinalTry.of(learner.check, example, parts)
    if tried is not None and tried.failure is not None:
        log.info("habit not stored: the edited program fails in the replay: %s", tried.failure)
        learner.say(SAY_REPLAY)
        return LearnOutcome(LearnStatus.REPLAY_FAILED,
                            f"Nothing was learned: the program with the habit "
                            f"({taught.in_words()}) failed in the simulated world: "
                            f"{tried.failure}.")
    _do_now(learner, added, parts.attempt)
    stored = tried.stored if tried is not None else example
    words = taught.in_words()
    return learner.store(Lesson(stored.render(), "habit", learner.interaction_id(),
                                author="edit", edit=taught.to_json(),
                                improvement=words),
                         LearnStatus.STORED_HABIT,
                         f"Stored the habit: {words} (an edit applied to every later request "
                         f"whose calls it holds for).",
                         said=SAY_STORED.format(words=words))


def _do_now(learner: ModeLearner, added: list[str], attempt: list[Entry]) -> None:
    """What the edit adds to the attempt, done now: a ``say`` is said, a robot call run
    (``ask`` is not asked: its moment, before the act, has passed)."""
    thing = next((c.thing for c in (Call.of(e.source) for e in attempt) if c and c.thing), None)
    for source in added:
        call = bare_call(written(source, thing))
        if call is None or call.func.id == "ask":
            continue
        if call.func.id == "say":
            text = call.args[0].value if call.args and hasattr(call.args[0], "value") else ""
            learner.say(str(text))
            continue
        if learner.act is not None:
            output = learner.act(written(source, thing))
            log.info("done now for the habit: %s -> %s", source, str(output)[:200])


__all__ = ["learn_habit", "wants_habit", "named_path_takes", "taught_on", "edited",
           "did_in_words", "NOT_HABITS",
           "ReadEdit", "SAY_NO_EDIT"]
