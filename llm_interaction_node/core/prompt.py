"""The console prompt: header, API listing, examples, then the interaction so far.

The parts that do not change during an interaction come first (header, listing, examples),
so that servers with prefix caching (OpenAI, vLLM, llama.cpp) reuse them between the many
calls of one interaction. The prompt ends with a bare ``>>>`` that the LLM completes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

HEADERS = {
    "humanoid": (
        "Continue the interaction below between a user and a humanoid household robot. The "
        "robot is controlled through a Python console: each input line is run at once and "
        "its result is printed under it. Write Python code only, one statement per input, "
        "never explanations. Nothing can be imported. When there is nothing left to do, call "
        "wait_for_trigger() to wait for the user."
    ),
    "tabletop": (
        "Continue the interaction below between a user and a tabletop robot arm with a "
        "suction gripper. The robot is controlled through a Python console: each input line "
        "is run at once and its result is printed under it. Write Python code only, one "
        "statement per input, never explanations. Nothing can be imported; numpy is available "
        "as np, and shapely's geometry and affinity names (Point, LineString, Polygon, rotate, "
        "translate, ...) are defined. When there is nothing left to do, call wait_for_trigger() to wait for the user."
    ),
}

BANNER = ("# Python console of the robot. Every input is executed immediately.\n"
          "# Available functions:")
EXAMPLES_HEADING = "# Examples of earlier interactions:"
EXAMPLE_HEADING = "# Example {n}:"
CURRENT_HEADING = "# Current interaction:"
PROMPT_END = ">>>"
STOP = ("\n>>>", "\n# Example", "\n# Current interaction")


@dataclass
class PromptBuilder:
    header: str
    api_listing: str

    def stable_prefix(self, examples: Sequence[str]) -> str:
        """Everything that stays fixed while the examples stay the same."""
        parts = [self.header, "", BANNER, self.api_listing, ""]
        if examples:
            parts.append(EXAMPLES_HEADING)
            for n, example in enumerate(examples, 1):
                parts += ["", EXAMPLE_HEADING.format(n=n), example.strip("\n")]
            parts.append("")
        parts.append(CURRENT_HEADING)
        return "\n".join(parts) + "\n"

    def build(self, examples: Sequence[str], interaction: str) -> str:
        """The full prompt; ``interaction`` is the rendered transcript of the current task."""
        body = interaction.strip("\n")
        return self.stable_prefix(examples) + (body + "\n" if body else "") + PROMPT_END

CHAT_SYSTEM = ("You operate a robot through its Python console. Reply with exactly the next "
               "console input (the Python code that follows '>>>'), with no prose and no "
               "markdown.")

# Shown to the LLM after it repeated itself: how a console user breaks out of a loop.
LOOP_EXAMPLES = {
    "humanoid": """>>> wait_for_trigger()
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
... wait_for_trigger()""",
    "tabletop": """>>> wait_for_trigger()
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
>>> # The loop put every block in the yellow bowl: the task was done. Doing it again changes nothing.
... wait_for_trigger()""",
}
