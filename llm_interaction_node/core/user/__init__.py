"""The user's side of an interaction, as the core meets it: where the user's words come from
(:mod:`.channel`: the one blocking :class:`~.channel.UserChannel` that ``wait_for_trigger()``
and ``ask()`` wait on, whatever the source: the terminal, a test, the simulated user, the ASR
topic), how the user's stop reaches the work that runs (:mod:`.interrupt`: the
:class:`~.interrupt.StopSignal` an LLM call, a skill and the agent check), and the pause while
the user speaks (:mod:`.speech_pause`: nothing new starts until a stop said meanwhile was
heard). The agent and the console use these; the ROS node and the commands provide them.

Nothing is imported here: a module that needs the stop signal does not load the channels.
"""
