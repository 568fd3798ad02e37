import pytest

from llm_interaction_node.core.transcript.statements import extract_statements


@pytest.mark.parametrize(
    "text, expected",
    [
        (" grasp('mug_0')", ["grasp('mug_0')"]),
        # completion models often go on with an invented result: it is dropped
        (" grasp('mug_0')\n'success'", ["grasp('mug_0')"]),
        (" get_obj_names()\n['red block', 'blue bowl']", ["get_obj_names()"]),
        # an echoed prompt with invented output and further prompts: the first input only
        (">>> grasp('mug_0')\n'success'\n>>> move_to(1)", ["grasp('mug_0')"]),
        (">>> for i in range(3):\n...     print(i)\n0\n1", ["for i in range(3):\n    print(i)"]),
        ("for i in range(3):\n    print(i)\n", ["for i in range(3):\n    print(i)"]),
        ("for i in range(3):\n...     print(i)\n... \n'x'", ["for i in range(3):\n    print(i)"]),
        # markdown fences from chat models: every statement inside
        (
            "Here you go:\n```python\na = 1\nb = 2\nprint(a + b)\n```\nDone.",
            ["a = 1", "b = 2", "print(a + b)"],
        ),
        ("```\nsay('hi')\n```", ["say('hi')"]),
        ("x = [1,\n 2,\n 3]\ny = 2", ["x = [1,\n 2,\n 3]", "y = 2"]),
        ("def f(x):\n    return x\n\nf(2)", ["def f(x):\n    return x", "f(2)"]),
        ("", []),
        ("   \n\n", []),
        ("```python\n```", []),
        # prose and broken code are kept so that running them gives a SyntaxError to learn from
        ("Sure! I will grasp the mug now.", ["Sure! I will grasp the mug now."]),
        ("foo(\n", ["foo("]),
    ],
)
def test_extract_statements(text, expected):
    assert extract_statements(text) == expected


@pytest.mark.parametrize("text, whole", [
    (" put(1)", False), (" put(1)\n", False), (" for x in y:\n...     put(x)", False),
    (" for x in y:\n...     put(x)\n..", False), (" for x in y:\n...     put(x)\n'suc", True),
    (" put(1)\n'success'", True), (" put(1)\n>>> ", True), ("\n put(1)\n[1, 2]", True)])
def test_input_complete_tells_when_one_console_input_is_whole(text, whole):
    from llm_interaction_node.core.transcript.statements import input_complete
    assert input_complete(text) is whole
