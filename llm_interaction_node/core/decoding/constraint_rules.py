"""The :class:`Constraint`: a snapshot of what the console accepts (core/decoding/constraint.py's
docstring says what), its check of an input and its rendering as a GBNF grammar."""
from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..transcript.statements import bound_names, module_bindings
from .correction import Focus
from .gbnf import _double_quoted, _quoted, gbnf_literal, word_except
from .scene_functions import SceneFunction

SAY = "say"             # the built-in that speaks (held to the console's report: claims.py)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"\s*[A-Za-z_]\w*(\s*,\s*[A-Za-z_]\w*)*\s*=(?!=)")
# Python's keywords but the values: no name (a new one, a keyword argument's, one inside an
# f-string's braces) may be one of them (``for = 3`` is no Python)
NOT_NAMES = tuple(k for k in keyword.kwlist if k not in ("True", "False", "None"))


@dataclass(frozen=True)
class Constraint:
    """What the console accepts right now (see the module docstring)."""

    known: frozenset[str]                               # words an input may start with
    scene_functions: Mapping[str, SceneFunction] = field(default_factory=dict)
    scene_names: tuple[str, ...] = ()
    # words of this task's console output (outside quotes): the grammar does not let a new
    # name be one of them (``cannot = ...`` is the model echoing "cannot pick ...")
    echo_words: frozenset[str] = frozenset()
    # after a correction: what the move function may take (core/decoding/correction.py)
    focus: Focus | None = None
    # words the grammar does not let an input start with in this turn, though they are known
    # (``forget_learned`` when the user did not say "forget": its gate would refuse it)
    withheld: frozenset[str] = frozenset()
    # the one input the grammar lets the model write in this turn's first statement
    # (``learn_from_interaction()`` when the user asked to learn: agent.learn_on_request);
    # like the focus it acts in the decoding only
    required: str | None = None
    # the API's functions: no input may bind one of their names (``wait_for_trigger =
    # wait_for_trigger()`` was measured: the robot could not hand back for the rest of the task)
    api_functions: frozenset[str] = frozenset()
    # the input is a call of the focus's move function (comments may come first): after a
    # correction that names where things go, before the robot acted (agent.move_after_correction)
    move_now: bool = False
    # the input may be a comment (the agent says no after comments_in_a_row of them: grammar
    # only, like the focus; a comment at the end of a statement's line stays allowed)
    comment_allowed: bool = True
    # after the console reported that something did not happen (core/decoding/claims.py): what say()
    # may say now (the texts; empty: nothing), None: say() is free. Grammar and check.
    speech: tuple[str, ...] | None = None
    speech_refusal: str = ""

    # -- the check ----------------------------------------------------------------------
    def check(self, source: str) -> str | None:
        """Why the console input ``source`` is refused, or None when it may run."""
        lines = source.strip("\n").splitlines()
        if not lines or all(not ln.strip() or ln.lstrip().startswith("#") for ln in lines):
            return None
        try:
            tree = ast.parse(source)
        except SyntaxError:
            # broken code is the console's to report, except when it is echoed output
            first = next(ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#"))
            return self._start_reason(first, set())
        rebound = sorted(module_bindings(tree) & self.api_functions)
        if rebound:
            return (f"{rebound[0]!r} is a function of the robot's API: an input may call it "
                    "but not assign or define that name")
        idle = next((name for node in ast.walk(tree) for name in [_unused_loop_variable(node)]
                     if name), None)
        if idle:
            return (f"the loop never uses {idle!r}: every pass would do the same; use the "
                    "loop variable in its body, or write the statements one by one")
        bound: set[str] = set()
        for statement in tree.body:
            # a bare unknown name (``cannot``, ``Point``) is echoed output; a call of an
            # unknown function is left to the console (its NameError is the model's feedback)
            root = _bare_name(statement)
            if root is not None and root not in self.known and root not in bound:
                return self._start_reason(lines[statement.lineno - 1][statement.col_offset:], bound)
            bound |= bound_names(statement)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                reason = self._speech_reason(node) or self._argument_reason(node)
                if reason:
                    return reason
        return None

    def _speech_reason(self, call: ast.Call) -> str | None:
        """A ``say`` the console's last report does not allow (core/decoding/claims.py)."""
        if self.speech is None or call.func.id != SAY:
            return None
        text = _literal(call.args[0]) if len(call.args) == 1 and not call.keywords else None
        if text is not None and text in self.speech:
            return None
        return self.speech_refusal or "say() may not be called now"

    def _start_reason(self, line: str, bound: set[str]) -> str | None:
        text = line.lstrip()
        if text.startswith("#"):
            return None
        word = _IDENT.match(text)
        if word is None:
            return (f"{_first_line(text)!r} is console output, not a statement: an input starts "
                    "with a function, a name, a keyword or a comment")
        name = word.group()
        if name in self.known or name in bound or _ASSIGNMENT.match(text):
            return None
        return (f"{name!r} is not a function or a name of this console ({_first_line(text)!r} "
                "looks like console output): call a function or use a name defined in this task")

    def missing_name(self, source: str) -> str | None:
        """The first name ``source`` passes to a scene function that the scene does not have
        (None: none, or no Python): what the robot may not say it found (claims.py)."""
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return None
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                fn = self.scene_functions.get(node.func.id)
                for param in fn.name_params if fn is not None else ():
                    name = _literal(fn.argument(node, param))
                    if name is not None and name not in self.scene_names \
                            and name not in fn.places.get(param, ()):
                        return name
        return None

    def _argument_reason(self, call: ast.Call) -> str | None:
        fn = self.scene_functions.get(call.func.id)
        if fn is None:
            return None
        # the focus after a correction acts in the decoding only (the grammar): an endpoint
        # model without one, or a scripted stand-in, writes what it writes (Focus.check says
        # why a call would be outside it, for a log or a future note)
        for param in fn.name_params:
            arg = fn.argument(call, param)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) \
                    and arg.value not in self.scene_names \
                    and arg.value not in fn.places.get(param, ()):
                names = list(self.scene_names) + list(fn.places.get(param, ()))
                return (f"{fn.name}(): {arg.value!r} is not in the scene; its names are "
                        f"{names!r}")
        return None

    def check_all(self, statements: Iterable[str]) -> str | None:
        """The first refusal among ``statements`` (None: all may run)."""
        return next((r for r in map(self.check, statements) if r), None)

    # -- the grammar --------------------------------------------------------------------
    def gbnf(self, program: bool = False) -> str:
        """The rules as a llama.cpp GBNF grammar of one console continuation after ``>>>``;
        ``program``: of a whole program (CaP, HELPER) instead, whose lines may start with
        any word (programs define and call their own functions): only the name arguments of
        scene functions are held to the scene."""
        return _Gbnf(self).render(program)


def _literal(arg: ast.expr | None) -> str | None:
    """A string literal argument's value; None for anything else (an expression)."""
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None


def _bare_name(statement: ast.stmt) -> str | None:
    """The name of an expression statement that is a name or a dotted name, else None."""
    if not isinstance(statement, ast.Expr):
        return None
    node = statement.value
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _unused_loop_variable(node: ast.AST) -> str | None:
    """The variable of a ``for`` loop over anything but ``range(...)`` whose body reads none
    of its variables (``for name in blocks: put_first_on_second('yellow block', ...)``,
    measured: copied from a lesson, one block moved per turn); ``_``-names may be unused."""
    if not isinstance(node, ast.For):
        return None
    if isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) \
            and node.iter.func.id == "range":
        return None
    targets = [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)]
    read = {n.id for part in node.body + node.orelse for n in ast.walk(part)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if any(t.startswith("_") or t in read for t in targets):
        return None                        # one variable of ``for a, b in ...`` may be spare
    return targets[0] if targets else None


def _first_line(text: str, limit: int = 60) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit] + "..."


class _Gbnf:
    """One console continuation: ``" "? first-line ("\\n..." continuation)* ("\\n" tail)?``.

    Lines are sequences of units: words (``word``: identifiers, numbers, keywords; never a
    scene function's name, those are ``call``), calls of scene functions with their
    name arguments constrained, and non-word units (strings, bracketed groups, operators,
    spaces). Words alternate with non-word units, so a word always ends where the text stops
    being a word. A word, a string or a bracketed group is followed by a space, an operator,
    a comment or a call's or subscript's bracket (``trailer``; ``in-u``, ``arg-u``, ``rest-w``,
    ``rest-c``), never directly by a word, a string or a brace: ``'You're welcome'`` is the
    string ``'You'`` and the words ``re welcome``, three quotes open a triple-quoted string,
    ``x{...}`` and ``'a'{n}`` are no Python (issue 60); the string literals themselves are
    always Python (``STRINGS``: no unescaped quote of their own, no raw newline, only valid
    escapes, f-strings with simple replacement fields; no bytes). After a closing bracket or
    a string and a space only a keyword that may follow an expression (``if``, ``for``,
    ``in``, ``and``, ...), an operator, another bracket or a comment comes (``rest-k``):
    measured, the 1.5B model wrote ``wait_for_trigger() wait_for_trigger() ...`` on one line
    until the context was exceeded. Brackets balance within a line; the tail (what the model
    writes after the input: its idea of the output) is free and cut off by the client.
    """

    # an argument written as an expression (a variable, ``names[0]``): not a string literal
    EXPRESSION = "expr-arg"

    FIXED = r"""root ::= " "? top ("\n..." (" " cont)?)* ("\n" tail)?
top ::= {top}
cont ::= comment | [ \t]+ (comment | wexpr) | begin
begin ::= known rest-w | api ws? (trailer rest-c | "." rest-o) | target{call_rest}{speech}
wexpr ::= word rest-w{call_rest}
target ::= new (ws? "," ws? new)* ws? "=" ws? (wexpr | closed rest-c | [-+~] rest-o)
tail ::= [^.] [^\x00]*
comment ::= "#" [^\n\r\x00]*
rest-w ::= (ws rest-s | op rest-o | trailer rest-c | comment)?
rest-s ::= (wexpr | closed rest-c | op rest-o | comment)?
rest-o ::= (ws rest-s | wexpr | closed rest-c | op rest-o | comment)?
rest-c ::= (ws rest-k | op rest-o | trailer rest-c | comment)?
rest-k ::= (follow rest-w | closed rest-c | op rest-o | comment)?
follow ::= "and" | "or" | "not" | "in" | "is" | "if" | "else" | "for" | "as" | "from" | "async"
closed ::= string | group
wc ::= word{call_start}
op ::= [-+*/%@&|^~<>=!.,:;]
ws ::= [ \t]+
group ::= trailer | "{{" inner "}}"
trailer ::= "(" inner ")" | "[" inner "]"
inner ::= ((wc | string | group) in-u | (op | ws) inner)?
in-u ::= (trailer in-u | (op | ws) inner)?
"""
    ARGUMENTS = r"""sep ::= ws? "," ws?
free-arg ::= string arg-u | expr-arg
expr-arg ::= (wc | group) arg-u | [-+~] arg-o
arg-o ::= ((wc | string | group) arg-u | arg-n arg-o)?
arg-u ::= (trailer arg-u | arg-n arg-o)?
arg-n ::= [-+*/%@&|^~<>!.:;] | ws
"""
    # string literals: plain ones with the escapes Python knows (\N{...} and \U... left
    # out), raw ones (a backslash keeps the next character), f-strings whose replacement
    # fields are a name or a number with attributes, subscripts, calls and arithmetic, a
    # conversion and a format spec; no bytes (b'é' and 'a' b'c' are no Python)
    STRINGS = r"""string ::= "'" sq* "'" | "\"" dq* "\"" | [rR] raw | [fF] fstr
raw ::= "'" rsq* "'" | "\"" rdq* "\""
fstr ::= "'" fsq* "'" | "\"" fdq* "\""
sq ::= [^'\\\n\r\x00] | esc
dq ::= [^"\\\n\r\x00] | esc
esc ::= "\\" ([\\'"abfnrtv0-7] | "x" hex hex | "u" hex hex hex hex)
hex ::= [0-9a-fA-F]
rsq ::= [^'\\\n\r\x00] | "\\" [^\n\r\x00]
rdq ::= [^"\\\n\r\x00] | "\\" [^\n\r\x00]
fsq ::= [^'\\\n\r\x00{}] | esc | "{{" | "}}" | "{" fexpr fconv? (":" [^'\\\n\r\x00{}]*)? "}"
fdq ::= [^"\\\n\r\x00{}] | esc | "{{" | "}}" | "{" fexpr fconv? (":" [^"\\\n\r\x00{}]*)? "}"
fconv ::= "!" [rsa]
fexpr ::= " "* fterm (" "* [-+*/%] " "* fterm)* " "*
fterm ::= "-"? (fnum | fname ftrail*)
ftrail ::= "." fname | "[" " "* "-"? (fname | fnum) " "* "]" | "(" " "* (fexpr ("," fexpr)*)? ")"
fnum ::= "0" | [1-9] [0-9]*
"""

    def __init__(self, c: Constraint):
        self.c = c
        self._name_params: list[str] = []        # every scene function's (render sets it)

    PROGRAM = r"""root ::= line ("\n" line)*
line ::= [ \t]* (comment | wexpr)?
"""

    REQUIRED = r"""root ::= " "? {statement} ("\n" tail)?
tail ::= [^.] [^\x00]*
"""

    def render(self, program: bool = False) -> str:
        c = self.c
        if c.required is not None and not program:
            return self.REQUIRED.format(statement=gbnf_literal(c.required))
        fns = sorted(c.scene_functions)
        # say() held to the console's report (claims.py): not a word, only its sentences
        held = c.speech is not None and not program
        withheld = c.withheld | ({SAY} if held else set())
        starts = {w for w in c.known - set(fns) if not w.startswith(tuple(withheld))}
        api = sorted(starts & c.api_functions)        # called (or looked into), never assigned
        starts = sorted(starts - c.api_functions)
        # the first statement after a correction that says where things go is that move
        # (``move_now``): the focus function's call, or a comment before it
        moving = (c.move_now and not program and c.focus is not None
                  and c.focus.function in fns)
        top = f"call-{fns.index(c.focus.function)} rest-c" if moving else "begin"
        top = f"comment | {top}" if c.comment_allowed or program else top
        text = self.FIXED.format(call_start=" | call" if fns else "",
                                 call_rest=" | call rest-c" if fns else "", top=top,
                                 speech=" | speech rest-c" if held and c.speech else "")
        if moving and c.comment_allowed:
            # a comment is a whole input then: measured, "# green block is not in the bowl"
            # went on with "... green_xy = get_obj_pos(...)" lines, and the move never came
            move = f"call-{fns.index(c.focus.function)} rest-c"
            root = text.index("\n")
            text = (f'root ::= " "? (comment | {move} ("\\n..." (" " cont)?)*) ("\\n" tail)?'
                    + text[root:])
        if program:
            text = self.PROGRAM + text[text.index("\n") + 1:]      # another root
        rules = ["known ::= " + " | ".join(gbnf_literal(w) for w in starts or ["pass"]),
                 "api ::= " + " | ".join(gbnf_literal(w) for w in api or ["\x00"])]
        # no word of the input starts with a withheld one (``x = wait_for_trigger()`` and a
        # ``wait_for_trigger_and_wait()`` of the model's own are the hand-back in disguise)
        rules += word_except("word", fns, dead=withheld)
        # a new name (it is followed by "=", so known words may be one):
        # it does not start with a word of the output
        # and it is not a function of the API (rebinding one leaves the robot without it)
        rules += word_except("new", c.api_functions | set(NOT_NAMES),
                             dead=c.echo_words | withheld, identifier=True)
        if held and c.speech:
            rules.append(f'speech ::= "{SAY}" ws? "(" ws? (' + " | ".join(_quoted(c.speech))
                         + ') ws? ")"')
        if fns:
            rules.append("call ::= " + " | ".join(f"call-{i}" for i in range(len(fns))))
            # one rule for the other keyword arguments' names (no scene-name parameter, no
            # Python keyword): a trie per function made the grammar three times as long
            self._name_params = sorted(set().union(
                *(c.scene_functions[n].name_params for n in fns)))
            rules += word_except("kw-other", self._name_params + list(NOT_NAMES),
                                 identifier=True)
            for i, name in enumerate(fns):
                fn = c.scene_functions[name]
                if c.focus is not None and name == c.focus.function:
                    rules += self._focus_rules(f"call-{i}", fn, c.focus)
                else:
                    rules += self._call_rules(f"call-{i}", fn)
            expression = self.EXPRESSION
            if c.scene_names:
                quoted = [gbnf_literal(repr(n)) for n in c.scene_names]
                quoted += [gbnf_literal(_double_quoted(n)) for n in c.scene_names]
                rules.append("scene-name ::= " + " | ".join(quoted))
                rules.append(f"name-arg ::= scene-name | {expression}")
            else:
                rules.append(f"name-arg ::= {expression}")
        rules += word_except("fname", NOT_NAMES, identifier=True)
        return text + self.ARGUMENTS + self.STRINGS + "\n".join(rules) + "\n"

    def _call_rules(self, rule: str, fn: SceneFunction) -> list[str]:
        """``name(...)``: positional arguments in order, then keyword arguments; the ones
        that go to a scene-name parameter are ``name-arg``."""
        kinds = ["name-arg" if p in fn.name_params else "free-arg" for p in fn.params]
        extra: list[str] = []
        movable = [n for n in self.c.scene_names if fn.movable(n)]
        if fn.moved_param in fn.params and movable != list(self.c.scene_names):
            # the object to move: a scene name it can move (measured: "put all the blocks on
            # the top side" moved the three bowls, 'failure' each), or an expression
            i = fn.params.index(fn.moved_param)
            kinds[i] = f"{rule}-m{i}"
            extra.append(f"{rule}-m{i} ::= " + " | ".join(
                _quoted(movable) + [self.EXPRESSION]))
        for i, p in enumerate(fn.params):       # a parameter that also takes a place name
            if p in fn.name_params and fn.places.get(p):
                kinds[i] = f"{rule}-p{i}"
                extra.append(f"{rule}-p{i} ::= " + " | ".join(
                    _quoted(fn.places[p]) + ["name-arg"]))
        positional = kinds[-1]
        for kind in reversed(kinds[:-1]):          # a (sep b (sep c)?)? chain
            positional = f"{kind} (sep {positional})?"
        kw_names = sorted(fn.name_params)
        # a parameter of its own that is another function's scene-name parameter: a trie of
        # its own (none in the APIs now)
        shared = not (set(fn.params) - set(kw_names)) & set(self._name_params)
        other_kw = "kw-other" if shared else f"{rule}-kw"
        keyword_item = " | ".join(
            [f'{gbnf_literal(k)} ws? "=" ws? {kinds[fn.params.index(k)]}'
             if k in fn.params else f'{gbnf_literal(k)} ws? "=" ws? name-arg' for k in kw_names]
            + [f'{other_kw} ws? "=" ws? free-arg'])
        return [
            f'{rule} ::= {gbnf_literal(fn.name)} ws? "(" ws? {rule}-args? ")"',
            f"{rule}-args ::= {positional} (sep {rule}-kwitem)* sep? | "
            f"{rule}-kwitem (sep {rule}-kwitem)* sep?",
            f"{rule}-kwitem ::= {keyword_item}",
        ] + extra + ([] if shared else
                     word_except(other_kw, kw_names + list(NOT_NAMES), identifier=True))

    def _focus_rules(self, rule: str, fn: SceneFunction, focus: Focus) -> list[str]:
        """The move function after a correction: ``name(object, target)`` with the object one
        of ``focus.objects`` (or any movable scene name or an expression, when the user named
        none) and the target one of the named targets allowed for that object
        (correction.py); an expression as target only where the user asked for an offset."""
        expression = self.EXPRESSION
        objects = focus.objects if focus.objects is not None else [
            n for n in self.c.scene_names if focus.spec.movable(n)]   # a bowl cannot be moved
        pairs = []
        for i, obj in enumerate(objects):
            targets = focus.targets_for(obj)
            if targets or focus.free_targets:
                pairs.append((_quoted([obj]), targets, f"{rule}-t{i}"))
        alternatives, rules = [], []
        for literal, targets, target_rule in pairs:
            choices = _quoted(targets) + ([expression] if focus.free_targets else [])
            rules.append(f"{target_rule} ::= " + " | ".join(choices))
            alternatives.append(f"({' | '.join(literal)}) sep {target_rule}")
        if focus.objects is None:  # an object given as an expression
            choices = _quoted(focus.targets_for(None)) + (
                [expression] if focus.free_targets else []
            )
            if choices:
                rules.append(f"{rule}-tx ::= " + " | ".join(choices))
                alternatives.append(f"{expression} sep {rule}-tx")
        if not alternatives:                   # nothing allowed: the call cannot be written
            alternatives = ['"\\x00"']
        return [f'{rule} ::= {gbnf_literal(fn.name)} ws? "(" ws? {rule}-args ws? ")"',
                f"{rule}-args ::= " + " | ".join(alternatives)] + rules
