"""The embedded model's saved states without the model: the RAM cache (LRU by bytes, longest
shared prefix) and the files on disk (exact match, longest prefix, damaged files, the newest
kept), and the one request object every backend executes."""
import os
import time

import numpy as np
import pytest

from llm_interaction_node.core.llm import LLMRequest, ScriptedLLM, states
from llm_interaction_node.core.llm.states import DiskStates, PrefixStates, common_prefix


def test_common_prefix():
    assert common_prefix([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2
    assert common_prefix([], [1]) == 0


def test_prefix_states_keep_the_newest_within_their_bytes():
    ram = PrefixStates(max_bytes=10)
    ram.put([1, 2, 3], b"abcd")
    ram.put([1, 2, 9], b"efgh")
    assert ram.best([1, 2, 3, 4]) == (3, (1, 2, 3))
    ram.put([7], b"ijkl")                          # over 10 bytes: the least recent goes
    assert len(ram) == 2 and not ram.covers([1, 2, 9]) and ram.covers([1, 2, 3])
    ram.put([8], b"x" * 11)                        # larger than the whole cache: not kept
    assert not ram.covers([8])


def test_disk_states_exact_longest_damaged_and_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(states, "DISK_STATES_KEPT", 2)
    disk = DiskStates("m", "fp", tmp_path)
    assert disk.directory == tmp_path and disk.exact([1, 2]) is None
    disk.save([1, 2, 3], b"state-a")
    assert disk.exact([1, 2, 3]) == b"state-a" and disk.exact([1, 2]) is None
    assert disk.path([1, 2, 3]).name.startswith("fp-")
    assert disk.longest([1, 2, 3, 4], beat=0) == (3, disk.path([1, 2, 3]), [1, 2, 3])
    assert disk.longest([1, 2, 3, 4], beat=3) is None
    assert disk.state(disk.path([1, 2, 3])) == b"state-a"

    damaged = tmp_path / "fp-damaged.npz"
    damaged.write_bytes(b"not a saved state")
    assert disk.tokens(damaged) is None                           # skipped, logged
    for age, path in ((30, disk.path([1, 2, 3])), (20, damaged)):
        os.utime(path, (time.time() - age, time.time() - age))
    disk.save([1, 2, 5, 6], b"state-b")
    os.utime(disk.path([1, 2, 5, 6]), (time.time() - 10, time.time() - 10))
    disk.save([9], b"state-c")                                    # the newest two are kept
    assert disk.files() == [disk.path([9]), disk.path([1, 2, 5, 6])]
    assert disk.longest([1, 2, 5, 6, 7], beat=0)[0] == 4


def test_disk_states_keep_the_newest_within_their_bytes_and_the_newest_always(tmp_path,
                                                                            monkeypatch):
    """Issue 60: files and bytes both bound what is kept; a used file is made newest, so the
    states every start restores outlive the ones saved once."""
    monkeypatch.setattr(states, "DISK_STATES_KEPT", 10)
    disk = DiskStates("m", "fp", tmp_path)
    for age, tokens in ((50, [1]), (40, [2]), (30, [3])):
        disk.save(tokens, b"x" * 1000)
        os.utime(disk.path(tokens), (time.time() - age, time.time() - age))
    size = disk.path([1]).stat().st_size
    monkeypatch.setattr(states, "DISK_STATES_BYTES", 3 * size)
    disk.used(disk.path([1]))                                   # restored at a start
    disk.save([4], b"x" * 1000)                                 # 4 files: the oldest goes
    assert disk.files() == [disk.path([4]), disk.path([1]), disk.path([3])]
    monkeypatch.setattr(states, "DISK_STATES_BYTES", 1)
    disk.save([5], b"x" * 1000)                                 # larger than the budget: kept
    assert disk.files() == [disk.path([5])]


def test_disk_states_default_to_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LLM_INTERACTION_CACHE", str(tmp_path))
    disk = DiskStates("qwen", "fp")
    disk.save(np.arange(5), b"s")
    assert disk.directory == tmp_path / "states" / "qwen" and len(disk.files()) == 1


def test_the_request_keeps_stop_as_given_and_complete_builds_it():
    assert LLMRequest("p", stop="\n>>>").stop == ("\n>>>",)
    assert LLMRequest("p", stop=None).stop == ()
    assert LLMRequest("p", stop=["a", "", "a"]).options()["stop"] == ("a", "", "a")
    llm = ScriptedLLM(["x>>>y", "z"])
    assert llm.complete("p", stop=">>>", grammar="g").text == "x"
    assert llm.execute(LLMRequest("q", max_tokens=3)).text == "z"
    assert llm.calls[0] == {"method": "complete", "stop": (">>>",), "temperature": None,
                            "max_tokens": None, "system": None, "one_input": False,
                            "grammar": "g"}
    with pytest.raises(TypeError):
        llm.complete("p", stops=[">>>"])              # a wrong keyword fails as before
