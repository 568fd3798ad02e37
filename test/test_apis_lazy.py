"""The ``core.apis`` package imports its APIs on first access of their names: the registry,
which the console, the sandbox and both APIs build on, is imported without either API. Run in a
fresh interpreter, since this one has imported both already."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APIS = "llm_interaction_node.core.apis"


def _modules_after(code: str) -> set[str]:
    """The package's modules a fresh interpreter has imported after running ``code``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\n"
         "print('\\n'.join(m for m in sys.modules if m.startswith('llm_interaction_node')))"],
        capture_output=True, text=True, check=True, cwd=ROOT, env=env, timeout=120).stdout
    return set(out.split())


def test_importing_the_registry_imports_neither_api():
    loaded = _modules_after(f"import {APIS}.registry")
    assert f"{APIS}.registry" in loaded
    assert not {f"{APIS}.humanoid", f"{APIS}.tabletop"} & loaded, sorted(loaded)


def test_an_api_name_of_the_package_is_imported_on_first_access_and_only_its_api():
    loaded = _modules_after(f"from {APIS} import TabletopApi\n"
                            f"from {APIS}.tabletop import TabletopApi as Same\n"
                            "assert TabletopApi is Same")
    assert f"{APIS}.tabletop" in loaded and f"{APIS}.humanoid" not in loaded


def test_the_package_lists_and_gives_every_name_of_all():
    import llm_interaction_node.core.apis as apis
    from llm_interaction_node.core.apis import humanoid, tabletop
    home = {"HumanoidApi": humanoid, "HumanoidRobot": humanoid, "SceneObject": humanoid,
            "TabletopApi": tabletop, "TabletopRobot": tabletop}
    assert apis.__all__ == list(home)
    for name, module in home.items():
        assert name in dir(apis) and getattr(apis, name) is getattr(module, name)
    with pytest.raises(AttributeError, match="NoSuchApi"):
        apis.NoSuchApi  # noqa: B018 - the access is the test
