"""The API sets: what the LLM's console offers for one kind of robot, defined once per set.

An :class:`ApiSet` holds everything that differs between the humanoid household robot and the
CaP tabletop arm: the robot API class, the built-ins (the tabletop has no speech), the prompt
header, the loop-prevention example, whether shapely's geometry names are in the console,
and where its example transcripts are. Code elsewhere asks the set (``api.speaks``,
``api.geometry``), never its name.

The API *preset* (:data:`API_PRESETS`, the setting ``robot_api.preset``) decides which API
every system gets, the same for all of them: ``ours`` (the default: the API classes as they
are) or ``paper`` (the paper's API and outputs: each set's ``paper_options`` for its class,
``TabletopApi(paper=True)``, ``HumanoidApi(explain_failures=False)``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from ..settings.config_files import config_path
from .humanoid import HumanoidApi
from .registry import public_functions
from .tabletop import TabletopApi

_HUMANOID_HEADER = (
    "Continue the interaction below between a user and a humanoid household robot. The "
    "robot is controlled through a Python console: each input line is run at once and "
    "its result is printed under it. Write Python code only, one statement per input, "
    "never explanations. Nothing can be imported. When there is nothing left to do, call "
    "wait_for_trigger() to wait for the user."
)
_TABLETOP_HEADER = (
    "Continue the interaction below between a user and a tabletop robot arm with a "
    "suction gripper. The robot is controlled through a Python console: each input line "
    "is run at once and its result is printed under it. Write Python code only, one "
    "statement per input, never explanations. Nothing can be imported; numpy is available "
    "as np, and shapely's geometry and affinity names (Point, LineString, Polygon, rotate, "
    "translate, ...) are defined. When there is nothing left to do, call wait_for_trigger() to "
    "wait for the user."
)

# Shown to the LLM after it repeated itself: how a console user breaks out of a loop.
_HUMANOID_LOOP = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'bring the teapot to the shelf'}
>>> list_objects()
['mug_0', 'kettle_0']
>>> list_objects()
['mug_0', 'kettle_0']
>>> # Repeating the same call will not change the result. Ask the user instead.
... ask('I cannot see a teapot. Did you mean the kettle?')
'yes, the kettle'
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'put the mug on the dining table'}
>>> move_to(get_location_coordinates('inFrontOf_dining-table_0'))
'success'
>>> place_object('mug_0', 'on_dining-table_0')
'success'
>>> say('The mug is on the dining table.')
>>> move_to(get_location_coordinates('inFrontOf_dining-table_0'))
'success'
>>> # The mug is on the table and the user knows: the task is done. Hand back, do not redo it.
... wait_for_trigger()"""
_TABLETOP_LOOP = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'put the lime block in the box'}
>>> get_obj_names()
['green block', 'blue block', 'red bowl', 'yellow bowl']
>>> get_obj_names()
['green block', 'blue block', 'red bowl', 'yellow bowl']
>>> # Repeating the same call will not change the result. Wait for the user to clarify.
... wait_for_trigger()
{'type': 'dialog', 'text': 'sorry, I meant the green block and the red bowl'}
>>> put_first_on_second('green block', 'red bowl')
'success'
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'now all the blocks go into the yellow bowl'}
>>> for name in [name for name in get_obj_names() if 'block' in name]:
...     put_first_on_second(name, 'yellow bowl')
'success'
'success'
>>> put_first_on_second('green block', 'yellow bowl')
'success'
>>> # The loop put every block in the yellow bowl: the task was done. Doing it again changes \
nothing.
... wait_for_trigger()"""


ApiPreset = Literal["ours", "paper"]
API_PRESETS: tuple[str, ...] = get_args(ApiPreset)


@dataclass(frozen=True)
class ApiSet:
    """One API set. ``name`` names its memory collection and its example folder."""

    name: str
    robot_api: type                  # the API class over the robot protocol
    builtins: tuple[str, ...]        # InteractionBuiltins methods in the console, in order
    header: str                      # the prompt's first paragraph
    loop_example: str                # shown after the LLM repeated itself
    geometry: bool = False           # shapely's geometry names in the console (CaP's)
    paper_options: tuple[tuple[str, Any], ...] = ()   # the API class's options of the paper preset

    @property
    def speaks(self) -> bool:
        """Whether the robot can talk (``say``); one without speech gives up silently."""
        return "say" in self.builtins

    @property
    def examples_dir(self) -> Path:
        """The seed example transcripts, ``config/transcripts/<name>``."""
        return config_path("transcripts", self.name)

    def options(self, preset: str = "ours", extra: Mapping[str, Any] | None = None
                ) -> dict[str, Any]:
        """The API class's options for an API preset (:data:`API_PRESETS`), then ``extra``
        (the humanoid's ``min_speed``/``max_speed``)."""
        if preset not in API_PRESETS:
            raise ValueError(f"unknown API preset {preset!r}; use one of {', '.join(API_PRESETS)}")
        return {**(dict(self.paper_options) if preset == "paper" else {}), **(extra or {})}

    def make_api(self, robot, options: Mapping[str, Any] | None = None):
        """The API object over ``robot`` (a world or a ROS robot); ``options`` go to the API
        class (:meth:`options`)."""
        return self.robot_api(robot, **(options or {}))

    def functions(self, robot, options: Mapping[str, Any] | None = None) -> list[Callable]:
        """The robot functions bound to ``robot``, as the listing shows them."""
        return public_functions(self.make_api(robot, options))

    def __str__(self) -> str:
        return self.name


HUMANOID = ApiSet("humanoid", HumanoidApi,
                  ("say", "ask", "wait_for_trigger", "learn_from_interaction", "forget_learned"),
                  _HUMANOID_HEADER, _HUMANOID_LOOP,
                  paper_options=(("explain_failures", False),))
# the tabletop API of the CaP evaluation has no speech, and shapely as the reference's
TABLETOP = ApiSet("tabletop", TabletopApi, ("wait_for_trigger", "learn_from_interaction"),
                  _TABLETOP_HEADER, _TABLETOP_LOOP, geometry=True,
                  paper_options=(("paper", True),))

API_SETS: dict[str, ApiSet] = {s.name: s for s in (HUMANOID, TABLETOP)}
API_NAMES = tuple(API_SETS)


def api_set(api: ApiSet | str) -> ApiSet:
    """The API set itself, or the one of that name (a clear error for an unknown name)."""
    if isinstance(api, ApiSet):
        return api
    try:
        return API_SETS[api]
    except (KeyError, TypeError):
        raise ValueError(f"unknown API set {api!r}; use one of {', '.join(API_NAMES)}") from None


__all__ = ["ApiSet", "ApiPreset", "API_PRESETS", "HUMANOID", "TABLETOP", "API_SETS", "API_NAMES",
           "api_set"]
