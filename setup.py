"""ament_python package setup; also installable with plain `pip install .`."""
from glob import glob

from setuptools import find_packages, setup

PACKAGE = "llm_interaction_node"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/launch", glob("launch/*.py")),
        (f"share/{PACKAGE}/config", glob("config/*.yaml")),
        (f"share/{PACKAGE}/config/worlds", glob("config/worlds/*.yaml")),
        (f"share/{PACKAGE}/config/learning", glob("config/learning/*.yaml")),
        (f"share/{PACKAGE}/config/eval", glob("config/eval/*.yaml")),
        (f"share/{PACKAGE}/config/transcripts/humanoid", glob("config/transcripts/humanoid/*.txt")),
        (f"share/{PACKAGE}/config/transcripts/tabletop", glob("config/transcripts/tabletop/*.txt")),
    ],
    python_requires=">=3.11,<3.12",
    install_requires=["numpy", "openai", "transforms3d", "PyYAML"],
    zip_safe=True,
    maintainer="llm_interaction_node developers",
    maintainer_email="dev@example.org",
    description="Teach a humanoid robot by talking to it: an LLM drives the robot "
    "through a Python console and learns from corrections.",
    license="Apache-2.0",
    tests_require=["pytest"],
    entry_points={
        "console_scripts": [
            "llm-interaction = llm_interaction_node.cli:main",
            "interaction_node = llm_interaction_node.ros.nodes.interaction_node:main",
            "household_sim = llm_interaction_node.ros.nodes.household_sim:main",
            "speech_console = llm_interaction_node.ros.nodes.speech_console:main",
            "tts = llm_interaction_node.ros.nodes.tts:main",
            "asr = llm_interaction_node.ros.nodes.asr:main",
            "microphone = llm_interaction_node.ros.nodes.microphone:main",
            "wav_source = llm_interaction_node.ros.nodes.wav_source:main",
            "tabletop_sim = llm_interaction_node.ros.nodes.tabletop_sim:main",
            "recorder = llm_interaction_node.ros.nodes.recorder:main",
        ],
    },
)
