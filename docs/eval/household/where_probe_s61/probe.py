"""Five household requests written after where_it_lies / put_as_read (session 61), in no pool or
prompt: what the robot did and where the thing ended, with the embedded model and a fresh
memory. Run from the repository root: python docs/eval/household/where_probe_s61/probe.py"""
import logging
import tempfile

from llm_interaction_node.bench import household_situations as H
from llm_interaction_node.core.user.channel import CallbackUser
from llm_interaction_node.session import build_session
from llm_interaction_node.settings import Settings

logging.basicConfig(level=logging.WARNING)
logging.getLogger("llm_interaction_node.core.guides").setLevel(logging.INFO)
PROBES = [("living_room", "fetch my reading glasses from wherever they are", "reading-glasses_0"),
          ("living_room", "I'd like the remote, please", "remote-control_0"),
          ("living_room", "move the banana onto the coffee table", "banana_0"),
          ("sponge_workbench", "can you grab the screwdriver for me", "screwdriver_0"),
          ("drinks_and_cup", "please set the milk down on the kitchen counter", "milk-carton_0")]
for world_name, said, thing in PROBES:
    world = H.household_world(world_name)
    before = H.state(world)[thing]
    queue = [said]
    with tempfile.TemporaryDirectory() as memory:
        settings = Settings().with_overrides({"memory.path": memory})
        session = build_session("humanoid", world, CallbackUser(
            lambda purpose, prompt, queue=queue: queue.pop(0) if queue and purpose != "ask"
            else ("yes" if purpose == "ask" else None)), settings)
        session.agent.run()
        acts = [e.source for e in session.console.transcript.entries
                if e.source.startswith(("move_to", "grasp", "place_object", "handover", "bring"))]
        session.console.close()
    print(f"== {world_name}: {said!r}\n   {thing}: {before} -> {H.state(world)[thing]}")
    for a in acts:
        print("   " + a)
