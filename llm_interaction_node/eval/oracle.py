"""A scripted LLM stand-in for the benchmark: it knows each task's correct program.

For tests and for timing the harness (``bench/eval_protocol.py``) without a model: only the
LLM is replaced; worlds, memory and the harness are real. Never used for reported results.
It reads the prompt the way a model would see it and answers:

* console prompts (ours, ending in ``>>>``): the next statement of the solution program of
  the instruction in the current interaction, then ``wait_for_trigger()``; for instructions
  in ``fail_first`` it first runs the task's plausible wrong program
  (:func:`tasks.mistaken_program`: axes flipped, the other block, one block forgotten, ...)
  and hands back, so the user says what it sees; where a task has none it only looks
  (``get_obj_names()``) and hands back;
  after one of the simulated user's requests to learn (the built-in pool's and those it is
  given: it knows the script's sentences, it does not read) it calls
  ``learn_from_interaction()``;
* L_improve chats: a problem, an improvement and an improved transcript;
* other completions (CaP-style: the whole program at once): the program of the latest
  instruction found in the prompt.
"""
from __future__ import annotations

import ast

from ..core.learning.improve import QUESTIONS
from ..core.llm import ScriptedLLM
from .simulated_user import LEARN
from .tasks import mistaken_program, solution_program

WAIT = "wait_for_trigger()"
LOOK = "get_obj_names()"


def statements(program: str) -> list[str]:
    """Top-level statements of a program, each as source text."""
    tree = ast.parse(program)
    lines = program.splitlines()
    return ["\n".join(lines[node.lineno - 1: node.end_lineno]) for node in tree.body]


def dialog_texts(text: str) -> list[tuple[int, str]]:
    """(line index, text) of every ``{'type': 'dialog', 'text': ...}`` output line."""
    out = []
    for i, line in enumerate(text.splitlines()):
        if line.startswith("{'type': 'dialog'"):
            try:
                out.append((i, ast.literal_eval(line)["text"]))
            except (ValueError, SyntaxError, KeyError):
                pass
    return out


class OracleLLM(ScriptedLLM):
    """``tasks``: the tasks it knows; ``said``: the instruction each is asked with (default:
    the template's own sentence; a wording pool's: eval/phrasings.py); ``learn_requests``:
    what the simulated user says to ask for a lesson besides the built-in pool's."""

    def __init__(self, tasks, fail_first=(), said=None, learn_requests=()):
        super().__init__([])
        said = list(said) if said is not None else [t.instruction for t in tasks]
        self.programs = {s: statements(solution_program(t))
                         for t, s in zip(tasks, said, strict=True)}
        self.mistakes = {s: statements(mistaken_program(t) or LOOK)
                         for t, s in zip(tasks, said, strict=True)}
        self.learn_requests = frozenset(LEARN) | frozenset(learn_requests)
        self.fail_first = set(fail_first)
        self.failed: set[str] = set()

    def _next(self, prompt: str, call: dict) -> str:
        with self._lock:
            self.prompts.append(prompt)
            self.calls.append(call)
        if call["method"] == "chat":
            return self._improve(call["messages"])
        if prompt.rstrip().endswith(">>>"):
            return self._console(prompt.split("# Current interaction:")[-1])
        return self._program(prompt)

    def _instruction(self, text: str) -> str | None:
        said = [t for _i, t in dialog_texts(text)]
        return next((t for t in said if t in self.programs), None)

    def _console(self, current: str) -> str:
        said = dialog_texts(current)
        instruction = self._instruction(current)
        if instruction is None or not said:
            return WAIT
        last_line, last = said[-1]
        # statements since the user spoke; the console's comments (a restated correction,
        # a note) are no statements of the program
        after = [ln for ln in current.splitlines()[last_line + 1:]
                 if ln.startswith(">>> ") and not ln.startswith(">>> #")]
        if last in self.learn_requests:
            return "learn_from_interaction()" if not after else WAIT
        if (
            last == instruction
            and instruction in self.fail_first
            and instruction not in self.failed
        ):
            # the wrong program (or a look), then hand back (a bare hand-back would be asked
            # again: the agent's idle retries)
            mistake = self.mistakes[instruction]
            if len(after) < len(mistake):
                return mistake[len(after)]
            self.failed.add(instruction)
            return WAIT
        program = self.programs[instruction]
        return program[len(after)] if len(after) < len(program) else WAIT

    def _program(self, prompt: str) -> str:
        best, where = None, -1
        for instruction, program in self.programs.items():
            i = prompt.rfind(instruction)
            if i > where:
                best, where = program, i
        return "\n".join(best) if best else "pass"

    def _improve(self, messages) -> str:
        question = messages[-1]["content"]
        if question == QUESTIONS[1]:
            return "Carry out the instruction right away instead of handing back first."
        if question == QUESTIONS[2]:
            interaction = next(m["content"] for m in reversed(messages)
                               if m["role"] == "user" and "What is the problem" in m["content"])
            instruction = self._instruction(interaction)
            lines = [">>> wait_for_trigger()", repr({"type": "dialog", "text": instruction})]
            for statement in self.programs[instruction]:
                first, *rest = statement.splitlines()
                lines += [">>> " + first] + ["... " + r for r in rest]
                if rest:
                    lines.append("... ")
            lines.append(">>> wait_for_trigger()")
            return "\n".join(lines)
        return "The robot handed back without doing anything the first time."
