# Two entry points (see README): `make chat` runs the agent, `make test` runs the suite.
# Both bootstrap the venv; the stamp makes a second run a no-op when nothing changed.
PY ?= python3.11
VENV := .venv
STAMP := $(VENV)/.stamp
ARGS ?=

.PHONY: venv chat test bench clean

venv: $(STAMP)

$(STAMP): requirements.txt setup.py
	test -x $(VENV)/bin/python || $(PY) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r requirements.txt
	$(VENV)/bin/pip install -q --no-deps -e .
	touch $(STAMP)

chat: venv
	$(VENV)/bin/llm-interaction chat --api humanoid $(ARGS)

test: venv
	$(VENV)/bin/python -m pytest -q $(ARGS)

bench: venv
	$(VENV)/bin/python -m llm_interaction_node.bench.core_overhead $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
