"""Where the example memory's Chroma is and whether it answers.

``connect`` opens the embedded ``PersistentClient`` (``memory.path``) or a ``chroma run``
server (``memory.host``, every request limited to ``memory.timeout_s``: a frozen server
is an unreachable one); ``server_errors`` turns a server that stopped answering into
``MemoryServerUnreachable`` (a ``ConnectionError``), so callers can go on without the memory
(``source.ExampleSource``, ``Learner.pending``) instead of failing.
"""
from __future__ import annotations

import functools
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
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


def _http_client(config: MemoryConfig):
    """chromadb's HttpClient with every request limited to ``config.timeout_s`` (chromadb
    builds its httpx client with no timeout: a frozen server held the robot for the whole
    freeze). Its constructor already asks the server, so it runs in a thread waited for."""
    import chromadb
    import httpx
    from chromadb.config import Settings

    made: Future = Future()

    def make() -> None:
        try:
            made.set_result(chromadb.HttpClient(host=config.host, port=config.port,
                                                settings=Settings(anonymized_telemetry=False)))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            made.set_exception(exc)

    threading.Thread(target=make, name="chroma-connect", daemon=True).start()
    try:
        client = made.result(timeout=config.timeout_s)
    except FutureTimeout:
        raise TimeoutError(f"no answer within {config.timeout_s:g} s") from None
    session = getattr(getattr(client, "_server", None), "_session", None)
    if not isinstance(session, httpx.Client):
        raise MemoryStoreError("this chromadb's HTTP client cannot be given a timeout "
                               "(chromadb changed?): a frozen server would hold the robot")
    session.timeout = httpx.Timeout(config.timeout_s)
    return client


def connect(config: MemoryConfig):
    """(Chroma client, where it is: the server's address or the store's directory)."""
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    if config.host:
        try:
            client = _http_client(config)
            client.heartbeat()
        except MemoryStoreError:
            raise
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
