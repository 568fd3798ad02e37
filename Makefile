# Two entry points (see README): `make run` runs the robot agent in the simulated household
# (ROS 2 nodes + a chat console), `make test` runs the suite. Both bootstrap the venv (pinned
# packages, ROS 2 wheels, the interface package built with cmake); the stamp makes a second
# run a no-op when nothing changed. `make chat` is the same agent without ROS.
PY ?= python3.11
VENV := .venv
STAMP := $(VENV)/.stamp
ARGS ?=

.PHONY: venv run chat test bench bench-ros clean

venv: $(STAMP)

INTERFACES := $(wildcard interfaces/llm_interaction_interfaces/*.txt interfaces/llm_interaction_interfaces/*.xml \
	interfaces/llm_interaction_interfaces/*/*.msg interfaces/llm_interaction_interfaces/*/*.srv \
	interfaces/llm_interaction_interfaces/*/*.action)

$(STAMP): requirements.txt requirements-ros.txt setup.py scripts/build_interfaces.sh $(INTERFACES)
	test -x $(VENV)/bin/python || $(PY) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r requirements.txt -r requirements-ros.txt
	scripts/build_interfaces.sh $(VENV)
	$(VENV)/bin/pip install -q --no-deps -e .
	@command -v espeak-ng >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& apt-get install -y -q espeak-ng >/dev/null 2>&1; } \
		|| echo "note: espeak-ng is not installed; the tts node will only log what the robot says"
	touch $(STAMP)

run: venv
	$(VENV)/bin/llm-interaction run $(ARGS)

chat: venv
	$(VENV)/bin/llm-interaction chat --api humanoid $(ARGS)

test: venv
	$(VENV)/bin/python -m pytest -q $(ARGS)

bench: venv
	$(VENV)/bin/python -m llm_interaction_node.bench.core_overhead $(ARGS)

bench-ros: venv
	$(VENV)/bin/python -m llm_interaction_node.bench.ros_roundtrip $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
