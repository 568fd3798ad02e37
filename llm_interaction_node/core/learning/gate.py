"""The learning gate: is ``learn_from_interaction()`` honoured now?

:func:`accepts` decides, as the reference method does, by POSITION: the call must be the
robot's first action after ``wait_for_trigger()`` returned the user's reply (comments and
``say`` in between are allowed). The LLM that drives the robot decides that the reply was a
request to learn; the utterance rules below only VETO what clearly is none: retractions
("don't learn that") and recall questions or reminders for the current task ("do you
remember where the cup is?", "remember to bring the cup now").

:func:`explain` classifies an utterance on its own (used for that veto, for the learn
service and for tests).
A false positive is the expensive error (a wrong lesson lands in the memory and is
retrieved again and again), so the gate is conservative and deterministic.

What counts as a request (decided for this project):

* asking to learn / remember / memorize / note / keep in mind, in any phrasing
  ("remember that", "keep that in mind for next time", "learn from your mistakes",
  "make a note of that for the future", "don't forget this in future");
* an instruction for future behaviour ("next time, bring both at once", "from now on,
  use both hands", "in the future, put drinks on the table", "whenever I ask for juice,
  bring a glass", "when I say serve, I mean ..."): the only way to follow it is to
  remember it, and the paper's scenarios honour exactly such corrections.

What does not count: tasks and questions that merely contain the words ("bring me the
book 'Learn Python'", "do you remember where the cup is?", "I forgot my keys", "learn from
the table which cup is mine" = find out), reminders for the current task ("remember to
bring the cup now", "don't forget to take the sponge", "please remember the milk"),
deferred one-off tasks ("the next time you go to the kitchen, bring me a cup"), small
talk ("next time is fine", "see you next time") and retractions ("forget it", "don't
learn that", "no need to remember this"), which veto the whole utterance.

How (see :func:`explain`):

1. Normalise: lower case, unify quotes, expand negated contractions ("don't" -> "do
   not"), drop quoted titles. Split into sentences (. ! ? ; : dashes) and clauses (also
   commas and "but").
2. Rules per clause: RETRACTIONS (veto), NOT_REQUESTS (recall questions, the user's own
   memory, "remember to <X>" without a marker of future behaviour, "learn which/where"),
   EXPLICIT requests; then per sentence the FUTURE-INSTRUCTION rule (a lead such as
   "next time" / "from now on" / "whenever I" / "when I say X, I mean" followed by an
   instruction, not by "is fine", "I will", "you go to ...").
3. Embedding similarity decides the rest, only for sentences that still contain a word
   of learning or memory (remember, learn, memori*, note, mind, forget, lesson, recall)
   and were not settled by a rule ("learn to carry two things at once" vs "hand me the
   learning tablet"). The sentence is embedded with the memory's sentence transformer
   (all-MiniLM-L6-v2, unit vectors, loaded on first use) and it is a request when

       max cos(sentence, POSITIVE_PROTOTYPES) >= MIN_POSITIVE_SIMILARITY (0.45)  and
       max cos(sentence, POSITIVE_PROTOTYPES)
           - max cos(sentence, NEGATIVE_PROTOTYPES) >= MARGIN (0.05)

   Utterances without any cue are no request and embed nothing.

Thresholds and rules were tuned on the labelled set in ``test/test_learning_gate.py``
(measured accuracy is asserted there). The embedding is not used for the future-
instruction family on purpose: MiniLM's similarity is dominated by the objects named
("put the juice on the table" vs "next time, put the juice on the table" differ by
little), measured margins there were within +-0.1 either way.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

MIN_POSITIVE_SIMILARITY = 0.45
MARGIN = 0.05

# Prototypes for the embedding step (own wording): requests phrased without the fixed
# patterns, and tasks / remarks that use the same words.
POSITIVE_PROTOTYPES: tuple[str, ...] = (
    "please remember the way you did it",
    "remember the route to the shelf is safe",
    "learn to fetch two things in one trip",
    "you need to learn to be more careful",
    "keep it for future reference",
    "lesson for you: ask me first",
    "this is something you should learn",
    "memorize the order of the steps",
    "please learn the correct way to do it",
    "you should remember my preferences",
    "note for the future: the plates go in the cupboard",
)
NEGATIVE_PROTOTYPES: tuple[str, ...] = (
    "remember the groceries",
    "bring me the learning tablet",
    "hand me my notes",
    "learning is fun",
    "I don't mind",
    "mind the step",
    "recall the last position of the arm",
    "where is my notebook",
    "bring the lesson book to the desk",
    "I learned a lot at school",
    "can you learn the names of the objects on the table",
    "remember me?",
)

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                         "\u00b4": "'", "`": "'"})
_TITLE = re.compile(r"\"[^\"]*\"|(?<![\w])'[^']*'(?![\w])")
_CONTRACTIONS = (
    (re.compile(r"\bcan't\b|\bcannot\b"), "can not"),
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\b(\w+)n't\b"), r"\1 not"),
    (re.compile(r"\bdont\b"), "do not"),
    (re.compile(r"\bi'm\b"), "i am"),
    (re.compile(r"\bi'll\b"), "i will"),
    (re.compile(r"\bwe'll\b"), "we will"),
    (re.compile(r"\byou're\b"), "you are"),
    (re.compile(r"\bthat's\b"), "that is"),
    (re.compile(r"\bit's\b"), "it is"),
)
_CLAUSE_SPLIT = re.compile(r"[.!;:,\n]+|\s[-\u2013\u2014]+\s|\bbut\b|(?<=\?)")
_SENTENCE_SPLIT = re.compile(r"[.!;:\n]+|\s[-\u2013\u2014]+\s|(?<=\?)")

_OBJECT = r"(?:this|that|it|these|those)"
_FUTURE = (r"\b(?:next time|from now on|in (?:the )?future|for the future|going forward|"
           r"always|every time|whenever|each time|for later|later on)\b")
_FUTURE_RE = re.compile(_FUTURE)

RETRACTIONS = [re.compile(p) for p in (
    r"\b(?:do|did|should|will|must|need|please) not (?:need to |have to )?(?:try to )?"
    r"(?:remember|memori[sz]e|learn|note|save|store|keep)\b",
    r"\bnever (?:remember|memori[sz]e|learn|save|store)\b",
    r"\b(?:no need|not necessary|no reason) to (?:remember|memori[sz]e|learn|note|save|store)\b",
    r"\bnothing to (?:remember|memori[sz]e|learn|note)\b",
    r"\bnot (?:something|anything) (?:to|you should) (?:remember|learn)\b",
    r"(?<!not )(?<!never )\bforget (?:it|that|this|about (?:it|that|this))\b",
    r"\bnever ?mind\b",
)]

NOT_REQUESTS = [re.compile(p) for p in (
    # recall questions
    r"\b(?:do|did|does|have|has|will|would) you (?:still |even |really )?"
    r"(?:remember|recall|know|learn|forget)\b",
    r"\b(?:remember|recall)(?: where| what| which| who| whom| whose| when| whether| if)\b.*\?",
    r"\b(?:where|what|which|who|when|how) (?:did|do|have) you (?:learn|remember|note)",
    # the user's own memory
    r"\b(?:i|we|he|she|they|my \w+) (?:still |really |do |did |can |can not |just )?"
    r"(?:remember|recall|learned|learnt|forgot|forget|noted|know)\b",
    # find something out
    r"\blearn\b(?!.*\b(?:this|that|it|lesson|mistake)\b).*\b(?:which|where|whose|whether|who)\b",
)]

EXPLICIT = [re.compile(p) for p in (
    rf"\b(?:remember|memori[sz]e|learn|note) {_OBJECT}\b",
    r"\b(?:remember|memori[sz]e|learn) (?:how|what|the way|the lesson)\b",
    r"\blearn from (?:this|that|it|your|my|the (?:mistake|error|feedback|experience|interaction"
    r"|correction)|what|experience|mistakes|errors|me)\b",
    rf"\b(?:keep|bear|have) (?:{_OBJECT} )?in mind\b",
    r"\b(?:make|take|made|keep) (?:a )?(?:mental )?notes?\b",
    rf"\b(?:note|write|jot) {_OBJECT} down\b",
    rf"\bdo not forget(?: {_OBJECT}\b| (?:how|what)\b|$)",
    r"\bnever forget\b",
    rf"\b(?:save|store|keep) {_OBJECT}\b.*\b(?:future|next time|later|lesson|example|memory)\b",
    r"^(?:please |and |so |ok |okay )?(?:remember|memori[sz]e)(?: please)?$",
    r"\b(?:remember|memori[sz]e|learn) (?:for |in )(?:the )?(?:future|next time|later)\b",
    r"\blearn your lesson\b|\blesson learned\b",
    r"\bnote (?:to self|for you|for the future|for next time|for later)\b",
)]

# "remember to <do something>": a lesson only together with a marker of future behaviour.
_REMEMBER_TO = re.compile(r"\b(?:remember|do not forget|try to remember|never forget) to\b")

# Instructions for future behaviour: a lead, then an instruction.
_LEAD = re.compile(
    r"(?:^|,\s*|\bbut\s+|\band\s+|\bso\s+|\bplease\s+|\bthen\s+)"
    r"(?P<lead>(?:the )?next time|from now on|in (?:the )?future|going forward|in general|"
    r"(?:whenever|every time|each time) (?:i|you)\b|when i say\b.{1,40}?\bi mean|"
    r"always|never)(?:\s*,)?(?P<rest>.*)$")
_TRAILING_LEAD = re.compile(r"^(?:please |you should |always )?(?P<rest>.+?),? "
                            r"(?:next time|from now on|in (?:the )?future|going forward)$")
_NOT_INSTRUCTION = re.compile(
    r"^(?:is|was|will|would|then|maybe|perhaps|i|we|they|it|let|see|ok|okay|too|as "
    r"well|mind|around|"
    r"the|a|an|fine|sure|thanks|thank you)\b"
)
_MODAL = re.compile(r"^you (?:should|must|need to|have to|can|could|might|better|always|never|"
                    r"will have to)\b")
_INSTRUCTION_WORDS = re.compile(
    r"^(?:please |just |also |first |only |try to |make sure |be sure |do not |always |never |"
    r"you should |you must |you need to |you have to |you can )*[a-z]+")
_EXCUSES = re.compile(r"^(?:are|can|have|like|want|get|feel|find)\b")

MEMORY_CUES = re.compile(r"\b(?:remember\w*|memori\w*|learn\w*|note|notes|mind|forget\w*|"
                         r"lessons?|recall)\b")


@dataclass(frozen=True)
class GateDecision:
    """Why the gate decided as it did (for logs and tests)."""

    is_request: bool
    rule: str           # retraction | explicit | future-instruction | embedding | not-request |
                        # no-cue | position (accepts(): decided by the position rule)
    clause: str = ""
    positive_similarity: float | None = None
    negative_similarity: float | None = None


def normalise(utterance: str) -> str:
    text = utterance.translate(_QUOTES).lower()
    text = _TITLE.sub(" ", text)
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return re.sub(r"[ \t]+", " ", text).strip()


def clauses(text: str, pattern: re.Pattern = _CLAUSE_SPLIT) -> list[str]:
    parts = (c.strip(" '\"()") for c in pattern.split(text))
    return [c.strip(" ,") for c in parts if c and any(ch.isalpha() for ch in c)]


def sentences(text: str) -> list[str]:
    return clauses(text, _SENTENCE_SPLIT)


class _Prototypes:
    """Prototype embeddings, computed once on first use (loads the sentence transformer)."""

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray] | None = None):
        self._embed = embed
        self._lock = threading.Lock()
        self._vectors: tuple[np.ndarray, np.ndarray] | None = None

    def _embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        if self._embed is None:
            from ..memory.embedding import embed
            self._embed = embed
        return self._embed(list(texts))

    def similarities(self, text: str) -> tuple[float, float]:
        with self._lock:
            if self._vectors is None:
                vectors = self._embed_texts(POSITIVE_PROTOTYPES + NEGATIVE_PROTOTYPES)
                n = len(POSITIVE_PROTOTYPES)
                self._vectors = (vectors[:n], vectors[n:])
        pos, neg = self._vectors
        v = self._embed_texts([text])[0]
        return float(np.max(pos @ v)), float(np.max(neg @ v))


_PROTOTYPES = _Prototypes()


def _clause_rule(clause: str, whole: str) -> str | None:
    if any(p.search(clause) for p in RETRACTIONS):
        return "retraction"
    if _REMEMBER_TO.search(clause):
        return "explicit" if _FUTURE_RE.search(whole) else "not-request"
    if any(p.search(clause) for p in NOT_REQUESTS):
        return "not-request"
    if any(p.search(clause) for p in EXPLICIT):
        return "explicit"
    return None


# What may stand around a request to learn in a reply that says nothing else ("Please keep that
# in mind for the future.", "Memorize how you did that.", "make a note of that for next time")
_LEARN_FILLER = frozenset("""
please for the future next time later in mind of that this it how you did do done a note so
and ok okay now just well from your what way mistake mistakes
""".split())


def asks_only_to_learn(utterance: str) -> bool:
    """True if every clause of ``utterance`` is a word of thanks or praise
    (:func:`..replies.closes_the_attempt`) or an explicit request to learn with nothing but
    :data:`_LEARN_FILLER` around it: "Perfect, make a note of that for the future." says
    nothing a lesson could show; "remember that the cup goes on the table" and "thanks, but
    always bring a cup" do."""
    from ..replies import closes_the_attempt
    text = normalise(utterance or "")
    parts = clauses(text)
    if not parts:
        return False
    for clause in parts:
        if closes_the_attempt(clause):
            continue
        match = next((m for p in EXPLICIT if (m := p.search(clause))), None)
        if match is None or _clause_rule(clause, text) != "explicit":
            return False
        rest = (clause[:match.start()] + " " + clause[match.end():]).split()
        if any(w not in _LEARN_FILLER for w in rest):
            return False
    return True


def future_instruction(sentence: str) -> bool | None:
    """True: an instruction for future behaviour; False: a lead without one; None: no lead."""
    m = _LEAD.search(sentence)
    if m is None:
        t = _TRAILING_LEAD.match(sentence)
        if t is None:
            return None
        rest = t.group("rest")
        return bool(_INSTRUCTION_WORDS.match(rest)) and not _NOT_INSTRUCTION.match(rest) \
            and not rest.startswith("you ")
    lead, rest = m.group("lead"), m.group("rest").strip(" ,")
    if not rest:
        return False
    if lead.endswith("you"):          # whenever / every time you ..., <instruction>
        return "," in rest and not _EXCUSES.match(rest)
    if lead.endswith(" i") or lead.endswith("i mean"):   # whenever I ask for X, ...
        return True
    if rest.startswith("you "):
        if _MODAL.match(rest):            # "next time you should go faster"
            return True
        # "the next time you go to the kitchen, bring me a cup": a when-clause of a one-off
        # task; "in future you go around the table" / "next time you go faster": a rule.
        return not ("next time" in lead and "," in rest)
    if _NOT_INSTRUCTION.match(rest):
        return False
    return bool(_INSTRUCTION_WORDS.match(rest))


def explain(utterance: str) -> GateDecision:
    """The gate's decision with the rule (and similarities) that made it."""
    text = normalise(utterance or "")
    rules = [(_clause_rule(c, text), c) for c in clauses(text)]
    for rule, clause in rules:
        if rule == "retraction":
            return GateDecision(False, "retraction", clause)
    for rule, clause in rules:
        if rule == "explicit":
            return GateDecision(True, "explicit", clause)
    settled = [c for rule, c in rules if rule == "not-request"]
    open_sentences = []
    for sentence in sentences(text):
        instruction = future_instruction(sentence)
        if instruction:
            return GateDecision(True, "future-instruction", sentence)
        if instruction is False:
            settled.append(sentence)
        if MEMORY_CUES.search(sentence) and not any(c in sentence for c in settled):
            open_sentences.append(sentence)
    best: GateDecision | None = None
    for sentence in open_sentences:
        pos, neg = _PROTOTYPES.similarities(sentence)
        decision = GateDecision(pos >= MIN_POSITIVE_SIMILARITY and pos - neg >= MARGIN,
                                "embedding", sentence, pos, neg)
        if decision.is_request:
            return decision
        if best is None or pos - neg > best.positive_similarity - best.negative_similarity:
            best = decision
    if best is not None:
        return best
    return GateDecision(False, "not-request" if settled else "no-cue",
                        settled[0] if settled else "")


# Statements the position rule looks through: speaking and comments do not act on the world.
_TRANSPARENT_CALLS = frozenset({"say"})


def follows_user_reply(transcript) -> bool:
    """The position rule of the reference method: ``learn_from_interaction()`` counts only
    as the robot's first action after ``wait_for_trigger()`` returned the user's reply.

    ``transcript``: the interaction so far, WITHOUT the learn call itself (the console
    records a statement after it ran). Comments and ``say(...)`` in between are skipped."""
    import ast

    for entry in reversed(list(transcript)):
        if entry.is_comment:
            continue
        try:
            tree = ast.parse(entry.source)
        except SyntaxError:
            return False
        calls = [n.func.id for n in ast.walk(tree)
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        if calls and set(calls) <= _TRANSPARENT_CALLS:
            continue
        return (len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)
                and calls == ["wait_for_trigger"] and bool(entry.output))
    return False


def accepts(transcript, utterance: str) -> GateDecision:
    """Whether ``learn_from_interaction()`` is honoured now (see the module docstring).

    1. Position (the reference's rule): the call follows the user's reply directly.
    2. The reply is no retraction ("don't learn that") and no recall question or reminder
       for the current task (the rules of :func:`explain`). Everything else the user may
       have meant as a lesson is accepted, as the paper's method does ("you forgot that I
       told you to go faster ..." carries no word of learning and was honoured there)."""
    if not follows_user_reply(transcript):
        return GateDecision(False, "position", "")
    decision = explain(utterance)
    if decision.rule in ("retraction", "not-request"):
        return decision
    return GateDecision(True, "position", decision.clause, decision.positive_similarity,
                        decision.negative_similarity)


def is_learning_request(utterance: str) -> bool:
    """True if the user explicitly asked the robot to learn or remember something."""
    return explain(utterance).is_request


__all__ = [
    "asks_only_to_learn",
    "is_learning_request",
    "explain",
    "accepts",
    "follows_user_reply",
    "future_instruction",
    "GateDecision",
    "normalise",
    "clauses",
    "sentences",
    "MIN_POSITIVE_SIMILARITY",
    "MARGIN",
    "POSITIVE_PROTOTYPES",
    "NEGATIVE_PROTOTYPES",
]
