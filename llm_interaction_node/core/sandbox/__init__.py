"""The sandbox: how one statement the LLM wrote is checked and run, and nothing else.

:mod:`.sandbox` puts the layers together (:class:`Sandbox`: ``prepare`` refuses syntax outside
the allowlist of :mod:`.policy` and rewrites the operations that can exhaust memory into the
guard calls of :mod:`.guards`; ``run`` executes under the :mod:`.watchdog`). The names the code
may reach are the console's, harmless builtins (:mod:`.safe_builtins`) and guarded views of
numpy and shapely (:mod:`.numpy_view`, :mod:`.shapely_view`, both over :mod:`.stand_in`).
:mod:`.statement_runner` runs one console input in a persistent namespace with console
semantics; :mod:`.process` (the caller's side) and :mod:`.worker` (the worker's) run it in a
worker process with hard limits, so a statement that exhausts memory or hangs ends its worker,
never the node. The console (``core/console/session.py``) chooses where a statement runs.
"""
from .sandbox import ImportRefused, Sandbox, SandboxViolation

__all__ = ["Sandbox", "SandboxViolation", "ImportRefused"]
