"""GBNF text for the console constraint (core/decoding/constraint.py): string literals, character
classes, a word that is none of some words (``word_except``) and quoted names."""
from __future__ import annotations

from collections.abc import Iterable

_WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"


def gbnf_literal(text: str) -> str:
    """A GBNF string literal."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _char_class(chars: Iterable[str]) -> str:
    """A GBNF character class of exactly ``chars`` (ranges where they run on)."""
    codes = sorted({ord(c) for c in chars})
    parts, i = [], 0
    while i < len(codes):
        j = i
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        esc = [_class_char(chr(c)) for c in (codes[i], codes[j])]
        parts.append(esc[0] if i == j else f"{esc[0]}-{esc[1]}" if j > i + 1 else esc[0] + esc[1])
        i = j + 1
    return "[" + "".join(parts) + "]"


def _class_char(ch: str) -> str:
    return "\\" + ch if ch in "]\\-^[" else ch


def word_except(rule: str, words: Iterable[str], dead: Iterable[str] = (),
                identifier: bool = False) -> list[str]:
    """GBNF rules ``rule ::= ...`` for a word (``[A-Za-z0-9_]+``) that is none of ``words``
    and does not start with any of ``dead``: a trie over those words where every step but
    into a dead end may leave it. ``identifier``: no leading digit; else a word that starts
    with a digit is a Python number (``12abc``, ``1__0`` are no Python; a fraction after a
    ``.`` may start with zeros, so ``0123`` stays a word)."""
    dead = set(dead)
    words = sorted(set(words) | dead)
    rules: list[str] = []
    names: dict[str, str] = {}

    def node(prefix: str) -> str:
        if prefix in names:
            return names[prefix]
        name = rule if not prefix else f"{rule}-{len(names)}"
        names[prefix] = name
        children = sorted(
            {w[len(prefix)] for w in words if w.startswith(prefix) and len(w) > len(prefix)}
        )
        first = _WORD_CHARS.replace("0123456789", "") if not prefix else _WORD_CHARS
        alternatives = [f"{_char_class([c for c in first if c not in children])} {rule}-tail"]
        if not prefix and not identifier:
            alternatives.append(f"{rule}-num")
        alternatives += [f"{gbnf_literal(c)} {node(prefix + c)}" for c in children
                         if prefix + c not in dead]
        body = " | ".join(alternatives)
        if prefix and prefix not in words:        # the word may end here
            body = f"({body})?"
        rules.append(f"{name} ::= {body}")
        return name

    node("")
    rules.append(f"{rule}-tail ::= [A-Za-z0-9_]*")
    if not identifier:
        digits = '[0-9] ("_"? [0-9])*'
        rules.append(f'{rule}-num ::= {digits} ([eE] [-+]? {digits})? [jJ]? '
                     '| "0" ([xX] ("_"? [0-9a-fA-F])+ | [oO] ("_"? [0-7])+ | [bB] ("_"? [01])+)')
    return rules


def _quoted(names) -> list[str]:
    """GBNF literals of each name in single and double quotes."""
    return [gbnf_literal(q) for n in names for q in (repr(n), _double_quoted(n))]


def _double_quoted(name: str) -> str:
    """``name`` as a Python string literal in double quotes (escaped as ``repr`` escapes: a
    name with a newline or a control character is still one line of Python)."""
    return '"' + "".join("\\" + ch if ch in '\\"' else ch if ch == "'" else repr(ch)[1:-1]
                         for ch in name) + '"'
