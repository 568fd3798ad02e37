"""Wordings written after the other-names change (session 60), in no pool or prompt: what the
reader with the embedded model reads each request as, in each world's scene.

    .venv/bin/python docs/eval/reading/other_names_probe_s60/probe.py > probe.log 2>&1
"""
import logging
import time

from llm_interaction_node.consoles import build_console
from llm_interaction_node.core.llm.factory import make_client
from llm_interaction_node.core.reading import Reader
from llm_interaction_node.core.reading.select import reading_scene
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import make_world
from llm_interaction_node.settings import load_settings

CASES = {
    "drinks_and_cup": ["could you get me a drinking glass", "I'd love a mug",
                       "pour me nothing, just hand me the glass", "a carton of milk please"],
    "living_room": ["bring me my spectacles", "can you fetch the paper",
                    "I want the telly remote", "give me the specs"],
    "sponge_workbench": ["hand me the cleaner", "get me the spring water", "pass me the driver",
                         "I need the bottle"],
    "ladder_and_shelf": ["bring me the stool", "get me the cereal", "I'd like the mug"],
}


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(name)s %(message)s")
    for name in ("httpx", "llama", "chromadb"):
        logging.getLogger(name).setLevel(logging.WARNING)
    reader = Reader(make_client(load_settings(None).llm))
    for world, saids in CASES.items():
        console = build_console("humanoid", make_world("humanoid", world),
                                EventQueue([], close=True))
        v = reading_scene(console.api).vocabulary
        print("SCENE", world, "|", v.scene_line())
        for said in saids:
            t0 = time.time()
            r = reader.read(said, v)
            got = r.render(v.spoken).replace("\n", "; ") if r else None
            print("READ", world, "|", said, "->", got, round(time.time() - t0, 1))


if __name__ == "__main__":
    main()
