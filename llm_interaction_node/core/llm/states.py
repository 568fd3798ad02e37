"""Saved states of the embedded model, keyed by the tokens they hold: in RAM and on disk.

The embedded model (:mod:`.local`) keeps its state at three levels, all exact (the same
tokens give the same state):

1. the live state: llama.cpp evaluates only the tokens after the longest common prefix of
   the new prompt and the tokens it holds (within one interaction each statement costs its
   result and the next ``>>>``);
2. saved prefix states in RAM (:class:`PrefixStates`, LRU, ``state_cache_mb``): before a
   call, the saved state sharing the longest prefix with the prompt is restored when it
   beats the live one, so going back to an earlier set of examples (the next task of the
   same kind, a user turn after a different one) does not evaluate them again;
3. saved states on disk (:class:`DiskStates`) for ``prefill(persist=True)``: the agent
   prefills its stable prefix (header, API listing, the examples it will show) at
   start-up, and the next process loads it from disk instead of evaluating it (seconds).
   A prefill whose tokens no file holds exactly restores the file sharing the longest
   prefix with them and evaluates only the rest: after a learned example is stored (it
   comes after the seed examples), the next start evaluates that example, not the seeds.

This module keeps levels 2 and 3 (bytes and files); the client restores them into llama.cpp.
"""
from __future__ import annotations

import hashlib
import logging
import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..settings.cache import cache_dir

log = logging.getLogger(__name__)

# The newest prefill states kept on disk per model file: at most this many files and bytes.
# One start-up saves one per prompt it warms up (9 at issue 60: the console prompt, 4.5k
# tokens, 129 MB; the reading prompts, 7.5k tokens in 8 files; since then L_improve's chat and
# more reading prompts: 13 or more) and every other console prefix a process warms up is one
# more (another
# memory's lessons, the tabletop, a benchmark's): 12 files, as before issue 60, let a few runs
# of anything else drop the install's states, and the next start in any world evaluated them
# all again (~200 s on 2 cores). The newest files always fit (a used file is made newest).
DISK_STATES_KEPT = 40
DISK_STATES_BYTES = 3 * 1024 ** 3


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the common prefix of two token sequences (vectorised)."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    x = np.asarray(a[:n], dtype=np.int64)
    y = np.asarray(b[:n], dtype=np.int64)
    diff = np.flatnonzero(x != y)
    return int(diff[0]) if len(diff) else n


class PrefixStates:
    """Saved model states keyed by the tokens they hold (LRU within ``max_bytes``)."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._states: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._states)

    def put(self, tokens: Sequence[int], state: bytes) -> None:
        key = tuple(tokens)
        if key in self._states:
            self._states.move_to_end(key)
            return
        if len(state) > self.max_bytes:
            return
        self._states[key] = state
        self._bytes += len(state)
        while self._bytes > self.max_bytes:
            _, old = self._states.popitem(last=False)
            self._bytes -= len(old)

    def best(self, tokens: Sequence[int]) -> tuple[int, tuple[int, ...] | None]:
        """(usable prefix length, key) of the saved state sharing the longest prefix."""
        best_len, best_key = 0, None
        for key in self._states:
            n = common_prefix(key, tokens)
            if n > best_len:
                best_len, best_key = n, key
        if best_key is not None:
            self._states.move_to_end(best_key)
        return best_len, best_key

    def get(self, key: tuple[int, ...]) -> bytes:
        return self._states[key]

    def covers(self, tokens: Sequence[int]) -> bool:
        return tuple(tokens) in self._states


class DiskStates:
    """One model's saved states on disk: ``<fingerprint>-<digest of the tokens>.npz`` files
    (the tokens and the state), the newest kept: at most :data:`DISK_STATES_KEPT` files and
    :data:`DISK_STATES_BYTES` bytes (the newest file always). ``directory``
    defaults to ``<cache>/states/<model>``; ``fingerprint`` names the model file and context
    the states belong to."""

    def __init__(self, model: str, fingerprint: str, directory: str | Path | None = None):
        self.model = model
        self.fingerprint = fingerprint
        self._directory = Path(directory) if directory else None
        self._tokens_cache: dict[Path, tuple[tuple[int, int], list[int]]] = {}

    @property
    def directory(self) -> Path:
        return self._directory or cache_dir() / "states" / self.model

    def path(self, tokens: Sequence[int]) -> Path:
        digest = hashlib.sha1(np.asarray(tokens, dtype=np.int32).tobytes()).hexdigest()[:20]
        return self.directory / f"{self.fingerprint}-{digest}.npz"

    def files(self) -> list[Path]:
        """This model's saved state files, newest first (files being written excluded)."""
        found = []
        for path in self.directory.glob(f"{self.fingerprint}-*.npz"):
            if ".tmp." in path.name:
                continue
            try:
                found.append((path.stat().st_mtime, path))
            except OSError:                     # removed by another process meanwhile
                continue
        return [path for _, path in sorted(found, reverse=True)]

    def tokens(self, path: Path) -> list[int] | None:
        """The tokens a saved state holds (its state array is not read); None if the file
        cannot be read. Remembered per file version, so a scan reads each file once."""
        try:
            st = path.stat()
            version = (st.st_mtime_ns, st.st_size)
            known = self._tokens_cache.get(path)
            if known is not None and known[0] == version:
                return known[1]
            with np.load(path) as data:
                tokens = data["tokens"].tolist()
        except Exception as exc:  # noqa: BLE001 - a damaged file is skipped
            log.warning("ignoring the saved model state %s: %s", path, exc)
            return None
        self._tokens_cache[path] = (version, tokens)
        return tokens

    def exact(self, tokens: Sequence[int]) -> bytes | None:
        """The state saved for exactly ``tokens`` (in :meth:`path`); None if there is none.
        Raises what reading a damaged file raises."""
        path = self.path(tokens)
        if not path.is_file():
            return None
        with np.load(path) as data:
            saved = data["tokens"].tolist()
            state = data["state"].tobytes()
        return state if saved == list(tokens) else None

    def longest(self, tokens: Sequence[int], beat: int) -> tuple[int, Path, list[int]] | None:
        """(shared prefix length, file, its tokens) of the file sharing the longest prefix
        with ``tokens``, if longer than ``beat``; else None."""
        best, best_path, best_tokens = beat, None, None
        for path in self.files():
            saved = self.tokens(path)
            if saved is None:
                continue
            n = common_prefix(saved, tokens)
            if n > best:
                best, best_path, best_tokens = n, path, saved
        return None if best_path is None else (best, best_path, best_tokens)

    @staticmethod
    def state(path: Path) -> bytes:
        """The state a file holds (raises what reading a damaged file raises)."""
        with np.load(path) as data:
            return data["state"].tobytes()

    def used(self, path: Path) -> None:
        """Mark a file as just used: the newest files are the ones kept."""
        os.utime(path)

    def forget(self, path: Path) -> None:
        """A file that turned out damaged: read its tokens again next time."""
        self._tokens_cache.pop(path, None)

    def _beyond_budget(self) -> list[Path]:
        """The files past the newest that fit :data:`DISK_STATES_KEPT` and
        :data:`DISK_STATES_BYTES`."""
        files = self.files()
        total = 0
        for n, path in enumerate(files):
            try:
                total += path.stat().st_size
            except OSError:
                continue
            if n and (n >= DISK_STATES_KEPT or total > DISK_STATES_BYTES):
                return files[n:]
        return []

    def save(self, tokens: Sequence[int], state: bytes) -> None:
        """Write the state atomically, then drop all but the newest files (a failure is
        logged: the state is only not kept for the next start)."""
        path = self.path(tokens)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
            np.savez(tmp, tokens=np.asarray(tokens, dtype=np.int32),
                     state=np.frombuffer(state, dtype=np.uint8))
            tmp.replace(path)
            for old in self._beyond_budget():
                old.unlink(missing_ok=True)
                self._tokens_cache.pop(old, None)
        except OSError as exc:
            log.warning("could not save the model state to %s: %s", path, exc)
