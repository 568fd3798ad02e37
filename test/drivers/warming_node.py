"""The interaction node (its own ``main``) over a stand-in model whose prefill is slow and
observable: the endpoint client of the node's settings (a FakeLLMServer answers) plus the
embedded model's prefill hook, which "evaluates" 4000 tokens in ten batches over PREFILL_S
seconds, reports its progress as the embedded model does (``progress``) and, like llama.cpp,
runs one evaluation at a time. Each prefill's start and end and each completion are written to
the EVENTS file (a line each: event, monotonic time), so a test sees their order.

Usage: python test/drivers/warming_node.py EVENTS PREFILL_S --ros-args ...
"""
import sys
import threading
import time

from llm_interaction_node.core.llm import Usage
from llm_interaction_node.core.llm.progress import PROMPT, LLMProgress, report
from llm_interaction_node.ros.nodes import interaction_node

TOKENS = 4000


class SlowPrefill:
    """``client`` with a slow, observable ``prefill`` (see the module docstring)."""

    def __init__(self, client, events: str, seconds: float):
        self._client = client
        self._events = events
        self._seconds = seconds
        self._model = threading.Lock()
        self.progress = None

    def __getattr__(self, name):
        return getattr(self._client, name)

    def _note(self, what: str) -> None:
        with open(self._events, "a") as f:
            f.write(f"{what} {time.monotonic():.3f}\n")

    def prefill(self, prefix, system=None, persist=False):
        with self._model:
            self._note("prefill-start")
            start = time.monotonic()
            for n in range(1, 11):
                time.sleep(self._seconds / 10)
                report(self.progress, LLMProgress(PROMPT, n * TOKENS // 10, TOKENS,
                                                  elapsed_s=time.monotonic() - start))
            self._note("prefill-end")
        return Usage(prompt_tokens=TOKENS, evaluated_tokens=TOKENS)

    def complete(self, *args, **kwargs):
        with self._model:
            self._note("complete")
            return self._client.complete(*args, **kwargs)


def main() -> int:
    events, seconds = sys.argv[1], float(sys.argv[2])
    real = interaction_node.make_client
    interaction_node.make_client = lambda config, **kw: SlowPrefill(real(config, **kw), events,
                                                                    seconds)
    return interaction_node.main([sys.argv[0], *sys.argv[3:]])


if __name__ == "__main__":
    sys.exit(main())
