"""Progress of long prompt evaluations from the embedded model (llama.cpp evaluates in
batches; the client reports each) - gemma-3-270m carries it, it is fast. The endpoint side
(llama.cpp's prompt_progress over a stream) is in test_llm_client.py."""
import pytest

from llm_interaction_node.core.llm.local import LocalLlamaClient, local_available
from llm_interaction_node.core.llm.progress import DONE, PROMPT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not local_available("gemma-3-270m"), reason="gemma-3-270m not installed"),
]


@pytest.mark.timeout(900)      # three short calls; minutes on a loaded 2-core machine
def test_the_embedded_model_reports_each_prompt_batch_and_answers_the_same():
    # one thread: two spin at each barrier on a loaded machine (test_local_llm.THREADS)
    llm = LocalLlamaClient(model="gemma-3-270m", persist_states=False, incremental=False,
                           n_threads=1)
    llm.llama.n_batch = 64          # small batches: a short prompt (~160 tokens) has several
    prompt = "".join(f">>> x{i} = {i}\n" for i in range(20)) + ">>>"
    quiet = llm.complete(prompt, max_tokens=8, temperature=0)
    heard = []
    llm.progress = heard.append
    told = llm.complete(prompt, max_tokens=8, temperature=0)
    assert told.text == quiet.text                       # the same tokens, the same answer
    prompt_events = [e for e in heard if e.phase == PROMPT]
    batch = llm.llama.n_batch
    total = told.usage.evaluated_tokens - 1              # the last token is left to generation
    assert len(prompt_events) == -(-total // batch) >= 2
    assert [e.done for e in prompt_events] == [
        min(total, batch * (i + 1)) for i in range(len(prompt_events))
    ]
    assert all(e.total == total for e in prompt_events)
    assert heard[-1].phase == DONE
    heard.clear()
    llm.complete(">>> 1 + 1\n>>>", max_tokens=4)        # under a batch: only the end is told
    assert [e.phase for e in heard] == [DONE]
    llm.close()
