"""The process graph of `llm-interaction run` and the ROS 2 launch files describe the same nodes.

launch / launch_ros are not installable here, so each launch file is loaded with tiny
recording stand-ins for their classes; the config files are checked with rcl's own parser.
"""
import importlib.util
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import pytest
import yaml

from llm_interaction_node.core.settings.config import flatten
from llm_interaction_node.core.settings.config_files import config_path
from llm_interaction_node.ros import names
from llm_interaction_node.ros.graph import (
    GRAPHS,
    LAUNCH_ARGUMENTS,
    RECORDER,
    ROBOT_GRAPH,
    SIM_GRAPH,
    SPEECH_NODES,
    WAV_SOURCE,
    GraphRunner,
    NodeSpec,
    command_line,
    format_value,
    graph_nodes,
    launch_arguments,
)
from llm_interaction_node.ros.skills import SKILL_ACTIONS
from llm_interaction_node.run_cli import build_overrides, parse_param

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "llm_interaction_node"
LAUNCH_FILES = {"sim": ROOT / "launch" / "sim.launch.py",
                "robot": ROOT / "launch" / "robot.launch.py"}
FLEET = {"memory_host", "memory_port", "robot_id"}        # issue 61: a fleet on one memory
LAUNCH_ARGS = {"sim": {"world", "llm_base_url", "llm_model", "memory_path", "api_preset"} | FLEET,
               "robot": {"llm_base_url", "llm_model", "memory_path", "api_preset"} | FLEET}
SWITCHES = {"speech", "record"}   # launch arguments that add nodes instead of setting parameters
EXTRA_SPECS = SPEECH_NODES + (WAV_SOURCE, RECORDER)
ALL_SPECS = {(s.name, f) for graph in [*GRAPHS.values(), EXTRA_SPECS] for s in graph
             for f in s.params_files}


# --- stand-ins for launch / launch_ros ------------------------------------------------------------

class _Recorded:
    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class LaunchDescription(_Recorded):
    pass


class DeclareLaunchArgument(_Recorded):
    pass


class OpaqueFunction(_Recorded):
    pass


class Node(_Recorded):
    pass


class LaunchConfiguration:
    def __init__(self, name, default=None):
        self.name, self.default = name, default

    def perform(self, context):
        return context.launch_configurations.get(self.name, self.default or "")


class FakeContext:
    def __init__(self, launch_configurations):
        self.launch_configurations = launch_configurations


def _module(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    return module


def load_launch_file(path: Path, monkeypatch):
    stubs = {
        "launch": _module("launch", LaunchDescription=LaunchDescription),
        "launch.actions": _module("launch.actions", DeclareLaunchArgument=DeclareLaunchArgument,
                                  OpaqueFunction=OpaqueFunction),
        "launch.substitutions": _module("launch.substitutions",
                                        LaunchConfiguration=LaunchConfiguration),
        "launch_ros": _module("launch_ros"),
        "launch_ros.actions": _module("launch_ros.actions", Node=Node),
        "ament_index_python": _module("ament_index_python"),
        "ament_index_python.packages": _module(
            "ament_index_python.packages",
            get_package_share_directory=lambda package: str(ROOT) if package == PACKAGE else
            pytest.fail(f"unexpected package {package}")),
    }
    for name, module in stubs.items():
        monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location(f"_launch_{path.stem.replace('.', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_launch_files_are_built_from_the_graph_description():
    """No node list of their own: each launch file hands its graph to the one builder."""
    for graph, path in LAUNCH_FILES.items():
        source = path.read_text()
        assert f"return generate('{graph}')" in source
        assert "Node(" not in source and "DeclareLaunchArgument(" not in source


def launch(graph: str, monkeypatch, **arguments):
    """(declared launch arguments {name: default}, Node recordings) with ``arguments`` set."""
    description = load_launch_file(LAUNCH_FILES[graph], monkeypatch).generate_launch_description()
    assert isinstance(description, LaunchDescription)
    entities = list(description.args[0])
    declared = {e.args[0]: e.kwargs.get("default_value") for e in entities
                if isinstance(e, DeclareLaunchArgument)}
    context = FakeContext({**declared, **arguments})
    nodes = [e for e in entities if isinstance(e, Node)]
    for e in entities:
        if isinstance(e, OpaqueFunction):
            nodes += [n for n in e.kwargs["function"](context) if isinstance(n, Node)]
    return declared, nodes


def console_scripts() -> dict[str, str]:
    text = (ROOT / "setup.py").read_text()
    return dict(re.findall(r'"([\w-]+)\s*=\s*([\w.]+:\w+)"', text))


# --- launch files == graphs -----------------------------------------------------------------------

@pytest.mark.parametrize("graph", ["sim", "robot"])
def test_launch_file_starts_the_nodes_of_the_graph(graph, monkeypatch):
    declared, nodes = launch(graph, monkeypatch)
    assert set(declared) == LAUNCH_ARGS[graph] | SWITCHES == set(launch_arguments(graph))
    assert all(default == "" for default in declared.values())    # empty: keep the params file
    # every run option that sets a parameter is a launch argument (and the other way round)
    from llm_interaction_node.cli import build_parser
    options = vars(build_parser().parse_args(["run"]))
    assert set(declared) <= set(options)
    specs = GRAPHS[graph]
    assert [n.kwargs["name"] for n in nodes] == [s.name for s in specs]
    for node, spec in zip(nodes, specs, strict=True):
        assert node.kwargs["package"] == PACKAGE
        assert node.kwargs["executable"] == spec.executable
        assert node.kwargs["output"] == "screen"
        files = [p for p in node.kwargs["parameters"] if isinstance(p, str)]
        assert [os.path.basename(p) for p in files] == spec.params_files
        assert all(Path(p) == ROOT / "config" / os.path.basename(p) for p in files)
        overrides = [p for p in node.kwargs["parameters"] if isinstance(p, dict)]
        assert all(not d for d in overrides), "no override unless a launch argument is given"
        assert node.kwargs["additional_env"] == {}


@pytest.mark.parametrize("graph", ["sim", "robot"])
def test_launch_arguments_set_the_same_parameters_as_the_run_options(graph, monkeypatch):
    values = {arg: "8001" if LAUNCH_ARGUMENTS[arg].kind is int else f"value-of-{arg}"
              for arg in LAUNCH_ARGS[graph]}
    _, nodes = launch(graph, monkeypatch, **values)
    got, got_env = {}, {}
    for node in nodes:
        for d in node.kwargs["parameters"]:
            if isinstance(d, dict) and d:
                got[node.kwargs["name"]] = dict(d)
        if node.kwargs["additional_env"]:
            got_env[node.kwargs["name"]] = node.kwargs["additional_env"]
    want = {}
    for arg, value in values.items():
        for node, param in LAUNCH_ARGUMENTS[arg].targets:   # a port as the int it is
            want.setdefault(node, {})[param] = LAUNCH_ARGUMENTS[arg].kind(value)
    assert got == want
    # the llm arguments also go into the node's LLM_INTERACTION_* variables, as run's options
    assert got_env == {"interaction_node": {"LLM_INTERACTION_BASE_URL": "value-of-llm_base_url",
                                            "LLM_INTERACTION_MODEL": "value-of-llm_model"}}
    # `llm-interaction run` with the matching options passes the same overrides
    from llm_interaction_node.cli import build_parser
    from llm_interaction_node.llm_options import llm_environment
    argv = ["run", "--graph", graph]
    for arg, value in values.items():
        argv += ["--" + arg.replace("_", "-"), value]
    args = build_parser().parse_args(argv)
    assert build_overrides(args, GRAPHS[graph]) == want
    with pytest.raises(ValueError, match="--memory-port: 'eighty' is not an int"):
        build_overrides(build_parser().parse_args(["run", "--graph", graph, "--memory-port",
                                                   "eighty"]), GRAPHS[graph])
    run_env = llm_environment(args, {})
    assert all(run_env[k] == v for k, v in got_env["interaction_node"].items())


@pytest.mark.parametrize("graph", ["sim", "robot"])
def test_a_launch_argument_beats_the_environment_and_the_params_files(graph, monkeypatch):
    """Precedence: defaults < params files < environment < options, and a launch argument is
    an option: the interaction node reads llm_base_url:=X as X although its caller's
    environment sets LLM_INTERACTION_BASE_URL (what it reads without the argument)."""
    from llm_interaction_node.ros.interaction_parameters import read_params_files
    caller = {"LLM_INTERACTION_BASE_URL": "http://from-the-environment:1/v1",
              "LLM_INTERACTION_MODEL": "env-model"}

    def node_reads(**arguments):
        _, nodes = launch(graph, monkeypatch, **arguments)
        node = next(n for n in nodes if n.kwargs["name"] == "interaction_node")
        files = [p for p in node.kwargs["parameters"] if isinstance(p, str)]
        (overrides,) = [p for p in node.kwargs["parameters"] if isinstance(p, dict)]
        env = {**caller, **node.kwargs["additional_env"]}    # what launch gives the process
        return read_params_files(files, "interaction_node", overrides, env).settings.llm

    llm = node_reads()
    assert (llm.base_url, llm.model) == ("http://from-the-environment:1/v1", "env-model")
    llm = node_reads(llm_base_url="http://from-the-launch-argument:2/v1", llm_model="arg-model")
    assert (llm.base_url, llm.model) == ("http://from-the-launch-argument:2/v1", "arg-model")


@pytest.mark.parametrize("graph", ["sim", "robot"])
def test_speech_argument_adds_the_speech_nodes_as_run_speech_does(graph, monkeypatch):
    for value, speech in (("true", True), ("", False), ("false", False)):
        _, nodes = launch(graph, monkeypatch, speech=value)
        specs = graph_nodes(graph, speech)
        assert [n.kwargs["name"] for n in nodes] == [s.name for s in specs]
        for node, spec in zip(nodes, specs, strict=True):
            assert node.kwargs["executable"] == spec.executable
            files = [os.path.basename(p) for p in node.kwargs["parameters"] if isinstance(p, str)]
            assert files == spec.params_files
    assert [s.name for s in SPEECH_NODES] == ["microphone", "asr"]
    from llm_interaction_node.cli import build_parser
    args = build_parser().parse_args(["run", "--graph", graph, "--speech",
                                      "--param", "asr:min_confidence:=0.5"])
    assert args.speech
    assert build_overrides(args, graph_nodes(graph, True)) == {"asr": {"min_confidence": 0.5}}


@pytest.mark.parametrize("graph", ["sim", "robot"])
def test_record_argument_starts_the_recorder_first_as_run_record_does(graph, monkeypatch, tmp_path):
    _, nodes = launch(graph, monkeypatch, record=str(tmp_path / "bag"))
    specs = graph_nodes(graph, record=True)
    assert specs[0] is RECORDER and [n.kwargs["name"] for n in nodes] == [s.name for s in specs]
    recorder = nodes[0]
    assert recorder.kwargs["executable"] == RECORDER.executable
    assert [os.path.basename(p) for p in recorder.kwargs["parameters"] if isinstance(p, str)] == \
        RECORDER.params_files == ["recorder.yaml"]
    assert [p for p in recorder.kwargs["parameters"] if isinstance(p, dict)] == [
        {"path": str(tmp_path / "bag")}]
    from llm_interaction_node.cli import build_parser
    from llm_interaction_node.run_cli import record_path
    args = build_parser().parse_args(["run", "--graph", graph, "--record", str(tmp_path / "bag")])
    assert args.record and record_path(args.record) == tmp_path / "bag"
    (tmp_path / "bag").mkdir()
    (tmp_path / "bag" / "x").write_text("")
    with pytest.raises(ValueError, match="not an empty directory"):
        record_path(str(tmp_path / "bag"))


def test_every_executable_is_a_console_script_of_its_module():
    scripts = console_scripts()
    assert scripts["llm-interaction"] == "llm_interaction_node.cli:main"
    for graph in [*GRAPHS.values(), EXTRA_SPECS]:
        for spec in graph:
            assert scripts.get(spec.executable) == f"{spec.module}:main", spec.executable
    assert scripts["speech_console"] == "llm_interaction_node.ros.nodes.speech_console:main"
    assert scripts["tts"] == "llm_interaction_node.ros.nodes.tts:main"


@pytest.mark.parametrize("module", sorted({s.module for g in [*GRAPHS.values(), EXTRA_SPECS]
                                           for s in g}
                                          | {"llm_interaction_node.ros.nodes.speech_console"}))
def test_every_node_module_exists_and_runs_as_a_script(module):
    path = ROOT / (module.replace(".", "/") + ".py")
    assert path.exists(), f"{path} is missing"
    source = path.read_text()
    assert re.search(r"^def main\(", source, re.M)
    assert 'if __name__ == "__main__":' in source or "if __name__ == '__main__':" in source


@pytest.mark.parametrize("node,filename", sorted(ALL_SPECS))
def test_config_file_is_a_ros_params_file_for_its_node(node, filename):
    path = config_path(filename)
    assert path.exists(), f"{path} is missing"
    data = yaml.safe_load(path.read_text())
    assert list(data) == [node]
    assert isinstance(data[node]["ros__parameters"], dict)
    # rcl's own parser accepts it (rclpy.init parses --params-file files)
    import rclpy
    context = rclpy.Context()
    rclpy.init(args=["check", "--ros-args", "--params-file", str(path)], context=context)
    rclpy.shutdown(context=context)


def test_robot_yaml_names_the_default_interfaces():
    data = yaml.safe_load(config_path("robot.yaml").read_text())
    params = data["interaction_node"]["ros__parameters"]
    assert params["actions"] == SKILL_ACTIONS
    assert params["topics"] == {"scene": names.SCENE, "asr_text": names.ASR_TEXT,
                                "tts_text": names.TTS_TEXT}


def test_tts_yaml_defaults_to_wav_files():
    params = yaml.safe_load(config_path("tts.yaml").read_text())["tts"]["ros__parameters"]
    assert params["backend"] == "wav"
    assert set(params) == {"backend", "wav_dir", "voice", "words_per_minute", "espeak_command",
                           "max_chars", "publish_audio"}


# --- command lines --------------------------------------------------------------------------------

def test_command_line_of_a_graph_node():
    tts = next(s for s in SIM_GRAPH if s.name == "tts")
    cmd = command_line(tts, {"backend": "espeak", "words_per_minute": 140})
    assert cmd == [sys.executable, "-m", "llm_interaction_node.ros.nodes.tts", "--ros-args",
                   "-r", "__node:=tts", "--params-file", str(config_path("tts.yaml")),
                   "-p", "backend:=espeak", "-p", "words_per_minute:=140"]
    assert Path(cmd[7]).is_absolute() and Path(cmd[7]).exists()


def test_command_line_keeps_params_file_order_parameters_and_remappings():
    robot = ROBOT_GRAPH[0]
    cmd = command_line(robot)
    files = [cmd[i + 1] for i, a in enumerate(cmd) if a == "--params-file"]
    assert [Path(f).name for f in files] == ["interaction_node.yaml", "robot.yaml"]
    assert "-p" not in cmd
    spec = NodeSpec("x", "some.module", "renamed", [], {"a": 1, "b": "keep"},
                    {names.ASR_TEXT: "/asr/text"})
    cmd = command_line(spec, {"b": "1.5", "c": True, "d": ["x", "y"], "e": ""})
    assert cmd[3:] == ["--ros-args", "-r", "__node:=renamed", "-p", "a:=1", "-p", "b:='1.5'",
                       "-p", "c:=true", "-p", "d:=[x, y]", "-p", "e:=''",
                       "-r", "speech/asr_text:=/asr/text"]
    assert spec.parameters == {"a": 1, "b": "keep"}          # not changed by the overrides


def test_string_values_stay_strings():
    assert format_value("http://localhost:11434/v1") == "http://localhost:11434/v1"
    assert format_value("qwen2.5:7b") == "qwen2.5:7b"
    assert format_value("true") == "'true'" and format_value("null") == "'null'"
    assert format_value(2.5) == "2.5" and format_value(False) == "false"
    with pytest.raises(ValueError):
        format_value(None)


def test_run_options_become_parameter_overrides():
    from llm_interaction_node.cli import build_parser
    parser = build_parser()
    args = parser.parse_args(["run", "--world", "ladder_and_shelf", "--llm-model", "1.5",
                              "--memory-path", "/tmp/mem", "--param", "tts:backend:=espeak",
                              "--param", "tts:words_per_minute:=120",
                              "--param", "interaction_node:llm.temperature:=0.2"])
    assert args.graph == "sim" and not args.no_console and not args.quiet
    assert build_overrides(args, SIM_GRAPH) == {
        "household_sim": {"world": "ladder_and_shelf"},
        "interaction_node": {"knowledge": "ladder_and_shelf", "llm.model": "1.5",
                             "memory.path": "/tmp/mem",
                             "llm.temperature": 0.2},
        "tts": {"backend": "espeak", "words_per_minute": 120}}
    with pytest.raises(ValueError, match="no node 'household_sim'"):
        build_overrides(parser.parse_args(["run", "--graph", "robot", "--world", "x"]), ROBOT_GRAPH)
    with pytest.raises(ValueError, match="NODE:NAME:=VALUE"):
        parse_param("tts:backend=espeak")
    assert parse_param("tts:voice:=en-us") == ("tts", "voice", "en-us")
    assert parse_param("tts:voice:='1'") == ("tts", "voice", "1")


def test_run_help_works_without_importing_rclpy():
    code = textwrap.dedent("""
        import sys
        from llm_interaction_node import cli
        try:
            cli.main(["run", "--help"])
        except SystemExit as exc:
            assert exc.code == 0, exc.code
        print("rclpy imported:", "rclpy" in sys.modules)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "--graph {robot,sim}" in r.stdout and "--no-console" in r.stdout
    assert "NODE:NAME:=VALUE" in r.stdout
    assert "rclpy imported: False" in r.stdout


def test_run_rejects_a_parameter_for_a_node_outside_the_graph():
    r = subprocess.run([sys.executable, "-m", "llm_interaction_node.cli", "run", "--graph", "robot",
                        "--param", "tts:backend:=log", "--no-console"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2
    assert "no node 'tts'" in r.stderr


# --- the runner (plain Python processes standing in for nodes) -----------------------------------

FAKE_NODE = '''
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)   # even if the test runs in background
args = sys.argv[1:]
name = args[args.index("-r") + 1].split(":=")[1]
print(f"{name} up pgid={os.getpgid(0)} range={os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE')}",
      flush=True)
print("[WARN] [0.0] [" + name + "]: a warning", flush=True)
if name == "crashing":
    time.sleep(0.5)
    print("about to fail", flush=True)
    sys.exit(3)
if name == "stubborn":
    signal.signal(signal.SIGINT, lambda *a: print("ignoring SIGINT", flush=True))
try:
    while True:
        time.sleep(0.05)
except KeyboardInterrupt:
    if name == "slow":
        time.sleep(0.5)
    print(f"stopped cleanly at {time.time():.3f}", flush=True)
'''


class _Out:
    def __init__(self):
        self.text = ""

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_runner_logs_reports_a_dead_node_and_stops_the_rest(tmp_path):
    (tmp_path / "fake_node.py").write_text(FAKE_NODE)
    env = {k: v for k, v in os.environ.items() if k != "ROS_AUTOMATIC_DISCOVERY_RANGE"}
    env["PYTHONPATH"] = str(tmp_path)
    specs = [NodeSpec("fake", "fake_node", n) for n in ("steady", "crashing", "stubborn")]
    out = _Out()
    runner = GraphRunner(specs, log_dir=tmp_path / "logs", out=out, env=env, stop_timeout=1.5)
    with runner:
        assert f"logs: {tmp_path / 'logs'}" in out.text
        assert runner.wait(timeout=30) == ["crashing"]
        assert runner.running() == ["steady", "stubborn"]
        report = out.text[out.text.index("!! crashing exited with code 3"):]
        assert "about to fail" in report and str(runner.log_path("crashing")) in report
        assert "[steady] [WARN] [0.0] [steady]: a warning" in out.text     # warnings echoed
        assert "[steady] steady up" not in out.text                        # the rest is not
        pids = {p.spec.name: p.popen.pid for p in runner._procs}
        started = time.monotonic()
    took = time.monotonic() - started
    codes = runner.exit_codes()
    assert codes["crashing"] == 3 and codes["steady"] == 0               # SIGINT: clean exit
    assert codes["stubborn"] == -signal.SIGKILL and 1.0 < took < 10      # killed after the timeout
    assert "stubborn did not stop within 1.5 s; killing it" in out.text
    for name, pid in pids.items():
        log = runner.log_path(name).read_text()
        assert f"{name} up pgid={pid} range=LOCALHOST" in log            # own process group
        assert log.startswith(f"$ {sys.executable} -m fake_node --ros-args -r __node:={name}")
    assert "stopped cleanly" in runner.log_path("steady").read_text()
    assert "ignoring SIGINT" in runner.log_path("stubborn").read_text()
    assert "!! steady" not in out.text                                   # stopping is no death


def test_runner_stops_a_stop_last_node_after_the_others_have_ended(tmp_path):
    """The recorder (stop_last) keeps what the other nodes publish while they stop."""
    (tmp_path / "fake_node.py").write_text(FAKE_NODE)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    specs = [NodeSpec("fake", "fake_node", "last", stop_last=True),
             NodeSpec("fake", "fake_node", "slow")]
    assert RECORDER.stop_last and not any(s.stop_last for g in GRAPHS.values() for s in g)
    runner = GraphRunner(specs, log_dir=tmp_path / "logs", out=_Out(), env=env, echo="none")
    with runner:
        deadline = time.monotonic() + 30
        while not all(f"{n} up" in runner.log_path(n).read_text() for n in ("last", "slow")):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    assert runner.exit_codes() == {"last": 0, "slow": 0}
    stopped = {n: float(re.search(r"stopped cleanly at ([\d.]+)", runner.log_path(n).read_text())
                        .group(1)) for n in ("last", "slow")}
    assert stopped["last"] >= stopped["slow"]


def test_runner_stops_the_nodes_on_an_exception(tmp_path):
    (tmp_path / "fake_node.py").write_text(FAKE_NODE)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    runner = GraphRunner([NodeSpec("fake", "fake_node", "steady")], log_dir=tmp_path / "logs",
                         out=_Out(), env=env, echo="none")
    with pytest.raises(RuntimeError):
        with runner:
            pid = runner._procs[0].popen.pid
            deadline = time.monotonic() + 30
            while "steady up" not in runner.log_path("steady").read_text():
                assert time.monotonic() < deadline
                time.sleep(0.05)
            raise RuntimeError("boom")
    assert runner.exit_codes() == {"steady": 0}             # stopped by SIGINT, not killed
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_runner_rejects_overrides_for_unknown_nodes():
    with pytest.raises(ValueError, match="no node named tts"):
        GraphRunner(ROBOT_GRAPH, {"tts": {"backend": "log"}})


def _params(spec: NodeSpec, filename: str) -> dict:
    return flatten(yaml.safe_load(config_path(filename).read_text())[spec.name]["ros__parameters"])


def test_the_parameters_set_by_options_and_robot_yaml_exist_in_the_nodes_params_files():
    specs = {s.name: s for g in GRAPHS.values() for s in g}
    for argument in LAUNCH_ARGUMENTS.values():
        for node, param in argument.targets:
            assert param in _params(specs[node], specs[node].params_files[0]), (node, param)
    robot = ROBOT_GRAPH[0]
    base, overrides = (_params(robot, f) for f in robot.params_files)
    assert set(overrides) <= set(base)
    assert {k: base[k] for k in overrides} == overrides       # defaults: the same names


def test_run_without_console_stops_every_node_on_ctrl_c(tmp_path):
    """The real `llm-interaction run --no-console`: Ctrl-C (SIGINT) ends it with exit code 0
    and no node process is left behind."""
    proc = subprocess.Popen([sys.executable, "-m", "llm_interaction_node.cli", "run",
                             "--no-console", "--log-dir", str(tmp_path / "logs"),
                             "--param", "tts:backend:=log",
                             "--memory-path", str(tmp_path / "memory")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                            start_new_session=True)
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("running; Ctrl-C stops"):
                break
        started = re.finditer(r"^started \w+ \(pid (\d+)\)", "".join(lines), re.M)
        pids = [int(m.group(1)) for m in started]
        assert len(pids) == len(SIM_GRAPH), "".join(lines)
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, "".join(lines) + rest
    assert "stopping the nodes ..." in rest
    assert not any(line.startswith("Traceback") for line in rest.splitlines())
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == \
        sorted(f"{s.name}.log" for s in SIM_GRAPH)
