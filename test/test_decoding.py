"""Parts of the embedded model's decoding that need no model: the prompt-lookup draft and
what a one-input completion returns."""
import numpy as np

from llm_interaction_node.core.llm.decoding import PromptLookup
from llm_interaction_node.core.llm.local import console_input


def test_the_draft_is_what_followed_the_latest_occurrence_of_the_last_ngram():
    history = np.array([5, 1, 2, 3, 9, 9, 1, 2, 3, 7, 8, 6, 4, 1, 2, 3])
    assert PromptLookup(3).draft(history) == [7, 8, 6]           # the later match wins
    assert PromptLookup(3).draft(np.array([4, 2, 8, 1, 7, 2, 8])) == [1, 7, 2]  # a bigram
    assert PromptLookup(3).draft(np.array([1, 2, 3, 4])) == []   # nothing repeats
    assert PromptLookup(0).draft(history) == []                  # drafts off


def test_one_input_is_the_input_without_the_output_the_model_imagined():
    assert console_input(" get_obj_names()\n['red block']\n") == " get_obj_names()"
    assert console_input(" x = 1\ncan") == " x = 1"          # the start of an echo is dropped
    loop = " for n in names:\n...     put_first_on_second(n, 'red bowl')"
    assert console_input(loop + "\n'success'") == loop
    assert console_input(" say('hi')") == " say('hi')"


def test_the_draft_bound_is_what_a_fully_accepted_draft_gains_for_its_batch_cost():
    from llm_interaction_node.bench.decoding import draft_bound
    # a 5-token batch at 2.9x a 1-token step: 4 drafts gain at most 5 / 2.9 = 1.72x
    bound = draft_bound({1: 100.0, 2: 150.0, 5: 290.0})
    assert bound == {1: 1.33, 4: 1.72}
    assert draft_bound({1: 100.0, 3: 100.0}) == {2: 3.0}     # a free batch: k + 1
