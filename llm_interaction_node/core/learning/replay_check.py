"""The replay check of a learned example: does it show what the world really returns?

An example is stored to be copied. If its recorded outputs were invented (a grasp 'success'
at a place where the object is out of reach), the robot copies a plan that fails. So before
an example is stored, its statements are run in a simulated world started from the state the
interaction started in, and every recorded output must equal the one the world returns.
Where the live world is known, the replay must also END like it: statements that all work
may still leave the objects elsewhere than the user accepted (an example that only fixes the
last block).

The core knows no world (``core/`` never imports ``sims/``): the check is a plain callable,
built where the worlds are known (``replay.replay_check``) and handed to the learner.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from ..transcript.transcript import Transcript

MAX_SHOWN = 300          # characters of an output quoted in the sentence


@dataclass
class Replayed:
    """What a replay showed. ``transcript``: the example's inputs with the world's outputs
    (an input the example shows without output gets the world's: nothing is invented, and a
    small model often leaves outputs out); ``mismatch``: None if every output the example
    does show is the world's, else one sentence saying where the first difference is (shown to
    L_improve when the rewrite is re-asked); ``end_checked``: whether the replayed world's end
    was compared with the live world's at the learn call (no live world: the ROS node, an
    unknown robot), and ``end_differs``: None if it ends alike (or was not compared), else one
    sentence naming the objects that end elsewhere ("the blue block ends on the table ... in
    the replay, in the blue bowl in the live world"); ``ending_elsewhere``: how many objects
    that sentence is about (0 if it is None); ``moved_kept``: those of them the live
    interaction left where they were at its start (a rewrite that moves the bowls when the
    user asked for the blocks); ``objects``: the names of the world's objects (empty if the
    end was not compared)."""

    transcript: Transcript
    mismatch: str | None = None
    end_differs: str | None = None
    end_checked: bool = False
    ending_elsewhere: int = 0
    moved_kept: tuple[str, ...] = ()
    objects: tuple[str, ...] = ()


class ReplayCheck(Protocol):
    """``check(transcript)``: the :class:`Replayed` of the transcript replayed from the
    interaction's initial state, or None if no world could be built (then only syntax and
    names were checked). ``ignored``: objects whose end is not compared (a choice the user
    rejected, left where the robot put it); ``heightless``: objects whose end is compared
    without its height (their order in a pile was not chosen); ``placed``: objects the user
    sent to a named place (name -> place) after the request, which must end there (the live
    world is no measure: the lesson may come before the robot put them there)."""

    def __call__(self, transcript: Transcript, ignored: frozenset[str] = frozenset(),
                 heightless: frozenset[str] = frozenset(),
                 placed: Mapping[str, str] | None = None) -> Replayed | None: ...


def mismatch_sentence(index: int, source: str, recorded: str, replayed: str) -> str:
    """How a difference is told to L_improve (and logged); outputs are shown as the console
    printed them (already repr'd)."""
    first = source.strip().splitlines()[0] if source.strip() else source

    def shown(output: str) -> str:
        text = " ".join(output.split())
        return (text[:MAX_SHOWN] + " ...") if len(text) > MAX_SHOWN else (text or "no output")
    return (f"at input {index} ({first}) the transcript shows {shown(recorded)} but the world "
            f"returns {shown(replayed)}")


__all__ = ["ReplayCheck", "Replayed", "mismatch_sentence"]
