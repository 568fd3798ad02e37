"""What the learning tests share: a console with its learner, as ``build_session`` attaches
them (the same hooks, the replay check's start and end), on a real world."""
from __future__ import annotations

from typing import NamedTuple

from llm_interaction_node.core.llm import ScriptedLLM, TokenLedger
from llm_interaction_node.core.user import EventQueue
from llm_interaction_node.replay import interaction_start, live_end
from llm_interaction_node.session import learning_console, make_world
from llm_interaction_node.settings import LearningSettings


class LearningSession(NamedTuple):
    console: object
    learner: object
    spoken: list[str]
    robot: object


def learning_session(utterances, memory, statements, mode=None, world="drinks_and_cup",
                     live=True, api="humanoid", robot=None) -> LearningSession:
    """Run ``statements`` (a str runs; a ``('note', text)`` is annotated) on a console over
    ``robot`` (default: the ``world`` of ``api``) whose learner stores into ``memory``
    (``mode`` None: the settings' default). ``live``: the replay must also end like the live
    world (as build_session attaches it); without, as the ROS node's (no live world)."""
    spoken: list[str] = []
    robot = robot if robot is not None else make_world(api, world)
    learning = LearningSettings() if mode is None else LearningSettings(mode=mode)
    console, learner = learning_console(api, robot, EventQueue(utterances, close=True),
                                        ScriptedLLM([]), memory, learning, TokenLedger(),
                                        speak=spoken.append, start=interaction_start(robot),
                                        live=live_end(robot) if live else None)
    for statement in statements:
        if isinstance(statement, tuple):
            console.annotate(statement[1])
        else:
            console.execute(statement)
    return LearningSession(console, learner, spoken, robot)
