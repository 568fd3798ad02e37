"""The memory commands are written once (core/memory/commands.py): `llm-interaction memory`
and the interaction node's ManageMemory service refuse the same bad requests, before anything
changes. The store is a real ChromaDB in tmp_path; no ROS graph is needed for the service's
command function."""
import pytest
from llm_interaction_interfaces.srv import ManageMemory

from llm_interaction_node.core.memory import commands
from llm_interaction_node.ros.memory_service import memory_command

JUICE = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'bring me the juice'}
>>> say('Here it comes')
>>> wait_for_trigger()"""
R = ManageMemory.Request


def test_the_node_and_the_command_line_refuse_the_same_requests(tmp_path, memory):
    kept = memory.add(JUICE, "learned")
    # an unknown id: nothing deleted, on both surfaces (the node used to answer deleted: 0)
    with pytest.raises(KeyError, match="no example with id nope .*nothing deleted"):
        memory_command(memory, R.COMMAND_DELETE, "nope")
    with pytest.raises(KeyError, match="nothing deleted"):
        commands.delete(memory, [kept.id, "nope"])
    assert memory.has(kept.id)
    # a source that does not exist is named as such
    for call in (lambda: memory_command(memory, R.COMMAND_LIST, "bogus"),
                 lambda: commands.list_examples(memory, "bogus")):
        with pytest.raises(ValueError, match="source must be one of seed, learned"):
            call()
    with pytest.raises(ValueError, match="k must be >= 0"):
        commands.search(memory, ["juice"], k=-1)
    with pytest.raises(FileNotFoundError, match="no such file"):
        commands.import_file(memory, tmp_path / "missing.yaml")
    # the same results where the request is good
    assert [e["id"] for e in memory_command(memory, R.COMMAND_LIST, "learned")] == [kept.id]
    assert [e.id for e in commands.list_examples(memory, "learned")] == [kept.id]
    assert memory_command(memory, R.COMMAND_SEARCH, "the juice please")[0]["id"] == kept.id
    assert memory_command(memory, R.COMMAND_DELETE, kept.id) == {"deleted": 1}
    assert memory.count() == 0
