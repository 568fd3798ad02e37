"""The model reads, the code computes: what a user said becomes a typed reading.

A request ("grab the cube left of the green bowl and drop it in the top left corner") or a
reply ("wrong cube", "you forgot the milk", "that was slow, you can go faster to the bench")
is read by the LLM into a small structure (:mod:`.structure`: clauses with the objects meant and
where they go) under a grammar built from that structure and the scene's names
(:mod:`.grammar`, :mod:`.vocabulary`), so every reading is well-formed and names only what
exists. Code then computes with it (:mod:`.select`: which block "the second from the left" is
in this scene, where "the same color bowl" is for each block). The agent reads each user
utterance once (:class:`~.reader.Reader`); the correction focus, the learn gate and the lesson
writers act on the reading, never on the words.
"""
from .parse import ReadingError, parse
from .reader import Reader
from .structure import Clause, Reading, Selection, Target
from .vocabulary import ReadingVocabulary, spoken_form

__all__ = ["Reader", "Reading", "Clause", "Selection", "Target", "ReadingVocabulary",
           "ReadingError", "parse", "spoken_form"]
