"""A real grammar engine (llguidance) over a byte vocabulary: whether a GBNF grammar lets a
model write a text, decided by the grammar text the models get (test_constraint, test_agent)."""
import llguidance


class _Bytes:
    """A vocabulary of the 256 bytes and an end token: the grammar decides every character."""
    tokens = [bytes([i]) for i in range(256)] + [b"<end>"]
    eos_token_id, bos_token_id, special_token_ids = 256, None, [256]

    def __call__(self, text):
        return list(text if isinstance(text, bytes) else text.encode())


def accepted(gbnf: str, text: str, whole: bool = True) -> bool:
    """Whether the grammar lets a model write ``text`` (and end there, with ``whole``)."""
    tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Bytes()))
    matcher = llguidance.LLMatcher(tokenizer, llguidance.grammar_from("gbnf", gbnf), log_level=0)
    assert not matcher.is_error(), matcher.get_error()
    ok = matcher.consume_tokens(list(text.encode())) and not matcher.is_error()
    return ok and (matcher.is_accepting() or not whole)
