from llm_interaction_node.bench.core_overhead import run


def test_core_overhead_benchmark_runs_its_interaction_cleanly():
    result = run(statements=26, n_examples=16)
    assert result["statements"] == 26
    assert result["overhead_ms_median"] > 0
    assert result["last_prompt_chars"] > 10_000      # 16 examples really are in the prompt
