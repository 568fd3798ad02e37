"""docs/architecture.md names only paths that exist (issue 46: the map is redrawn whenever a
module moves). Read as text, nothing imported: every ``core/...`` path anywhere on the page
(tables, drawings), every backticked path under a directory of the package or the repository,
and every backticked file name."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "llm_interaction_node"
DOC = REPO / "docs" / "architecture.md"
PACKAGE_DIRS = ("core", "ros", "sims", "eval", "bench")
REPO_DIRS = ("config", "test", "docs", "scripts", "launch", "interfaces")


def exists(path: str) -> bool:
    """A path of the package (``core/...``) or of the repository (``config/...``); ``*`` is a
    glob, and a ``<placeholder>`` part stands for any name: the part before it must exist."""
    path = path.split("<")[0].rstrip(".,:;")
    if "*" in path:
        return any(any(base.glob(path)) for base in (PACKAGE, REPO))
    return (PACKAGE / path).exists() or (REPO / path).exists()


def backticked() -> list[str]:
    return re.findall(r"`([^`\n]+)`", DOC.read_text(encoding="utf-8"))


def test_every_core_path_on_the_page_exists():
    found = re.findall(r"(?<![\w/.])core/[\w/.*<>-]*", DOC.read_text(encoding="utf-8"))
    assert len(found) > 100
    missing = sorted({p for p in found if not exists(p)})
    assert not missing, missing


def test_every_backticked_path_exists():
    roots = "|".join(PACKAGE_DIRS + REPO_DIRS)
    found = [t for span in backticked() for t in re.findall(r"[\w.*<>/-]+", span)
             if re.match(rf"({roots})/", t)]
    assert len(found) > 100
    missing = sorted({p for p in found if not exists(p)})
    assert not missing, missing


def test_every_backticked_file_name_exists_somewhere():
    trees = (PACKAGE, REPO / "test", REPO / "scripts", REPO / "launch", REPO / "docs")
    names = {p.name for tree in trees for p in tree.rglob("*.py")}
    names |= {p.name for p in REPO.glob("*.py")}
    found = {t for span in backticked() for t in re.findall(r"(?<![\w/.])\w+\.py\b", span)}
    assert len(found) > 50
    missing = sorted(found - names)
    assert not missing, missing


def test_the_layer_drawing_lists_cores_packages_from_the_top_down():
    """The drawing's list of core's packages is every package of core, and each imports only
    packages listed below it (the graph as ``test/test_import_graph.py`` reads it)."""
    import sys
    sys.path.insert(0, str(REPO / "test"))
    from test_import_graph import children_graph

    text = DOC.read_text(encoding="utf-8")
    drawn = re.findall(r"(?m)^  (\w+)/ ", text[text.index("\ncore/ "):])
    graph, behind = children_graph("llm_interaction_node.core")
    packages = {name.rpartition(".")[2]: targets for name, targets in graph.items()}
    assert sorted(drawn) == sorted(packages)
    for i, name in enumerate(drawn):
        above = {f"llm_interaction_node.core.{p}" for p in drawn[:i]}
        wrong = sorted(packages[name] & above)
        assert not wrong, (name, wrong, [behind[f"llm_interaction_node.core.{name}", w]
                                         for w in wrong])
