"""The seed example transcripts in config/transcripts/<api>/*.txt.

These files are the predefined interaction examples the LLM sees in its prompt (and the
initial content of the interaction memory). Each one must replay cleanly against its world,
end waiting for the user, and start with a user request of its own (retrieval indexes
examples by their user utterances). learn_from_interaction() appears only as the reference
method honours it: right after the user's reply that asks for it. Tabletop examples list the
scene's objects first, so the model sees the current names before it writes any.
What the paper teaches in its demonstrations (section E) is NOT in the humanoid seeds: it
must be learnt in a session (test/test_section_e.py).
"""
import re
from pathlib import Path

import pytest

from llm_interaction_node.cli import header_value, main
from llm_interaction_node.core.learning.gate import accepts
from llm_interaction_node.core.transcript.transcript import PS1, Transcript
from llm_interaction_node.sims.tabletop2d import parse_name

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = ROOT / "config" / "transcripts"
WORLDS = ROOT / "config" / "worlds"
EXAMPLES = sorted(TRANSCRIPTS.glob("*/*.txt"))
IDS = [f"{p.parent.name}/{p.name}" for p in EXAMPLES]
MIN_COUNTS = {"tabletop": 16, "humanoid": 10}
LEARN_DEMOS = {"tabletop": 2, "humanoid": 2}


def _header(text: str) -> list[str]:
    """The comment lines before the first console prompt."""
    lines = []
    for line in text.splitlines():
        if line.startswith(PS1.rstrip()):
            break
        lines.append(line)
    return lines


def _first_utterance(path: Path) -> str:
    said = Transcript.parse(path.read_text(encoding="utf-8")).user_utterances()
    assert said, f"{path.name}: no user utterance"
    return said[0]


@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
def test_example_replays_cleanly(path, capsys):
    api = path.parent.name
    assert main(["replay", str(path), "--api", api, "--check"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "Traceback" not in out and "SandboxViolation" not in out


@pytest.mark.parametrize("path", EXAMPLES, ids=IDS)
def test_example_format(path):
    api = path.parent.name
    text = path.read_text(encoding="utf-8")
    header = _header(text)
    assert header and all(line.startswith("#") for line in header), "header lines must be comments"
    world = header_value(text, "world")
    assert world, "missing '# world: ...' line"
    if api == "humanoid":
        assert (WORLDS / f"{world}.yaml").is_file(), f"unknown household world {world!r}"
    else:
        for name in world.split(","):
            parse_name(name.strip())          # raises for names the tabletop cannot spawn
    assert header_value(text, "seed") is None, "'# seed:' is not supported"
    assert any(not line.startswith("# world:") for line in header), "missing description line"
    assert "Traceback" not in text and "SandboxViolation" not in text

    entries = Transcript.parse(text).entries
    assert entries[0].source == "wait_for_trigger()", "an example starts with a user request"
    assert entries[-1].source == "wait_for_trigger()" and entries[-1].output == "", \
        "an example ends with a bare wait_for_trigger()"
    assert text.rstrip("\n").splitlines()[-1] == ">>> wait_for_trigger()"
    for n, entry in enumerate(entries):
        if entry.calls("learn_from_interaction"):
            assert entry.source == "learn_from_interaction()" and not entry.output
            decision = accepts(Transcript(entries[:n]), _utterance_before(entries, n))
            assert decision.is_request, f"learn call at input {n + 1} is not honoured: {decision}"
    if api == "tabletop":                     # the CaP tabletop API has no speech built-ins
        assert not any(e.calls("say") or e.calls("ask") for e in entries)
        assert entries[1].source == "get_obj_names()", "a tabletop task first lists the objects"


def _utterance_before(entries, n: int) -> str:
    said = Transcript(entries[:n]).user_utterances()
    return said[-1] if said else ""


# the lessons of the paper's demonstrations (section E): to be learnt, never seeded
SECTION_E_LESSONS = {
    "two objects in one trip, one per hand": re.compile(r"grasp\([^)]*'(?:left|right)'"),
    "faster driving on a route": re.compile(r"speed_factor\s*=\s*(?:[2-9]|1\.[1-9])"),
}


@pytest.mark.parametrize("path", [p for p in EXAMPLES if p.parent.name == "humanoid"],
                         ids=[i for i in IDS if i.startswith("humanoid/")])
def test_humanoid_seeds_do_not_teach_section_e(path):
    text = path.read_text(encoding="utf-8")
    for lesson, pattern in SECTION_E_LESSONS.items():
        assert not pattern.search(text), f"{path.name} teaches {lesson!r}"
    entries = Transcript.parse(text).entries
    for n, entry in enumerate(entries):   # the ladder only when the user asked or agreed
        if entry.calls("bring_object_to") and "ladder" in entry.source:
            before = Transcript(entries[:n])
            talked = " ".join(before.user_utterances() + [e.source for e in before.entries
                                                          if e.calls("ask")]).lower()
            assert "ladder" in talked, f"{path.name} brings the ladder unasked"


@pytest.mark.parametrize("api", sorted(MIN_COUNTS))
def test_enough_examples_per_api(api):
    found = [p for p in EXAMPLES if p.parent.name == api]
    assert len(found) >= MIN_COUNTS[api], f"{api}: {len(found)} examples"
    demos = [p for p in found if "learn_from_interaction()" in p.read_text(encoding="utf-8")]
    assert len(demos) >= LEARN_DEMOS[api], f"{api}: {len(demos)} learn_from_interaction demos"


def test_first_user_utterances_are_unique():
    seen: dict[str, str] = {}
    for path in EXAMPLES:
        key = " ".join(_first_utterance(path).lower().split())
        assert key not in seen, f"{path.name} and {seen[key]} start with the same request"
        seen[key] = path.name
