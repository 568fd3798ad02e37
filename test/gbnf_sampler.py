"""A random generator over GBNF text: walks the rules the project renders (one rule a line,
``name ::= body``; literals, character classes, groups, ``|``, ``*``, ``+``, ``?``) and writes
texts the grammar allows, characters that break Python (quotes, backslashes, newlines,
braces) drawn far more often than their share (test_grammar_python)."""
from __future__ import annotations

import random
import re

# characters a string literal must get right, drawn with BIAS where a class allows them
TRICKY = "'\"\\\n\r{}\t\x00 éaxuNU0789fr!:#."
BIAS = 0.6
_NAME = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "[": "[", "]": "]",
            "-": "-", "^": "^", "'": "'"}


class Grammar:
    def __init__(self, text: str):
        self.rules: dict[str, list] = {}
        for line in text.splitlines():
            if "::=" not in line:
                continue
            name, body = line.split("::=", 1)
            self._text, self._at = body, 0
            self.rules[name.strip()] = self._alternatives()
            assert self._at == len(body) or not body[self._at:].strip(), line
        self._height = self._heights()

    # -- parsing -------------------------------------------------------------------------
    def _skip(self) -> None:
        while self._at < len(self._text) and self._text[self._at] in " \t":
            self._at += 1

    def _peek(self) -> str:
        self._skip()
        return self._text[self._at] if self._at < len(self._text) else ""

    def _alternatives(self) -> list:
        alternatives = [self._sequence()]
        while self._peek() == "|":
            self._at += 1
            alternatives.append(self._sequence())
        return alternatives

    def _sequence(self) -> list:
        items = []
        while self._peek() not in ("", "|", ")"):
            item = self._item()
            while self._peek() in ("*", "+", "?"):
                op = self._text[self._at]
                self._at += 1
                item = ("rep", item, 0 if op != "+" else 1, 1 if op == "?" else None)
            items.append(item)
        return items

    def _char(self) -> str:
        ch = self._text[self._at]
        self._at += 1
        if ch != "\\":
            return ch
        esc = self._text[self._at]
        self._at += 1
        if esc == "x":
            code = self._text[self._at:self._at + 2]
            self._at += 2
            return chr(int(code, 16))
        return _ESCAPES[esc]

    def _item(self):
        ch = self._peek()
        if ch == '"':
            self._at += 1
            out = []
            while self._text[self._at] != '"':
                out.append(self._char())
            self._at += 1
            return ("lit", "".join(out))
        if ch == "[":
            self._at += 1
            negated = self._text[self._at] == "^"
            self._at += negated
            chars: set[str] = set()
            while self._text[self._at] != "]":
                first = self._char()
                if self._text[self._at] == "-" and self._text[self._at + 1] != "]":
                    self._at += 1
                    last = self._char()
                    chars |= {chr(c) for c in range(ord(first), ord(last) + 1)}
                else:
                    chars.add(first)
            self._at += 1
            return ("cls", frozenset(chars), negated)
        if ch == "(":
            self._at += 1
            alternatives = self._alternatives()
            assert self._peek() == ")"
            self._at += 1
            return ("grp", alternatives)
        name = _NAME.match(self._text, self._at)
        assert name, self._text[self._at:]
        self._at = name.end()
        return ("ref", name.group())

    # -- generating ----------------------------------------------------------------------
    def _heights(self) -> dict[str, float]:
        """The least derivation depth of each rule (a fixpoint), to end a deep walk."""
        height = dict.fromkeys(self.rules, float("inf"))
        changed = True
        while changed:
            changed = False
            for name, alternatives in self.rules.items():
                h = self._alt_height(alternatives, height)
                if h < height[name]:
                    height[name], changed = h, True
        return height

    def _alt_height(self, alternatives, height) -> float:
        return min(max((self._item_height(i, height) for i in seq), default=0)
                   for seq in alternatives)

    def _item_height(self, item, height) -> float:
        kind = item[0]
        if kind == "ref":
            return height[item[1]] + 1
        if kind == "grp":
            return self._alt_height(item[1], height)
        if kind == "rep":
            return 0 if item[2] == 0 else self._item_height(item[1], height)
        return 0

    def sample(self, rule: str, rng: random.Random, max_depth: int = 16) -> str:
        out: list[str] = []
        self._walk(("ref", rule), rng, 0, max_depth, out)
        return "".join(out)

    def _walk(self, item, rng, depth, max_depth, out) -> None:
        kind = item[0]
        if kind == "lit":
            out.append(item[1])
        elif kind == "cls":
            out.append(_draw(item[1], item[2], rng))
        elif kind in ("ref", "grp"):
            alternatives = self.rules[item[1]] if kind == "ref" else item[1]
            if depth >= max_depth:          # end the walk: the shallowest alternative
                seq = min(alternatives, key=lambda s: max(
                    (self._item_height(i, self._height) for i in s), default=0))
            else:
                seq = rng.choice(alternatives)
            for part in seq:
                self._walk(part, rng, depth + 1, max_depth, out)
        else:
            _, inner, least, most = item
            n = least
            if depth < max_depth:
                while (most is None or n < most) and rng.random() < (0.5 if most == 1 else 0.75):
                    n += 1
            for _ in range(n):
                self._walk(inner, rng, depth + 1, max_depth, out)


def _draw(chars: frozenset[str], negated: bool, rng: random.Random) -> str:
    def allowed(c: str) -> bool:
        return (c not in chars) if negated else (c in chars)
    tricky = [c for c in TRICKY if allowed(c)]
    if tricky and rng.random() < BIAS:
        return rng.choice(tricky)
    if not negated:
        return rng.choice(sorted(chars))
    while True:
        c = chr(rng.choice([rng.randrange(0x20, 0x7f), rng.randrange(0xa0, 0x2000)]))
        if allowed(c):
            return c
