"""The decoding: what the console accepts as the model's next input, as a check and as a GBNF
grammar the model decodes under. :mod:`.constraint` takes the console's snapshot
(:class:`~.constraint.ConsoleVocabulary`: the API, the built-ins, the task's names, the scene's
names) and gives a :class:`~.constraint_rules.Constraint`, whose check and grammar are
:mod:`.constraint_rules`, over the GBNF text helpers of :mod:`.gbnf` and the API's scene
functions (:mod:`.scene_functions`: the parameters that take a name of the scene). The
restrictions a turn can add are computed here too, each from typed inputs, never from the
user's words: after a correction, which objects and targets the move may name
(:mod:`.correction`, from the readings); the taught lesson's next statement when its request
is asked again (:mod:`.lesson_follow`); after the console reported that something did not
happen, the only sentences ``say()`` may say (:mod:`.claims`). When each applies is decided
by the decoding guides (``core/guides/``, composed in ``core/guides/order.py``).

Nothing is imported here: a module that needs the GBNF helpers does not load the readings.
"""
