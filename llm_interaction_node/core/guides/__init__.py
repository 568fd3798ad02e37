"""The decoding guides: each a grammar workaround for one measured habit of the small (1.5B)
model, in a module of its own whose docstring says what was measured. A guide is given the
turn's state (the agent, through the narrow protocol :class:`~.state.GuideState`) and what
the guides before it decided, and returns its restriction of the next console input (a focus
for the move function, names left out, a required statement, ...) or nothing
(:class:`~.state.Guide`); :data:`~.order.GUIDES` lists them in the order the agent composes
them (:func:`~.order.guidance`), and each is on where its ``AgentConfig`` switch is. The guides
that act before or after the grammar (the restated correction, the repeat note, the idle
retry, the asked speed and hand) are here too, as functions of the same state.
"""
