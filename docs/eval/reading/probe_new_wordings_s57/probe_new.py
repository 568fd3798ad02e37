"""Probe (session 57): six new wordings read in the sponge_workbench world by the embedded
model; prints one READ line each (output: probe_new.log beside this file)."""
import logging

from llm_interaction_node.core.llm.factory import make_client
from llm_interaction_node.core.reading import Reader
from llm_interaction_node.core.reading.select import reading_scene
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import build_console, make_world
from llm_interaction_node.settings import Settings

WORDINGS = [
    ("every time I ask for the spray, grab the sponge too", True),
    ("in future the sponge should come together with the cleaning spray", True),
    ("use two hands to carry them next time", True),
    ("could you fetch me a rag", False),
    ("pass me the H2O", False),
    ("I need the spray bottle", False),
]


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    for name in ("chromadb", "httpx", "urllib3", "llm_interaction_node.core.llm"):
        logging.getLogger(name).setLevel(logging.WARNING)
    world = make_world("humanoid", "sponge_workbench")
    console = build_console("humanoid", world, EventQueue([], close=True))
    scene = reading_scene(console.api)
    reader = Reader(make_client(Settings().llm))
    for said, reply in WORDINGS:
        moved = ["cleaning-spray_0"] if reply else None
        reading = reader.read(said, scene.vocabulary, reply=reply, moved=moved)
        text = reading.render(scene.vocabulary.spoken).replace("\n", "; ") if reading else None
        print("READ", repr(said), "->", text, flush=True)


if __name__ == "__main__":
    main()
