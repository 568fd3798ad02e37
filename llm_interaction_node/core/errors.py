"""Exceptions that generated code can see or that end its execution."""


class SemanticHintError(Exception):
    """An API call was wrong in a way the LLM can fix; the message says how.

    Only the message is shown in the console transcript (no traceback), e.g.
    ``unknown object 'cup'; use one of ['cup_large_0', 'milk_0']``.
    """


class EndOfInteraction(BaseException):
    """No further user input will come (end of a test script, replay file, EOF on a terminal).

    A BaseException so that ``except Exception`` in generated code cannot swallow it.
    """


class StatementTimeout(BaseException):
    """A statement of generated code ran longer than the configured limit.

    A BaseException so that ``except Exception`` in generated code cannot swallow it.
    """


class InteractionAborted(BaseException):
    """Stop was requested (stop topic, Ctrl-C): the running statement ends at once."""
