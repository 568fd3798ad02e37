"""Where the example memory's Chroma is and whether it answers.

``connect`` opens the embedded ``PersistentClient`` (``memory.path``) or a ``chroma run``
server (``memory.host``); ``server_errors`` turns a server that stopped answering into
``MemoryServerUnreachable`` (a ``ConnectionError``), so callers can go on without the memory
(``source.ExampleSource``, ``Learner.pending``) instead of failing.
"""
from __future__ import annotations

import functools
from pathlib import Path

from .config import MemoryConfig


class MemoryStoreError(RuntimeError):
    """The example memory cannot be opened or used."""


class MemoryServerUnreachable(MemoryStoreError, ConnectionError):
    """The configured Chroma server does not answer."""


def _transport_errors() -> tuple[type[BaseException], ...]:
    """What the Chroma HTTP client raises when its server does not answer (httpx wraps most
    httpcore errors, not all)."""
    errors: list[type[BaseException]] = [ConnectionError]
    try:
        import httpx
        errors.append(httpx.TransportError)
    except ImportError:
        pass
    try:
        import httpcore
        errors += [httpcore.NetworkError, httpcore.TimeoutException]
    except ImportError:
        pass
    return tuple(errors)


_TRANSPORT_ERRORS = _transport_errors()


def server_errors(method):
    """A Chroma server that stopped answering is a MemoryServerUnreachable (a
    ConnectionError), so callers can go on without the memory instead of failing. For the
    methods of an object whose ``config`` is its MemoryConfig."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except MemoryServerUnreachable:
            raise
        except _TRANSPORT_ERRORS as exc:
            if not self.config.host:
                raise
            raise MemoryServerUnreachable(
                f"the Chroma server at {self.config.host}:{self.config.port} does not answer "
                f"({type(exc).__name__}: {exc})") from exc
    return run


def connect(config: MemoryConfig):
    """(Chroma client, where it is: the server's address or the store's directory)."""
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    if config.host:
        try:
            client = chromadb.HttpClient(host=config.host, port=config.port, settings=settings)
            client.heartbeat()
        except Exception as exc:  # noqa: BLE001 - chroma raises ValueError/httpx errors
            raise MemoryServerUnreachable(
                f"cannot reach the Chroma server at {config.host}:{config.port} ({exc}). "
                f"Start one with `chroma run --path DIR --port {config.port}` on that host, "
                "or unset memory.host to use a local store.") from exc
        return client, f"chroma server {config.host}:{config.port}"
    path = Path(config.path).expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
        client = chromadb.PersistentClient(path=str(path), settings=settings)
    except Exception as exc:  # noqa: BLE001
        raise MemoryStoreError(f"cannot open the example memory at {path}: {exc}") from exc
    return client, str(path)
