"""The package's import graph, read from the source (ast, nothing imported): every import,
also one inside a function or under ``TYPE_CHECKING``, is an edge. Core imports nothing of
the layers above it, not even lazily, and no module of the package is in an import cycle."""
import ast
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
