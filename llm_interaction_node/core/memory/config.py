"""MemoryConfig: the ``memory`` section of the settings (where the store is, how it is queried).

Read like every section by :mod:`..config`; a field is one line with its default, description,
range and environment variable (the embedding backend and threads). The choices are the
enums of the modules that act on them: :class:`~.strategies.Scoring`, :class:`~.order.Order`,
:class:`~.order.LearnedOrder`."""
from __future__ import annotations

from dataclasses import dataclass

from ..settings.config import check_section, setting
from .meaning import Reuse
from .order import LearnedOrder, Order
from .strategies import Scoring

DEFAULT_PATH = "~/.local/share/llm_interaction_node/memory"


def _not_blank(value: str) -> str | None:
    return None if value.strip() else "must not be empty"


@dataclass
class MemoryConfig:
    """The ``memory`` section of the settings (a field: one line with default and description)."""

    path: str = setting(DEFAULT_PATH, "embedded ChromaDB directory (PersistentClient)",
                        check=_not_blank)
    host: str | None = setting(None, "Chroma server host (`chroma run`) shared by robots; "
                               "none = the embedded store", check=_not_blank)
    port: int = setting(8000, "Chroma server port", minimum=1, maximum=65535)
    robot_id: str | None = setting(None, "who this robot is: recorded with each lesson it "
                                   "stores (robots sharing memory.host); none = the host name "
                                   "(the ROS node: host name/namespace)", check=_not_blank)
    timeout_s: float = setting(5.0, "longest wait for one Chroma server request (memory.host); "
                               "a server that does not answer in time (frozen, overloaded) "
                               "counts as unreachable", minimum=0.1)
    k: int = setting(16, "examples retrieved into the prompt, most similar last (order "
                     "seed_block: learned examples only, after the seed block)", minimum=0)
    query_utterances: int = setting(3, "latest user utterances used as the retrieval query",
                                    minimum=0)
    recency_decay: float = setting(0.6, "query weight of older utterances (0.6**i, newest i = 0)",
                                   minimum=0.0, maximum=1.0)
    scoring: Scoring = setting(
        Scoring.REFERENCE,
        "reference: max over keys of cos(sum_i 0.6**i u_i, "
        "key) (the paper's code); per_utterance: sum_i 0.6**i max over "
        "keys of cos(u_i, key)",
    )
    order: Order = setting(Order.SEED_BLOCK, "prompt layout of the examples: seed_block (every "
                           "seed example in one fixed order, the most central first, then the "
                           "top k learned examples, most similar last: only the lessons vary, "
                           "so a local model evaluates the seeds once), similarity (the paper's: "
                           "the top k over seeds and lessons, most similar last), stable (those "
                           "k in a fixed order) or stable_nearest (the fixed order, then the "
                           "most similar again)")
    learned_order: LearnedOrder = setting(
        LearnedOrder.STORED_NEAREST,
        "order seed_block: the learned examples after the seed block in the order they were "
        "stored, the most similar again last (stored_nearest: every request shares the state "
        "of the seeds and lessons, prepared when a lesson is stored), or most similar last "
        "(similarity)")
    tail_tokens: int = setting(300, "order seed_block, learned_order stored_nearest: once "
                               "more lessons are stored than k (the head every request "
                               "shares cannot hold them all), a request is shown, after the "
                               "seed block, only its nearest lessons within this many tokens "
                               "(estimated; the nearest always), most similar last: the seed "
                               "block stays the prefilled head, so the first statement does "
                               "not grow with the lessons (measured at 50 lessons: 10 shown, "
                               "1,141 tokens evaluated, 33.7 s); 0 = the top k in stored "
                               "order", minimum=0)
    seed_tokens: int = setting(8000, "order seed_block: token budget of the seed block "
                               "(estimated); a larger seed memory keeps its most central seeds "
                               "that fit", minimum=0)

    adapt_names: bool = setting(True, "the nearest lesson, shown last, is shown in the names "
                                "of the request at hand where its request differs from it "
                                "only in names the lesson uses ('blue bowl' taught, 'green "
                                "bowl' asked: core/memory/adapt.py); the stored lesson "
                                "never changes")

    reuse: Reuse = setting(Reuse.MEANING, "how the nearest lesson is matched to the request "
                           "at hand for adapt_names and rules_to_their_kind: meaning (the "
                           "readings of the two requests have the same shape; names, sides, "
                           "counts and places read in the request's: core/memory/meaning.py; "
                           "by words where either request has no reading) or words (the "
                           "requests differ in names only)")

    rules_to_their_kind: bool = setting(True, "a lesson written as a loop over every object of "
                                        "a kind (core/learning/general.py) or as the "
                                        "choice of an object by where it lies "
                                        "(core/learning/choice.py) is shown only to requests "
                                        "of its own kind (the same words, or other names "
                                        "only: core/memory/adapt.py); measured: its loop was "
                                        "imitated by other templates' requests. So is a "
                                        "lesson bound to its things (a hand taught for them, "
                                        "what comes along, asking first): shown only where "
                                        "the request reads as about those things "
                                        "(meaning.slot_mapping); measured: the cup's hand "
                                        "lesson shown for 'could I have the juice?' and the "
                                        "juice grasped with the left")

    def __post_init__(self) -> None:
        check_section(self, "memory")
