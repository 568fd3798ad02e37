"""The console sandbox: hostile code is refused, normal code runs, the timeout is reliable."""
import ast
import builtins
import inspect
import math
import sys
import threading
import time
from pathlib import Path

import numpy
import pytest

from llm_interaction_node.core.sandbox import Sandbox, SandboxViolation
from llm_interaction_node.core.transcript.errors import StatementTimeout

CORPUS = Path(__file__).parent / "data" / "escape_attempts"
ATTEMPTS = sorted(CORPUS.glob("*.py"))
# What a refused attempt may end with when it gets past prepare().
REFUSED_AT_RUN = (SandboxViolation, NameError, AttributeError, MemoryError, StatementTimeout,
                  RecursionError)
pytestmark = pytest.mark.timeout(30, method="thread")  # a swallowed timeout must not hang


def execute(sandbox, source, namespace):
    """What the console does with one statement (minus its display rewrite)."""
    tree = sandbox.prepare(ast.parse(source, mode="exec"))
    sandbox.run(compile(tree, "<console>", "exec"), namespace)


@pytest.fixture
def console():
    """(run, namespace, output) on a fresh sandbox with a 2 s timeout."""
    sandbox = Sandbox(timeout_s=2.0)
    output = []
    namespace = sandbox.new_globals(output.append)
    return (lambda source: execute(sandbox, source, namespace)), namespace, output


# --- Escape corpus --------------------------------------------------------------------

def escaped(namespace, canary_dir):
    """What an attempt left behind if it worked: its `escaped` variable or files."""
    return namespace.get("escaped"), sorted(p.name for p in canary_dir.iterdir())


def test_corpus_is_large_and_well_formed():
    assert len(ATTEMPTS) >= 45
    for path in ATTEMPTS:
        text = path.read_text()
        assert text.startswith("# "), f"{path.name}: first line must say what it tries"
        ast.parse(text)  # a syntax error would test nothing


@pytest.mark.parametrize("path", ATTEMPTS, ids=[p.stem for p in ATTEMPTS])
def test_escape_attempt_is_refused(path, tmp_path):
    canary_dir = tmp_path / "canary"
    canary_dir.mkdir()
    sandbox = Sandbox(timeout_s=0.3, geometry=True)    # the tabletop console: numpy + shapely
    namespace = sandbox.new_globals(lambda text: None)
    namespace["canary_dir"] = str(canary_dir)
    started = time.monotonic()
    try:
        tree = sandbox.prepare(ast.parse(path.read_text()))
    except SandboxViolation as e:
        assert str(e) and "\n" not in str(e)
    else:
        with pytest.raises(REFUSED_AT_RUN):
            sandbox.run(compile(tree, "<console>", "exec"), namespace)
    assert escaped(namespace, canary_dir) == (None, [])
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize("name", ["01_import_os", "97_open_write_no_with", "24_np_f2py_os",
                                  "96_np_testing_extbuild_subprocess"])
def test_canary_catches_attempts_that_work_without_the_sandbox(name, tmp_path):
    namespace = {"np": numpy, "canary_dir": str(tmp_path)}
    exec((CORPUS / f"{name}.py").read_text(), namespace)
    assert escaped(namespace, tmp_path) != (None, [])


# --- Refusal messages -----------------------------------------------------------------

@pytest.mark.parametrize("source, message", [
    ("import os", "imports are not allowed in the robot console"),
    ("x = (1).__class__", "access to attribute '__class__' is not allowed"),
    ("x = f.gi_frame", "access to attribute 'gi_frame' is not allowed"),
    ("x = __builtins__", "the name '__builtins__' is not allowed"),
    ("class A: pass", "class definitions are not allowed"),
    ("try:\n    pass\nexcept:\n    pass", "bare 'except:' is not allowed"),
    ("try:\n    pass\nexcept (ValueError, KeyboardInterrupt):\n    pass",
     "catching KeyboardInterrupt is not allowed"),
    ("for i in x:\n    try:\n        pass\n    finally:\n        break",
     "'break' inside 'finally' is not allowed"),
    ("with x:\n    pass", "with statements are not allowed"),
    ("def g():\n    yield 1", "generator functions (yield) are not allowed"),
    ("x = " + "-" * 900 + "1", "nested too deeply"),
])
def test_refusal_messages(source, message):
    with pytest.raises(SandboxViolation) as caught:
        Sandbox().prepare(ast.parse(source))
    assert message in str(caught.value)


def test_loops_and_defs_inside_finally_may_use_break_and_return():
    source = ("try:\n    pass\nfinally:\n    for i in x:\n        break\n"
              "    def f():\n        return 1\n")
    Sandbox().prepare(ast.parse(source))


@pytest.mark.parametrize("name", [
    "load", "save", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt", "fromfile",
    "fromregex", "memmap", "DataSource", "ctypeslib", "lib", "f2py", "testing", "show_config",
    "info", "test", "core", "rec", "char", "ma", "typing", "_core", "__file__",
])
def test_numpy_escape_hatches_are_absent(name):
    view = Sandbox().new_globals(print)["np"]
    with pytest.raises(AttributeError, match="not available in the robot console"):
        getattr(view, name)


@pytest.mark.parametrize("name", ["bit_generator", "mtrand", "PCG64", "Generator", "test"])
def test_numpy_random_escape_hatches_are_absent(name):
    view = Sandbox().new_globals(print)["np"]
    with pytest.raises(AttributeError):
        getattr(view.random, name)


def test_numpy_view_is_read_only(console):
    run, namespace, _ = console
    with pytest.raises(AttributeError, match="read-only"):
        run("np.linalg = None")


# --- Normal console code --------------------------------------------------------------

ABSENT = object()
NORMAL = [
    ("total = 0\nfor i in range(5):\n    total += i", {"total": 10}),
    ("n = 0\nwhile True:\n    n += 1\n    if n == 7:\n        break", {"n": 7}),
    ("xs = [i * i for i in range(4)]\nd = {k: v for k, v in zip('ab', [1, 2])}\n"
     "s = {c for c in 'abca'}\ng = sum(i for i in range(4))",
     {"xs": [0, 1, 4, 9], "d": {"a": 1, "b": 2}, "s": {"a", "b", "c"}, "g": 6}),
    ("def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\nf = fact(200)",
     {"f": math.factorial(200)}),
    ("words = sorted(['bb', 'a', 'ccc'], key=lambda w: -len(w))", {"words": ["ccc", "bb", "a"]}),
    ("try:\n    int('x')\nexcept ValueError as e:\n    msg = 'bad'", {"msg": "bad"}),
    ("x = 3.14159\na = f'{x:.2f}|{x!r:>10}|{\"s\"!s}'", {"a": "3.14|   3.14159|s"}),
    ("a = '{} {}'.format(1, 'b')\nb = '{name}:{0:>3}'.format(7, name='n')\n"
     "c = '{0:{1}}'.format(3.14159, '.1f')\nfmt = 'x={}'.format\nd = fmt(2)\n"
     "e = str.format('{}!', 5)",
     {"a": "1 b", "b": "n:  7", "c": "3.1", "d": "x=2", "e": "5!"}),
    ("for _ in range(3):\n    pass\nlast = _", {"last": 2}),
    ("big = 2 ** 100 * 3 + (1 << 70)\nline = '-' * 5 + 'ab'.center(6)\nz = [0] * 3 + [1]",
     {"big": 2 ** 100 * 3 + (1 << 70), "line": "-----  ab  ", "z": [0, 0, 0, 1]}),
    ("r = list(range(10, 0, -3))\np = (pow(2, 10), pow(2, 10, 7))\nflat = sum([[1], [2]], [])\n"
     "it = iter([5, 6])\nfirst = next(it)\nq = format(3.5, '>6')",
     {"r": [10, 7, 4, 1], "p": (1024, 2), "flat": [1, 2], "first": 5, "q": "   3.5"}),
    ("counts = {}\nfor w in 'abca':\n    counts[w] = counts.get(w, 0) + 1\ncounts['a'] += 10",
     {"counts": {"a": 12, "b": 1, "c": 1}}),
    ("xs = [1]\nys = xs\nxs += [2]\nxs *= 2", {"xs": [1, 2, 1, 2], "ys": [1, 2, 1, 2]}),
    ("def deco(f):\n    return lambda x: f(x) + 1\n@deco\ndef g(x):\n    return x * 2\n"
     "v = g(3)\nif (w := v * 2) > 10:\n    big = True\nk: int = 4\ndel k",
     {"v": 7, "w": 14, "big": True, "k": ABSENT}),
    ("def outer(a):\n    def inner(b):\n        return a + b\n    return inner\nv = outer(1)(2)\n"
     "assert v == 3\nok = isinstance(v, int) and callable(outer) and hasattr('s', 'upper')",
     {"v": 3, "ok": True}),
]


@pytest.mark.parametrize("source, expected", NORMAL, ids=[str(i) for i in range(len(NORMAL))])
def test_normal_code_runs(console, source, expected):
    run, namespace, _ = console
    run(source)
    for name, value in expected.items():
        assert namespace.get(name, ABSENT) == value, name


def test_numpy_code_runs(console):
    run, namespace, _ = console
    run("a = np.array([3.0, 4.0])\nb = (a + 1) * 2 - a ** 2 / 2\nn = np.linalg.norm(a)\n"
        "order = np.argsort(np.array([3, 1, 2]))\nm = np.arange(12).reshape(3, 4)\n"
        "col = m[:, 1]\nrow = m[1, ::2]\nd = m @ np.ones(4)\n"
        "rng = np.random.default_rng(0)\nu = rng.uniform(0, 1, size=5)\n"
        "ints = rng.integers(0, 10, size=(2, 3))\nis_arr = isinstance(u, np.ndarray)\n"
        "m2 = m.copy()\nview = m2\nm2 *= 2\nm2 += 1\n"
        "made = [np.zeros(3), np.ones((2, 2)), np.full(2, 7.0), np.arange(1, 7, 2), "
        "np.arange(stop=3), np.linspace(0, 1, 5), np.eye(2), np.identity(2), "
        "np.tile([1, 2], 2), np.repeat([1, 2], [2, 3]), np.concatenate([[1], [2, 3]]), "
        "np.stack([[1], [2]]), np.zeros_like(m), np.empty((2,)), np.ndarray((2, 2)), "
        "np.random.rand(2, 3), np.broadcast_to(1.0, (2, 2)), np.ones(2).repeat(2)]\n"
        "sizes = [x.size for x in made]\nangle = np.degrees(np.arctan2(1.0, 1.0))\n"
        "pi = np.pi\nfreq = np.fft.rfft(np.ones(4))\n"
        "mean = m.mean(axis=0)\nspread = np.array([1.0, 3.0]).std()\n")
    ns = namespace
    assert ns["n"] == 5.0
    assert list(ns["b"]) == [3.5, 2.0]
    assert list(ns["order"]) == [1, 2, 0]
    assert list(ns["col"]) == [1, 5, 9] and list(ns["row"]) == [4, 6]
    assert list(ns["d"]) == [6.0, 22.0, 38.0]
    assert numpy.allclose(ns["u"], numpy.random.default_rng(0).uniform(0, 1, size=5))
    assert ns["ints"].shape == (2, 3) and ns["is_arr"] is True
    assert ns["view"] is ns["m2"] and ns["m2"][2, 3] == 23
    assert ns["sizes"] == [3, 4, 2, 3, 3, 5, 4, 4, 4, 5, 3, 2, 12, 2, 4, 6, 4, 4]
    assert ns["angle"] == 45.0 and ns["pi"] == math.pi and ns["freq"][0] == 4
    assert list(ns["mean"]) == [4, 5, 6, 7] and ns["spread"] == 1.0  # numpy imports lazily


def test_c_code_may_import_numpy_but_nothing_new():
    importer = Sandbox().new_globals(print)["__builtins__"]["__import__"]
    assert importer("numpy._core._methods").__name__ == "numpy"
    assert "this" not in sys.modules
    with pytest.raises(ImportError, match="not allowed"):
        importer("this")


def test_print_goes_through_write(console):
    run, _, output = console
    run("print('a', 1, [2])\nprint('x', 'y', sep='-', end='!')\nprint()")
    assert "".join(output) == "a 1 [2]\nx-y!\n"


def test_console_display_call_added_after_prepare_runs():
    sandbox = Sandbox()
    shown = []
    namespace = sandbox.new_globals(print)
    namespace["__console_display__"] = shown.append
    tree = sandbox.prepare(ast.parse("1 + 2"))
    tree.body[-1] = ast.Expr(ast.Call(ast.Name("__console_display__", ast.Load()),
                                      [tree.body[-1].value], []))
    sandbox.run(compile(ast.fix_missing_locations(tree), "<console>", "exec"), namespace)
    assert shown == [3]


def test_recursion_error_is_ordinary_and_the_sandbox_survives(console):
    run, namespace, _ = console
    with pytest.raises(RecursionError):
        run("def f(n):\n    return f(n + 1) + 1\nf(0)")
    run("def g(n):\n    return 0 if n == 0 else g(n - 1) + 1\ndepth = g(300)")
    assert namespace["depth"] == 300


@pytest.mark.parametrize("source", [
    "np.zeros(10**8)", "np.full((10**4, 10**4), 1.0)", "np.empty(shape=(10**8,))",
    "np.arange(10**8)", "np.arange(0, 10**8, 1)", "np.arange(stop=10**8)",
    "np.linspace(0, 1, 10**8)", "np.eye(10**4)", "np.identity(10**4)",
    "np.tile(np.ones(10), 10**7)", "np.repeat(np.ones(10), 10**7)",
    "np.broadcast_to(1.0, (10**4, 10**4))", "np.zeros_like(np.ones(2), shape=(10**8,))",
    "np.random.default_rng(0).uniform(size=10**8)", "np.random.randn(10**4, 10**4)",
    "np.random.default_rng(0).integers(0, 5, size=(10**4, 10**4))",
    "np.random.default_rng(0).permutation(10**8)", "np.random.RandomState(0).rand(10**8)",
    "np.ones((10**4, 1)) @ np.ones((1, 10**4))", "np.ones(10**4)[:, None] + np.ones(10**4)",
    "'ab'.center(10**8)", "str.zfill('1', 10**8)", "f'{1:{10**8}}'", "'{:>{}}'.format(1, 10**8)",
    "[1, 2] * 10**8", "(1,) * 10**8", "b'x' * 10**8", "10**8 * 'x'", "7 ** 10**6",
    "x = [0] * 10**7\nx += [0]", "pow(3, 10**6)", "range(10**8)",
    "np.ones(10).repeat(10**7)", "np.ones(1).resize((10**4, 10**4))",
    "a = np.ones(2)\na.resize(10**4, 10**4)",
])
def test_size_guards_refuse_before_allocating(console, source):
    run, _, _ = console
    with pytest.raises(MemoryError, match="robot console allows at most"):
        run(source)


# --- Timeout --------------------------------------------------------------------------

def test_endless_loop_times_out():
    sandbox = Sandbox(timeout_s=0.5)
    namespace = sandbox.new_globals(print)
    started = time.monotonic()
    with pytest.raises(StatementTimeout, match=r"statement interrupted after 0\.5 s"):
        execute(sandbox, "while True:\n    pass", namespace)
    assert 0.45 < time.monotonic() - started < 1.5
    execute(sandbox, "after = sum(range(10))", namespace)  # the same sandbox carries on
    assert namespace["after"] == 45


def test_except_exception_does_not_catch_the_timeout():
    sandbox = Sandbox(timeout_s=0.3)
    namespace = sandbox.new_globals(print)
    with pytest.raises(StatementTimeout):
        execute(sandbox, "try:\n    while True:\n        pass\nexcept Exception:\n    pass",
                namespace)


def test_timeout_is_raised_again_if_caught():
    # Generated code cannot name StatementTimeout; this exec bypasses prepare() on purpose.
    sandbox = Sandbox(timeout_s=0.2)
    namespace = {"__builtins__": builtins.__dict__, "Timeout": StatementTimeout}
    code = compile("try:\n    while True:\n        pass\nexcept Timeout:\n    caught = 1\n"
                   "while True:\n    pass", "<test>", "exec")
    started = time.monotonic()
    with pytest.raises(StatementTimeout):
        sandbox.run(code, namespace)
    assert namespace["caught"] == 1
    assert time.monotonic() - started < 1.0


def test_time_in_paused_api_calls_does_not_count():
    sandbox = Sandbox(timeout_s=0.5)
    namespace = sandbox.new_globals(print)
    namespace["slow"] = sandbox.wrap_api(lambda: time.sleep(0.8) or "done")
    namespace["clock"] = time.monotonic
    execute(sandbox, "t = clock()\nwhile clock() - t < 0.2:\n    pass\nr = slow()\n"
            "t = clock()\nwhile clock() - t < 0.2:\n    pass", namespace)
    assert namespace["r"] == "done"
    started = time.monotonic()
    with pytest.raises(StatementTimeout):
        execute(sandbox, "slow()\nwhile True:\n    pass", namespace)
    assert 1.25 < time.monotonic() - started < 3.0


def test_no_stray_timeout_after_run_returns():
    sandbox = Sandbox(timeout_s=0.01)
    namespace = sandbox.new_globals(print)
    namespace["clock"] = time.perf_counter
    durations = [0.0, 0.004, 0.008, 0.0095, 0.01, 0.0105, 0.012, 0.02]
    codes = [compile(sandbox.prepare(ast.parse(
        f"t = clock()\nwhile clock() - t < {d}:\n    x = [1] * 10")), "<console>", "exec")
        for d in durations]
    timeouts = 0
    for i in range(200):
        try:
            sandbox.run(codes[i % len(codes)], namespace)
        except StatementTimeout:
            timeouts += 1
        spin_until = time.perf_counter() + 0.002  # a stray exception would surface here
        while time.perf_counter() < spin_until:
            pass
    spin_until = time.perf_counter() + 0.4
    while time.perf_counter() < spin_until:
        pass
    assert 0 < timeouts < 200


def test_one_sandbox_never_interrupts_another_thread():
    results = {}

    def endless():
        sandbox = Sandbox(timeout_s=0.3)
        try:
            execute(sandbox, "while True:\n    pass", sandbox.new_globals(print))
        except StatementTimeout:
            results["endless"] = "timed out"

    def busy():
        sandbox = Sandbox(timeout_s=5.0)
        namespace = sandbox.new_globals(print)
        namespace["clock"] = time.monotonic
        execute(sandbox, "t = clock()\nwhile clock() - t < 0.8:\n    pass\ndone = True",
                namespace)
        results["busy"] = namespace["done"]

    threads = [threading.Thread(target=endless), threading.Thread(target=busy)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert results == {"endless": "timed out", "busy": True}


def test_wrap_api_keeps_signature_and_metadata():
    def move_to(name: str, speed: float = 0.5) -> bool:
        """Move to an object."""
        return True
    move_to.api_comment = "moves"
    wrapped = Sandbox().wrap_api(move_to)
    assert inspect.signature(wrapped) == inspect.signature(move_to)
    assert wrapped.__name__ == "move_to" and wrapped.__doc__ == "Move to an object."
    assert wrapped.api_comment == "moves" and wrapped("cup") is True


# --- shapely (the tabletop console) ------------------------------------------------------

def test_the_geometry_console_has_shapely_names_that_work():
    sandbox = Sandbox(timeout_s=2.0, geometry=True)
    output = []
    ns = sandbox.new_globals(output.append)
    execute(sandbox, "line = LineString([(0, 0), (0.2, 0)])\n"
                     "mid = np.array(line.interpolate(0.5, normalized=True).coords[0])\n"
                     "turned = rotate(line, 90, origin=Point(0, 0))\n"
                     "print(isinstance(Point(1, 2), Point), mid.tolist(), "
                     "[round(c, 6) for c in turned.coords[1]], "
                     "box(0, 0, 1, 1).contains(translate(Point(0, 0), 0.5, 0.5)))", ns)
    assert output == ["True [0.1, 0.0] [0.0, 0.2] True\n"]
    execute(sandbox, "area = Point(0, 0).buffer(1).area\n"
                     "pieces = len(line.segmentize(0.05).coords)", ns)
    assert 3.1 < ns["area"] < 3.15 and ns["pieces"] == 5
    for name in ("Polygon", "MultiPoint", "scale", "skew", "affine_transform", "shape", "mapping"):
        assert name in ns
    # the humanoid console (no geometry) has none of them
    assert "Point" not in Sandbox().new_globals(print)


def test_shapely_stand_ins_are_fresh_per_namespace():
    sandbox = Sandbox(geometry=True)
    first, second = sandbox.new_globals(print), sandbox.new_globals(print)
    execute(sandbox, "rotate.note = 'mine'", first)
    assert not hasattr(second["rotate"], "note")
    with pytest.raises(AttributeError, match="read-only"):
        execute(sandbox, "Polygon.area = 0", first)
