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
