"""The console prompt: header, API listing, examples, then the interaction so far.

The parts that do not change during an interaction come first (header, listing, examples),
so that servers with prefix caching (OpenAI, vLLM, llama.cpp) reuse them between the many
calls of one interaction. The prompt ends with a bare ``>>>`` that the LLM completes. The
header and the loop-prevention example of each API set are part of its definition
(:mod:`..apis.sets`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
