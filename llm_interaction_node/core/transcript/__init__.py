"""The console's text: what an interaction is made of as the model reads it, and the
exceptions its code can see, below everything that writes or reads that text.

:mod:`.transcript` the console text as entries (``>>> `` inputs and what the console printed;
what prompts, example files, lessons and replays are made of); :mod:`.statements` how an LLM
completion becomes console inputs (fences, ``>>>`` echoes, invented output cut); :mod:`.notes`
the console's notes to the model (comment lines written after an input, never part of a
lesson) and the new-task marker; :mod:`.errors` the exceptions generated code can see (a
semantic hint of the robot API) or that end its statement (timeout, stop, end of
interaction).

The console (``core/console/``), the sandbox that runs its statements, the user's side, the
LLM clients, learning and the memory all use these; this package imports no other package of
the core (``test/test_import_graph.py``: the core's package graph has no cycle).

Nothing is imported here: a module that needs the transcript loads nothing else.
"""
