"""The robot console: the interactive Python session the LLM writes into, one statement at a
time, and what it keeps.

:mod:`.session` is the console (:class:`~.session.ConsoleSession`: execute an input, record it,
hand back at ``wait_for_trigger()``; stdlib ``code`` semantics, the statement run by the sandbox,
``core/sandbox/``); :mod:`.builtins` the functions every console has besides the robot's
(``wait_for_trigger``, ``say``, ``ask``, ``learn_from_interaction``, ...); :mod:`.statements`
how an LLM completion becomes console inputs (fences, ``>>>`` echoes, invented output cut);
:mod:`.transcript` the console text as entries (what prompts, lessons and replays are made of);
:mod:`.notes` the console's notes to the model (a comment line after an input). The robot's own
functions are registered in ``core/registry.py`` by the APIs of ``core/apis/``.

Nothing is imported here: a module that needs the transcript does not load the console.
"""
