"""Every node gets its ROS parameters from typed sections through one helper
(ros/node_parameters.py: declare_section; the interaction node: declare_settings): the params \
files repeat the sections'
defaults, values are converted and checked by the one settings parser, bad ones are refused
naming the parameter. Real rclpy nodes (no executor needed: parameters are local)."""
import pytest
import yaml

rclpy = pytest.importorskip("rclpy")
from rclpy.parameter import Parameter  # noqa: E402

from llm_interaction_node.core.settings.config import describe, flatten  # noqa: E402
from llm_interaction_node.core.settings.config_files import config_path  # noqa: E402
from llm_interaction_node.ros.node_parameters import declare_section  # noqa: E402
from llm_interaction_node.ros.nodes.asr import AsrSettings  # noqa: E402
from llm_interaction_node.ros.nodes.household_sim import HouseholdSimSettings  # noqa: E402
from llm_interaction_node.ros.nodes.microphone import MicrophoneSettings  # noqa: E402
from llm_interaction_node.ros.nodes.recorder import RecorderSettings  # noqa: E402
from llm_interaction_node.ros.nodes.speech_console import SpeechConsoleSettings  # noqa: E402
from llm_interaction_node.ros.nodes.tabletop_sim import TabletopSimSettings  # noqa: E402
from llm_interaction_node.ros.nodes.tts import TtsSettings  # noqa: E402
from llm_interaction_node.ros.nodes.wav_source import WavSourceSettings  # noqa: E402

SECTIONS = {"tts": TtsSettings, "asr": AsrSettings, "microphone": MicrophoneSettings,
            "household_sim": HouseholdSimSettings, "wav_source": WavSourceSettings}


@pytest.fixture(scope="module")
def context():
    ctx = rclpy.Context()
    rclpy.init(context=ctx)
    yield ctx
    rclpy.shutdown(context=ctx)


def node(context, name, **overrides):
    return rclpy.create_node(
        f"{name}_params_test",
        context=context,
        parameter_overrides=[Parameter(k, value=v) for k, v in overrides.items()],
    )


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_the_params_file_repeats_the_sections_defaults(name):
    data = yaml.safe_load(config_path(f"{name}.yaml").read_text())
    given = flatten(data[name]["ros__parameters"])
    defaults = {i.name: i.default for i in describe(SECTIONS[name])}
    for key, value in given.items():
        assert key in defaults, f"{name}.yaml sets {key}, which is no parameter"
        assert value == defaults[key], (
            f"{name}.yaml: {key} is {value!r}, the default {defaults[key]!r}"
        )


def test_a_node_declares_every_field_with_its_description_and_reads_it_typed(context):
    n = node(context, "tts", words_per_minute=140.0, publish_audio="false")
    try:
        config = declare_section(n, TtsSettings)
        assert config.words_per_minute == 140 and isinstance(config.words_per_minute, int)
        assert config.publish_audio is False and config.voice == "en"
        described = n.describe_parameters(["voice"])[0]
        assert "espeak-ng voice" in described.description
    finally:
        n.destroy_node()
    n = node(context, "asr", **{"vad.threshold": 0.6, "barge_in.phrases": "stop, halt ,"})
    try:
        config = declare_section(n, AsrSettings)
        assert config.vad.threshold == 0.6 and config.barge_in.phrases == ["stop", "halt"]
        assert config.self_voice.enabled and config.min_confidence == 0.35
    finally:
        n.destroy_node()
    # a list parameter takes a list or a comma-separated string (-p files:=a.wav,b.wav)
    for files in ("a.wav, b.wav", ["a.wav", "b.wav"]):
        n = node(context, "wav_source", files=files, chunk_ms=50.0)
        try:
            config = declare_section(n, WavSourceSettings)
            assert config.files == ["a.wav", "b.wav"] and config.chunk_ms == 50
        finally:
            n.destroy_node()
    n = node(context, "tabletop_sim", objects="red block,blue bowl", **{"topics.scene": "x/scene"})
    try:
        config = declare_section(n, TabletopSimSettings)
        assert config.objects == ["red block", "blue bowl"] and config.topics.scene == "x/scene"
        assert config.world == "bullet" and config.camera_width == 320
    finally:
        n.destroy_node()


@pytest.mark.parametrize("cls, name, value, fragment", [
    (MicrophoneSettings, "chunk_ms", 5, "chunk_ms=5 must be >= 10"),
    (TtsSettings, "words_per_minute", "fast", "words_per_minute='fast' is not a whole number"),
    (AsrSettings, "vad.threshold", 2.0, "vad.threshold=2.0 is out of range"),
    (HouseholdSimSettings, "time_scale", -1.0, "time_scale=-1.0 must be >= 0"),
    (WavSourceSettings, "chunk_ms", 5, "chunk_ms=5 must be >= 10"),
    (RecorderSettings, "flush_s", 0.0, "flush_s=0.0 must be > 0"),
    (SpeechConsoleSettings, "listener_timeout", "soon", "listener_timeout='soon' is not a number"),
    (TabletopSimSettings, "world", "3d", "world='3d' is invalid: use one of 'bullet', '2d'"),
    (TabletopSimSettings, "camera_width", 0, "camera_width=0 must be >= 1"),
])
def test_a_bad_parameter_is_refused_naming_it(context, cls, name, value, fragment):
    n = node(context, "bad", **{name: value})
    try:
        with pytest.raises(ValueError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
            declare_section(n, cls)
    finally:
        n.destroy_node()
