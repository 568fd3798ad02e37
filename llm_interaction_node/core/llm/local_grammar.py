"""The console grammar of the embedded model (:mod:`.local`): GBNF grammars compiled by
llguidance over the model's vocabulary and kept (:class:`LocalGrammar`, a base of
:class:`.local.LocalLlamaClient`, which holds the model and the compiled grammars)."""
from __future__ import annotations

import warnings

from .decoding import GrammarMask
from .errors import LLMError
from .models import _installed

GRAMMARS_KEPT = 16          # compiled grammars kept (one per distinct scene and namespace)


class LocalGrammar:
    """The grammar masks of :class:`.local.LocalLlamaClient` (its ``llama``, ``spec``,
    ``_vocab``, ``_lltokenizer`` and ``_grammars``)."""

    # -- grammar -----------------------------------------------------------------------
    def _grammar_tokenizer(self):
        """llguidance's view of the model's vocabulary (built once: seconds on 2 cores)."""
        if self._lltokenizer is None:
            import llguidance.llamacpp
            with warnings.catch_warnings():      # one deprecation warning per vocabulary entry
                warnings.simplefilter("ignore", DeprecationWarning)
                self._lltokenizer = llguidance.llamacpp.lltokenizer_from_vocab(self._vocab)
        return self._lltokenizer

    def _mask(self, gbnf: str) -> GrammarMask:
        """A fresh llguidance matcher for the GBNF grammar (compiled once per text)."""
        try:
            import llguidance
            import llguidance.llamacpp
        except ImportError as exc:
            raise LLMError("the console grammar needs llguidance (requirements-llm.txt); set "
                           "llm.local_grammar: false to decode without it",
                           endpoint="embedded", model=self.spec.name) from exc
        matcher = self._grammars.get(gbnf)
        if matcher is None:
            matcher = llguidance.LLMatcher(self._grammar_tokenizer(),
                                           llguidance.grammar_from("gbnf", gbnf), log_level=0)
            if matcher.is_error():
                raise LLMError(f"the console grammar is invalid: {matcher.get_error()}",
                               endpoint="embedded", model=self.spec.name)
            self._grammars[gbnf] = matcher
            while len(self._grammars) > GRAMMARS_KEPT:
                self._grammars.popitem(last=False)
        else:
            self._grammars.move_to_end(gbnf)
            matcher.reset()
        return GrammarMask(matcher, self.llama.n_vocab())


def _llguidance_installed() -> bool:
    return _installed("llguidance")
