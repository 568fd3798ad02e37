"""The package's import graph, read from the source (ast, nothing imported): every import,
also one inside a function or under ``TYPE_CHECKING``, is an edge. Core imports nothing of
the layers above it, not even lazily, no module of the package is in an import cycle, and
neither is a package: within each package, the graph of its children (a subpackage stands for
every module in it) has no cycle either, core's packages included."""
import ast
import itertools
from pathlib import Path

PACKAGE = "llm_interaction_node"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE
ABOVE_CORE = ("ros", "sims", "eval", "session", "settings", "paths", "cli", "memory_cli",
              "run_cli", "eval_cli", "bench")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def imported(name: str) -> set[str]:
    """The package's modules that module ``name`` imports (``from . import x`` is module x)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph (module -> the modules it imports), or None."""
    state: dict[str, int] = {}            # 1: on the path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m] & graph.keys()):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state and (found := visit(n)):
                return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def children_graph(package: str) -> tuple[dict[str, set[str]], dict[tuple[str, str], list]]:
    """The import graph of ``package``'s children (its modules and subpackages, a subpackage
    with every module in it: ``core.console`` imports ``core.sandbox`` when any module of the
    one imports any module of the other), and the module edges behind each of its edges."""
    def child(module: str) -> str | None:
        if not module.startswith(package + "."):
            return None
        return f"{package}.{module[len(package) + 1:].split('.')[0]}"

    graph: dict[str, set[str]] = {}
    behind: dict[tuple[str, str], list] = {}
    for module in sorted(MODULES):
        if (a := child(module)) is None:
            continue
        graph.setdefault(a, set())
        for target in sorted(imported(module)):
            if (b := child(target)) is not None and b != a:
                graph[a].add(b)
                behind.setdefault((a, b), []).append((module, target))
    return graph, behind


def package_cycle(package: str) -> str | None:
    """A cycle among ``package``'s children with the module imports behind each step, or None."""
    graph, behind = children_graph(package)
    found = cycle(graph)
    if found is None:
        return None
    steps = [f"{a} -> {b}: " + ", ".join(f"{m} imports {t}" for m, t in behind[a, b])
             for a, b in itertools.pairwise(found)]
    return "\n".join([" -> ".join(found)] + steps)


def test_the_graph_is_read_and_a_cycle_found():
    assert f"{PACKAGE}.core.memory.records" in imported(f"{PACKAGE}.core.memory.store")
    assert f"{PACKAGE}.core.memory.interchange" in imported(f"{PACKAGE}.core.memory.store")
    assert f"{PACKAGE}.core.settings.config" in imported(f"{PACKAGE}.paths")
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_core_never_imports_the_layers_above_it_not_even_lazily():
    above = tuple(f"{PACKAGE}.{m}" for m in ABOVE_CORE)
    bad = {m: sorted(t for t in imported(m) if t == PACKAGE or t.startswith(above))
           for m in MODULES if m.startswith(f"{PACKAGE}.core")}
    assert not {m: t for m, t in bad.items() if t}


def test_the_memory_modules_import_each_other_without_a_cycle():
    memory = {m for m in MODULES if m.startswith(f"{PACKAGE}.core.memory.")}
    assert len(memory) > 5
    assert cycle({m: imported(m) for m in memory}) is None


def test_the_reading_modules_import_each_other_without_a_cycle():
    """``from . import check`` inside core/reading imports the package, whose ``__init__``
    imports the reader, which imports the module again: a cycle (found at 9b9a03a)."""
    reading = {m for m in MODULES if m.startswith(f"{PACKAGE}.core.reading")}
    assert len(reading) > 5
    assert cycle({m: imported(m) for m in reading}) is None


def test_no_module_of_the_package_is_in_an_import_cycle():
    """No import circle anywhere (issue 46): a shared definition lives below the modules that
    share it (e.g. learning/mode.py: the learner as its modes see it, so no mode imports the
    learner), and a package's module imports a sibling's names, never the package
    (``from . import x`` makes a cycle with an ``__init__`` that imports the module)."""
    assert len(MODULES) > 100
    assert cycle({m: imported(m) for m in MODULES}) is None


def test_core_holds_only_packages_each_saying_what_is_in_it():
    """Issue 46: ``core/`` is packages by concept, no loose module beside them, and every
    package's ``__init__`` has a docstring that says what is in it and why."""
    core = ROOT / "core"
    loose = sorted(p.name for p in core.glob("*.py") if p.name != "__init__.py")
    assert not loose, f"loose modules in core/: {loose}"
    packages = sorted(p for p in core.rglob("*") if p.is_dir() and p.name != "__pycache__"
                      and any(p.glob("*.py")))
    assert len(packages) >= 10
    for package in packages:
        init = package / "__init__.py"
        assert init.is_file(), f"{package.relative_to(ROOT)} has no __init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and doc.strip(), f"{init.relative_to(ROOT)} has no docstring"


def test_the_packages_of_core_import_each_other_without_a_cycle():
    """No import circle anywhere (issue 46), also between core's packages: a package imports
    only packages below it. What several share lies below them all (``core/transcript/``: the
    console's text and the exceptions its code sees; ``core/apis/registry.py``), and the guides
    read the agent through protocols of their own (``core/guides/state.py``)."""
    graph, behind = children_graph(f"{PACKAGE}.core")
    assert len(graph) >= 12
    assert (f"{PACKAGE}.core.console.session", f"{PACKAGE}.core.sandbox.statement_runner") \
        in behind[f"{PACKAGE}.core.console", f"{PACKAGE}.core.sandbox"]
    assert package_cycle(f"{PACKAGE}.core") is None, package_cycle(f"{PACKAGE}.core")


def test_no_package_of_the_tree_has_a_cycle_among_its_children():
    """The same at every level: the package's top (core, sims, ros, eval, the commands, ...),
    and the children of every package below it."""
    packages = sorted(m for m, path in MODULES.items() if path.name == "__init__.py")
    assert PACKAGE in packages and len(packages) > 15
    cycles = {p: c for p in packages if (c := package_cycle(p))}
    assert not cycles, "\n\n".join(f"in {p}:\n{c}" for p, c in cycles.items())
