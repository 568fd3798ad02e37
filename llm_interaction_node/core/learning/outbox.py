"""Lessons kept on disk while the example memory cannot be reached (issue 45).

A lesson the robot promised to store when its memory is back must outlive the process: the
learner writes it here (one JSON file per lesson, written whole then renamed into place, so
a crash leaves the old state or the new one) and removes it once the memory took it. The
next learner over the same directory starts with what it finds here and stores it as soon as
the memory answers (at the session's start when it does). Each kept lesson has its own
example id, so a lesson stored just before a crash that kept its file is not stored twice.
"""
from __future__ import annotations

import json
import logging
import os
import uuid
from dataclasses import asdict
from pathlib import Path

from .outcome import Lesson

log = logging.getLogger(__name__)

_FIELDS = ("transcript", "source", "origin", "problem", "improvement", "id", "reading", "author",
           "scope", "edit")


class Outbox:
    """The directory of kept lessons (created when the first is kept)."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory).expanduser()

    def put(self, lesson: Lesson) -> Path:
        """Write ``lesson`` (giving it an id if it has none); OSError if it cannot be kept."""
        if not lesson.id:
            lesson.id = uuid.uuid4().hex[:16]
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self._path(lesson)
        data = {k: v for k, v in asdict(lesson).items() if k in _FIELDS}
        temporary = path.with_suffix(".tmp")
        with open(temporary, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
        return path

    def remove(self, lesson: Lesson) -> None:
        if lesson.id:
            self._path(lesson).unlink(missing_ok=True)

    def load(self) -> list[Lesson]:
        """The kept lessons, oldest first; an unreadable file is logged and set aside
        (renamed ``.bad``), never silently dropped."""
        if not self.directory.is_dir():
            return []
        lessons = []
        for path in sorted(self.directory.glob("*.json"), key=lambda p: p.stat().st_mtime):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if not all(isinstance(data.get(k), str) for k in ("transcript", "source", "id")):
                    raise ValueError("no transcript, source or id")
                lessons.append(Lesson(**{k: data.get(k) for k in _FIELDS}))
            except (OSError, ValueError, TypeError, AttributeError) as exc:
                log.error("a kept lesson cannot be read (%s: %s); set aside", path, exc)
                self._set_aside(path)
        return lessons

    def discard(self, lesson: Lesson) -> None:
        """A kept lesson the memory refused (not an outage): set aside, not retried."""
        if lesson.id:
            self._set_aside(self._path(lesson))

    @staticmethod
    def _set_aside(path: Path) -> None:
        try:
            path.rename(path.with_suffix(".bad"))
        except OSError as exc:
            log.error("cannot set %s aside: %s", path, exc)

    def _path(self, lesson: Lesson) -> Path:
        return self.directory / f"{lesson.id}.json"
