"""The embedded default model (llama.cpp, gemma-3-270m) on real prompts: valid statements,
incremental decoding that changes the cost but not the output, the no-key default."""
import pytest

from llm_interaction_node.core.agent import AgentConfig
from llm_interaction_node.core.llm import LLMConfig, TokenLedger, make_client
from llm_interaction_node.core.llm.local import LocalLlamaClient, local_available
from llm_interaction_node.core.policy import TurnPolicy
from llm_interaction_node.core.statements import extract_statements
from llm_interaction_node.core.user import EventQueue
from llm_interaction_node.session import build_agent, build_console, load_examples, make_world

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not local_available(), reason="embedded model not installed")]

REQUEST = "put the red block in the blue bowl"


@pytest.fixture(scope="module")
def model():
    return LocalLlamaClient()


def run_interaction(llm, statements=4):
    """One tabletop request with the given client; returns the statements it wrote."""
    world = make_world("tabletop", "red block,blue bowl,green block", seed=1)
    console = build_console("tabletop", world, EventQueue([REQUEST], close=True))
    ledger = TokenLedger()
    agent = build_agent("tabletop", llm, console, load_examples("tabletop")[:6],
                        config=AgentConfig(policy=TurnPolicy(max_statements=statements)),
                        ledger=ledger)
    agent.run()
    return [e.source for e in console.transcript][1:], ledger


def test_no_endpoint_means_the_embedded_model():
    client = make_client(LLMConfig.from_sources({}, env={}))
    assert isinstance(client, LocalLlamaClient)
    assert "tiny" in client.describe() and "LLM_INTERACTION_BASE_URL" in client.describe()


def test_one_valid_statement_from_a_console_prompt(model):
    prompt = "\n\n".join(load_examples("tabletop")[:4]) + \
        f"\n\n>>> wait_for_trigger()\n{{'type': 'dialog', 'text': '{REQUEST}'}}\n>>>"
    completion = model.complete(prompt, stop=["\n>>>"], max_tokens=64)
    statements = extract_statements(completion.text)
    assert statements, completion.text
    compile(statements[0], "<console>", "exec")           # syntactically valid Python
    assert completion.usage.prompt_tokens > 200 and completion.usage.completion_tokens > 0


def test_incremental_and_naive_decoding_agree_and_incremental_evaluates_less(model):
    naive = LocalLlamaClient(model_path=model.model_path, incremental=False)
    naive.llama = model.llama                    # the same weights; only the state policy differs
    model.incremental = True
    got_naive, ledger_naive = run_interaction(naive)
    model.llama.reset()
    got_incremental, ledger_incremental = run_interaction(model)
    assert got_incremental == got_naive and len(got_naive) >= 2
    n, i = ledger_naive.total, ledger_incremental.total
    assert n.prompt_tokens == i.prompt_tokens                 # the same prompts were sent
    assert n.evaluated_tokens == n.prompt_tokens              # naive: everything, every time
    assert i.evaluated_tokens < n.evaluated_tokens / 1.5      # incremental: only the new text
    assert i.cached_tokens > 0
