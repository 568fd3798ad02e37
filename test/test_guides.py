"""The decoding guides (core/guides): each is turned on by an ``AgentConfig`` switch of its
own (or always on), says in its module's docstring what was measured, and the agent composes
them in the stated order; what a guide that is off would decide is not asked."""
import ast
import importlib
from dataclasses import fields, replace
from pathlib import Path
from types import SimpleNamespace

from llm_interaction_node.core.agent import AgentConfig
from llm_interaction_node.core.guides import order
from llm_interaction_node.core.guides.order import GUIDES, guidance
from llm_interaction_node.core.guides.state import Guidance, Guide, GuideState
from test_agent import make_agent


def test_every_guide_has_a_switch_of_the_agent_section_and_a_measured_reason():
    switches = {f.name for f in fields(AgentConfig)}
    assert [g.name for g in GUIDES] == [
        "correction focus", "act on correction", "forget only when asked",
        "learn only when asked", "no bare hand-back", "learn on request", "change of hands",
        "follow lessons", "no needless question", "move after correction", "comments in a row",
        "say what happened", "unblock first"]
    for guide in GUIDES:
        assert guide.switch is None or guide.switch in switches
        module = importlib.import_module(guide.decide.__module__)
        assert module.__doc__ and "easured" in module.__doc__, guide.name


def test_the_guides_compose_in_order_and_a_guide_that_is_off_is_not_asked():
    asked = []

    def deciding(name, result):
        def decide(state, vocabulary, so_far):
            asked.append((name, so_far))
            return result
        return decide

    guides = (Guide("a", None, deciding("a", Guidance(focus="F", withheld=frozenset({"x"})))),
              Guide("b", "unblock_first", deciding("b", Guidance(required="first()"))),
              Guide("c", None, deciding("c", Guidance(required="second()", must_act=True,
                                                      withheld=frozenset({"y"})))),
              Guide("d", "comments_in_a_row", deciding("d", Guidance(comment_allowed=False))))
    state = SimpleNamespace(config=AgentConfig())
    composed = guidance(state, None, guides)
    assert [n for n, _ in asked] == ["a", "b", "c", "d"]
    assert composed == Guidance(focus="F", must_act=True, withheld=frozenset({"x", "y"}),
                                required="first()", comment_allowed=False)
    asked.clear()
    state = SimpleNamespace(config=replace(AgentConfig(), unblock_first=False,
                                           comments_in_a_row=0))
    assert guidance(state, None, guides).required == "second()"
    assert [n for n, _ in asked] == ["a", "c"]


def _state_reads(path) -> set[str]:
    """The attributes a guide module reads or calls on its ``state``."""
    tree = ast.parse(path.read_text())
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id == "state"}


def test_the_guides_read_the_agent_only_through_the_public_names_of_their_protocol():
    declared = set(GuideState.__annotations__) | {
        name for name, value in vars(GuideState).items()
        if callable(value) and not name.startswith("_")}
    guides = Path(order.__file__).parent
    for path in sorted(guides.glob("*.py")):
        reads = _state_reads(path)
        assert not {n for n in reads if n.startswith("_")}, path.name
        assert reads <= declared, (path.name, reads - declared)
    agent, *_ = make_agent([], [])
    assert all(hasattr(agent, name) for name in declared), declared - set(dir(agent))
