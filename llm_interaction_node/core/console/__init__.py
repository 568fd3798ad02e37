"""The robot console: the interactive Python session the LLM writes into, one statement at a
time, and what it keeps.

:mod:`.session` is the console (:class:`~.session.ConsoleSession`: execute an input, record it,
hand back at ``wait_for_trigger()``; stdlib ``code`` semantics, the statement run by the sandbox,
``core/sandbox/``); :mod:`.builtins` the functions every console has besides the robot's
(``wait_for_trigger``, ``say``, ``ask``, ``learn_from_interaction``, ...); :mod:`.prompt` the
console prompt (header, API listing, examples, the interaction so far, a bare ``>>>``).

The console's text (transcript, statements, notes) and the exceptions its code sees are
``core/transcript/``; the robot's functions as the LLM sees them (the registry the APIs
register in, the listing rendered from their live signatures) are ``core/apis/registry.py``:
both lie below the console, so the sandbox, the user's side, the LLM clients and learning use
them without the console.

Nothing is imported here: a module that needs the prompt does not load the session.
"""
