"""The model is asked about what its reading may have left out: the one meant beside
``wrong object``.

Measured on the development pool (reading bench at e6f1465, 132 of 156): the 1.5B model,
greedy, ends a reading after its first line where a second was said: "Not that one, I wanted
the sponge." and "that is the juice, I asked for the cup" were read as ``wrong object`` with
no line for the one meant. At the end of that line, stopping was likelier than a second
clause. Asked, as a yes or no question in the check prompt (:mod:`.check`), whether the user
says which one they wanted instead (:data:`NAMED`), the model reads the sentence again; where
it says yes, the reading goes on after ``- do:`` under the grammar of one move line
(:func:`.grammar.move_rest_gbnf`), and a line naming nothing (or only what the attempt moved)
adds nothing. No rule over the user's words decides. Measured at ba748ad (bench records under
docs/eval/reading/): household wrong object 1/3 -> 3/3, "That's the yellow block, not the
orange block." right; "No, not that one, the other one." was then given a block.

Not asked: whether a reply asks to be remembered. Tried the same way (ba748ad), the model said
yes to 17 of 20 look-alikes of test_reading_model ("what do you remember about the kitchen?",
"ok, next time then") and to thanks and complaints of the bench ("Perfect, thank you!"):
reading bench 132 -> 123.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .check import NO, answer
from .structure import Clause, Reading

NAMED = "the user says which one they wanted instead"
QUESTIONS = (NAMED,)          # a stand-in model answers these no (the reading stands)


def asks_named(reading: Reading, reply: bool) -> bool:
    """Whether :data:`NAMED` is asked of ``reading``: a reply, ``wrong object`` and no move
    line."""
    return reply and reading.rejects_choice and not reading.moves


@dataclass
class OmissionCheck:
    """``ask(prompt, grammar)`` -> the model's text (the reader's LLM call, as for
    :class:`.check.SlotCheck`); ``meant()`` -> the move line the model writes after ``- do:``
    (None: it named nothing new). ``path``: another check prompt file."""

    ask: Callable[[str, str], str]
    meant: Callable[[], Clause | None]
    path: str | None = None

    def __call__(self, reading: Reading, said: str, reply: bool) -> Reading:
        if not asks_named(reading, reply) or not self._says(said, NAMED):
            return reading
        clause = self.meant()
        if clause is None or clause.objects is None:
            return reading
        return Reading(reading.utterance, reading.clauses + (clause,))

    def _says(self, said: str, claim: str) -> bool:
        said_so = answer(self.ask, said, claim, self.path)
        return bool(said_so) and said_so != NO           # nothing: nothing was left out


__all__ = ["OmissionCheck", "asks_named", "NAMED", "QUESTIONS"]
