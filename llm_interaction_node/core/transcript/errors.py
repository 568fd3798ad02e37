"""Exceptions that generated code can see or that end its execution."""


class SemanticHintError(Exception):
    """An API call was wrong in a way the LLM can fix; the message says how.

    Only the message is shown in the console transcript (no traceback), e.g.
    ``unknown object 'cup'; use one of ['cup_large_0', 'milk_0']``.
    """


class BlockedError(SemanticHintError):
    """An object cannot be moved because another one lies on it: ``blocked`` (the object the
    call named), ``blocker`` (what must be moved off it first) and ``around`` (the objects
    where ``blocked`` lies: its pile, its bowl; put there, the blocker covers it again). The
    agent's grammar makes the next input move ``blocker`` elsewhere (agent.unblock_first)."""

    def __init__(self, message: str, blocked: str, blocker: str, around: tuple[str, ...] = ()):
        super().__init__(message)
        self.blocked = blocked
        self.blocker = blocker
        self.around = tuple(around)

    def __reduce__(self):                   # pickled to and from the sandbox worker
        return type(self), (str(self), self.blocked, self.blocker, self.around)


class UnknownNameError(SemanticHintError):
    """A call named something the robot does not know of (``name``): what the robot says next
    may not claim it was found or brought (core/decoding/claims.py)."""

    def __init__(self, message: str, name: object):
        super().__init__(message)
        self.name = name

    def __reduce__(self):                   # pickled to and from the sandbox worker
        return type(self), (str(self), self.name)


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
