"""Text of the embedded model (:mod:`.local`): the console input cut from generated text,
and the GGUF's chat template as llama.cpp's formatter."""
from __future__ import annotations

from ..transcript.transcript import PS2


def console_input(text: str) -> str:
    """The console input at the start of generated text: its first line and the ``...``
    continuation lines after it, without what follows (the output the model imagined)."""
    lines = text.split("\n")
    end = 1
    while end < len(lines) and lines[end].startswith(PS2.rstrip()):
        end += 1
    return "\n".join(lines[:end]).rstrip()


def _chat_formatter(llama):
    """The GGUF's chat template as llama.cpp's jinja formatter, or None."""
    template = llama.metadata.get("tokenizer.chat_template")
    if not template:
        return None
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    def token_text(key: str) -> str:
        try:
            return llama.detokenize([int(llama.metadata[key])], special=True).decode(
                "utf-8", "replace")
        except (KeyError, ValueError):
            return ""

    return Jinja2ChatFormatter(
        template=template,
        eos_token=token_text("tokenizer.ggml.eos_token_id"),
        bos_token=token_text("tokenizer.ggml.bos_token_id"),
    )
