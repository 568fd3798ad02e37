"""What a user's reply to an attempt says: that it closes the attempt, or that the robot took
the wrong object.

After an attempt the user either closes it ("thanks", "perfect", "never mind") or says what
is still wrong. Only a closing reply may be answered by handing back at once; the agent
(``act_on_correction``) keeps the bare hand-back out of the grammar of the first statement
after any other reply (measured with the 1.5B model: a correction was answered with
``wait_for_trigger()`` turn after turn, and raising the temperature did not change it).

Deliberately conservative: a reply closes the attempt only when every word of it is a word of
thanks, praise or dismissal ("Thanks, that's all for now", "Perfect!", "no thanks"). A closing
reply read as a correction costs one statement (the model says something, then hands back); a
correction read as closing ("the red block is on the right") would lose the turn.
"""
from __future__ import annotations

import re

# the words a closing reply is made of; "no" and "never" only in the phrases below
_CLOSING_WORDS = frozenset("""
thanks thank you thx cheers ty great perfect excellent awesome wonderful nice cool good job
work well done that that's thats it is was all right fine correct exactly ok okay alright yes
yeah yep sure very much so now just looks look lot a for the help robot buddy stop nothing
else nevermind nothanks
""".split())
_PHRASES = ((re.compile(r"\bnever ?mind\b"), "nevermind"),
            (re.compile(r"\bno,? thank(s| you)\b"), "nothanks"))
_WORD = re.compile(r"[a-z']+")


def closes_the_attempt(utterance: str) -> bool:
    """True if ``utterance`` accepts or dismisses the attempt and asks for nothing more:
    "Thanks!", "Perfect, well done.", "never mind", "no thanks". False for a correction,
    a question, a new request, or anything unclear."""
    text = " ".join(utterance.lower().replace("\u2019", "'").split())
    if not text or "?" in text:
        return False
    for pattern, token in _PHRASES:
        text = pattern.sub(f" {token} ", text)
    words = _WORD.findall(text)
    return bool(words) and all(w in _CLOSING_WORDS or w.strip("'") in _CLOSING_WORDS
                               for w in words)


# words that say the robot chose the wrong object (not where it put it): "You picked the red
# block instead of ...", "The block you picked was ...", "that is not the block I meant",
# "you took the wrong one", "That was the red block, and I meant ..."
_THING = r"(?:block|object|one|thing|item|cup|bottle)s?"
_WRONG_CHOICE = re.compile(
    r"\byou (?:picked|took|grabbed|chose|selected|picked up)\b(?! it\b)|"
    rf"\b{_THING} you (?:picked|took|grabbed|chose|selected)\b|"
    rf"\bnot the {_THING} i (?:meant|wanted|asked for|had in mind)\b|"
    rf"\bwrong {_THING}\b|"
    r"\bthat was\b[^.]*\bi (?:meant|asked for|wanted)\b|"
    rf"\bdid not (?:take|pick|grab) the {_THING} i (?:meant|wanted)\b")


def rejects_the_choice(utterance: str) -> bool:
    """True if ``utterance`` says the robot took the wrong object ("You picked the blue block
    instead of the one left of the bowl", "The block you picked was below the bowl"), not
    (only) that it put it in the wrong place."""
    text = " ".join(utterance.lower().replace("\u2019", "'").replace("n't", " not").split())
    return bool(_WRONG_CHOICE.search(text))


__all__ = ["closes_the_attempt", "rejects_the_choice"]
