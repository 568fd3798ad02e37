"""The robot console: the interactive Python session the LLM writes into, one statement at a
time, and what it keeps.

:mod:`.session` is the console (:class:`~.session.ConsoleSession`: execute an input, record it,
hand back at ``wait_for_trigger()``; stdlib ``code`` semantics, the statement run by the sandbox,
``core/sandbox/``); :mod:`.builtins` the functions every console has besides the robot's
(``wait_for_trigger``, ``say``, ``ask``, ``learn_from_interaction``, ...); :mod:`.statements`
how an LLM completion becomes console inputs (fences, ``>>>`` echoes, invented output cut);
:mod:`.transcript` the console text as entries (what prompts, lessons and replays are made of);
:mod:`.notes` the console's notes to the model (a comment line after an input);
:mod:`.registry` the robot's own functions as the LLM sees them (the APIs of ``core/apis/``
register there; the listing is rendered from their live signatures); :mod:`.prompt` the console
prompt (header, API listing, examples, the interaction so far, a bare ``>>>``); :mod:`.errors`
the exceptions generated code can see (a semantic hint) or that end its statement (timeout,
stop, end of interaction).

Nothing is imported here: a module that needs the transcript does not load the console.
"""
