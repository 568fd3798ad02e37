"""What an L_improve rewrite leaves out when it is stored: copied comments and repeated moves.

Measured (issue 30, ``blocks_in_bowl`` run 5 at a1c6717): in its live turn the 1.5B model wrote
``# The user has learned from this interaction: '...'`` three times (words nobody said), and
put two blocks in the bowl twice. L_improve's rewrite kept both, the comment four times, and
the rewrite was stored; the comment then turned up in corrected turns of other templates. A
lesson is copied: what it shows must be the way to do the request, once.

* A comment line the live interaction already held is the live model's (the console's notes
  are gone before L_improve reads it, :func:`.transcripts.interaction_text`): unchecked, it is
  left out, as mode ``final`` leaves out every comment of the model. A comment the rewrite
  writes anew is its lesson (the few-shot examples teach one) and stays, once.
* A move repeated word for word with no input naming that object in between
  (``put_first_on_second('blue block', 'yellow bowl')`` twice) does nothing the first did not:
  the repeat is left out. An input between that names the object (``grasp('blue block')``,
  a block put on it) may have moved it: the move stays.
"""
from __future__ import annotations

from ..transcript.transcript import Entry, Transcript
from .transcripts import move_key


def _comment_text(line: str) -> str | None:
    """A comment line's text, lower-case with single spaces; None for a line of code."""
    line = line.strip()
    return " ".join(line.lstrip("#").lower().split()) if line.startswith("#") else None


def comment_texts(transcript: Transcript) -> set[str]:
    """The texts of every comment line of the transcript's inputs."""
    return {text for entry in transcript.entries for line in entry.source.splitlines()
            if (text := _comment_text(line))}


def without_copied_comments(rewrite: Transcript, original: Transcript) -> Transcript:
    """``rewrite`` without the comment lines ``original`` holds and without a comment line
    written before in it; an input left with no line is dropped."""
    seen = comment_texts(original)
    entries = []
    for entry in rewrite.entries:
        kept = []
        for line in entry.source.splitlines():
            text = _comment_text(line)
            if text is not None:
                if not text or text in seen:
                    continue
                seen.add(text)
            kept.append(line)
        if len(kept) == len(entry.source.splitlines()):
            entries.append(entry)
        elif any(ln.strip() for ln in kept):
            entries.append(Entry("\n".join(kept), entry.output, entry.error))
    return Transcript(entries)


def without_repeated_moves(transcript: Transcript) -> Transcript:
    """The transcript without each move (:func:`.transcripts.move_key`) that repeats, word for word,
    an earlier move of the same object with no input naming the object in between."""
    settled: dict[str, str] = {}      # an object -> its last move's source, while nothing named it
    entries = []
    for entry in transcript.entries:
        source = " ".join(entry.source.split())
        key = move_key(entry.source)
        if key is not None and settled.get(key[1]) == source:
            continue
        for name in [n for n in settled if n in entry.source]:
            del settled[name]
        if key is not None:
            settled[key[1]] = source
        entries.append(entry)
    return Transcript(entries)


def tidy_rewrite(rewrite: Transcript, original: Transcript) -> Transcript:
    """The rewrite as it is stored: :func:`without_copied_comments`, then
    :func:`without_repeated_moves`."""
    return without_repeated_moves(without_copied_comments(rewrite, original))


__all__ = ["comment_texts", "without_copied_comments", "without_repeated_moves", "tidy_rewrite"]
