"""The seed example transcripts in config/transcripts/<api>/*.txt.

These files are the predefined interaction examples the LLM sees in its prompt (and the
initial content of the interaction memory). Each one must replay cleanly against its world,
end waiting for the user, never call learn_from_interaction(), and start with a user request
of its own (retrieval indexes examples by their user utterances).
"""
from pathlib import Path

import pytest

from llm_interaction_node.cli import header_value, main
from llm_interaction_node.core.transcript import PS1, Transcript
from llm_interaction_node.sims.tabletop2d import parse_name

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = ROOT / "config" / "transcripts"
WORLDS = ROOT / "config" / "worlds"
EXAMPLES = sorted(TRANSCRIPTS.glob("*/*.txt"))
IDS = [f"{p.parent.name}/{p.name}" for p in EXAMPLES]
MIN_COUNTS = {"tabletop": 16, "humanoid": 10}


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
    assert not any(e.calls("learn_from_interaction") for e in entries)
    assert "learn_from_interaction" not in text
    if api == "tabletop":                     # the CaP tabletop API has no speech built-ins
        assert not any(e.calls("say") or e.calls("ask") for e in entries)


@pytest.mark.parametrize("api", sorted(MIN_COUNTS))
def test_enough_examples_per_api(api):
    found = [p for p in EXAMPLES if p.parent.name == api]
    assert len(found) >= MIN_COUNTS[api], f"{api}: {len(found)} examples"


def test_first_user_utterances_are_unique():
    seen: dict[str, str] = {}
    for path in EXAMPLES:
        key = " ".join(_first_utterance(path).lower().split())
        assert key not in seen, f"{path.name} and {seen[key]} start with the same request"
        seen[key] = path.name
