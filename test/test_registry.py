from typing import Literal

import numpy as np
import pytest

from llm_interaction_node.core.apis.registry import (
    ApiRegistry,
    comment,
    public_functions,
    render_signature,
)


@comment("make sure to move to the object first")
def grasp(object_name: str, hand: Literal['left', 'right', None] = None) -> str:
    return "success"


def get_obj_pos(obj_name: str) -> np.ndarray:
    return np.zeros(2)


def listing_of(*fns):
    return ApiRegistry(fns).listing()


def test_signature_rendering_uses_live_type_hints():
    assert render_signature("get_obj_pos", get_obj_pos) == \
        "def get_obj_pos(obj_name: str) -> np.ndarray"

    def f(
        a: dict[str, str], b: "str | np.ndarray" = None, *args, **kw
    ) -> list[tuple[str, str | None]]:
        pass
    assert render_signature("f", f) == ("def f(a: dict[str, str], b: str | np.ndarray = None, "
                                         "*args, **kw) -> list[tuple[str, str | None]]")


def test_listing_has_comments_and_is_sorted():
    @comment("2D xy position")
    def get_pos(name: str) -> np.ndarray:
        return np.zeros(2)

    # a short line keeps its comment inline; a long one gets it on the next line
    assert listing_of(grasp, get_pos, get_obj_pos).splitlines() == [
        "def get_obj_pos(obj_name: str) -> np.ndarray",
        "def get_pos(name: str) -> np.ndarray  # 2D xy position",
        "def grasp(object_name: str, hand: Literal['left', 'right', None] = None) -> str",
        "    # make sure to move to the object first",
    ]


def test_duplicate_names_are_refused():
    with pytest.raises(ValueError, match="twice"):
        ApiRegistry([grasp, grasp])


def test_public_functions_follow_the_api_attribute_and_bind_methods():
    class Api:
        API = ("b", "a")

        def a(self) -> int:
            return 1

        def b(self) -> int:
            return 2

        def hidden(self) -> int:
            return 3

    fns = public_functions(Api())
    assert [f.__name__ for f in fns] == ["b", "a"]
    reg = ApiRegistry(fns)
    assert reg.bind()["a"]() == 1
    assert "hidden" not in reg
    assert reg.listing(sort=False).splitlines() == ["def b() -> int", "def a() -> int"]
