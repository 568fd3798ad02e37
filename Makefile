# Two entry points (see README): `make run` runs the robot agent in the simulated household
# (ROS 2 nodes + a chat console), `make test` runs the suite. Both bootstrap the venv (pinned
# packages, ROS 2 wheels, the interface package built with cmake); the stamp makes a second
# run a no-op when nothing changed. `make chat` is the same agent without ROS; `make lint` runs
# ruff (pinned in requirements.txt, configured in pyproject.toml), as CI does before the tests.
PY ?= python3.11
VENV := .venv
STAMP := $(VENV)/.stamp
ARGS ?=
WHEELS ?= $(HOME)/.cache/llm_interaction_node/wheels
LLAMA := llama-cpp-python==0.3.36
# portable x86-64 build: a -march=native build used AMX here and crashed (SIGSEGV) on eval
LLAMA_CMAKE := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF

.PHONY: venv run chat test test-embedded test-under-load lint bench bench-ros eval-embedded eval-embedded-report bench-prompt-prefix bench-learning clean

venv: $(STAMP)

INTERFACES := $(wildcard interfaces/llm_interaction_interfaces/*.txt interfaces/llm_interaction_interfaces/*.xml \
	interfaces/llm_interaction_interfaces/*/*.msg interfaces/llm_interaction_interfaces/*/*.srv \
	interfaces/llm_interaction_interfaces/*/*.action)

$(STAMP): requirements.txt requirements-ros.txt requirements-llm.txt requirements-speech.txt setup.py scripts/build_interfaces.sh $(INTERFACES)
	test -x $(VENV)/bin/python || $(PY) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r requirements.txt -r requirements-ros.txt -r requirements-speech.txt
	scripts/build_interfaces.sh $(VENV)
	@ls $(WHEELS)/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1 || { \
		echo "building llama-cpp-python once for the embedded model (6-9 min, cached in $(WHEELS)) ..."; \
		mkdir -p $(WHEELS) && CMAKE_ARGS="$(LLAMA_CMAKE)" CMAKE_BUILD_PARALLEL_LEVEL=2 \
		$(VENV)/bin/pip wheel -q --no-cache-dir --no-deps -w $(WHEELS) $(LLAMA); }
	$(VENV)/bin/pip install -q --find-links $(WHEELS) -r requirements-llm.txt
	$(VENV)/bin/pip install -q --no-deps -e .
	@command -v espeak-ng >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& apt-get install -y -q espeak-ng >/dev/null 2>&1; } \
		|| echo "note: espeak-ng is not installed; the tts node will only log what the robot says"
	@ldconfig -p 2>/dev/null | grep -q libportaudio.so.2 || { [ "$$(id -u)" = 0 ] \
		&& command -v apt-get >/dev/null && apt-get install -y -q libportaudio2 >/dev/null 2>&1; } \
		|| echo "note: libportaudio2 is not installed; the microphone node cannot record (apt install libportaudio2)"
	touch $(STAMP)

# Once after install (and after a change of what the prompts are made of), `make run` warms the
# embedded model up before the console starts: the start of its prompts is evaluated once and
# kept on disk (~200 s on 2 cores), so a request said as soon as the robot listens is answered at
# once (issue 44; without it the first request waited 205.8 s). It starts the same nodes with the
# same ARGS and stops them (`llm-interaction run --warm-up-only`). Not part of `make test`.
# One stamp per ARGS (issue 60): the warmed prompts are the same in every world
# (test/test_warm_up_every_world.py), so another world (or other ARGS) restores the saved states
# in seconds, and re-evaluates what is not on disk any more (another memory's lessons, states
# dropped since: core/llm/states.py keeps the newest ones).
WARM_KEY := $(shell printf '%s' '$(subst ','\'',$(ARGS))' | md5sum | cut -c1-12)
WARM_STAMP := $(VENV)/.warm-$(WARM_KEY)
WARM_INPUTS := $(shell find config llm_interaction_node/core -type f \( -name '*.py' -o -name '*.yaml' -o -name '*.txt' \) 2>/dev/null)
$(WARM_STAMP): $(STAMP) $(WARM_INPUTS)
	@echo "warming up the robot's language model once (saved on disk for every later start) ..."
	@$(VENV)/bin/llm-interaction run --warm-up-only $(ARGS) && touch $@ \
		|| echo "note: not warmed up; the robot warms up in the background when it starts"

run: venv $(WARM_STAMP)
	$(VENV)/bin/llm-interaction run $(ARGS)

chat: venv
	$(VENV)/bin/llm-interaction chat --api humanoid $(ARGS)

# the embedded-model tests alone, then the others in two pytest processes (scripts/run_suite.py;
# a selection in ARGS, e.g. ARGS=test/test_cli.py, is one plain pytest run)
test: venv
	$(VENV)/bin/python scripts/run_suite.py -- $(ARGS)

# only the tests that run the embedded model (they are in `make test` too)
test-embedded: venv
	$(VENV)/bin/python -m pytest -q -m embedded_model $(ARGS)

# the suite with CPU hogs beside it (HOGS processes), measured: wall time, peak memory of the
# process tree and per test module (scripts/suite_profile.py; report in PROFILE_OUT)
HOGS ?= 1
PROFILE_OUT ?= build/suite_profile
test-under-load: venv
	$(VENV)/bin/python scripts/suite_profile.py --split --hog $(HOGS) --out $(PROFILE_OUT) -- $(ARGS)

lint: venv
	$(VENV)/bin/ruff check .

bench: venv
	$(VENV)/bin/python -m llm_interaction_node.bench.core_overhead $(ARGS)

bench-ros: venv
	$(VENV)/bin/python -m llm_interaction_node.bench.ros_roundtrip $(ARGS)

# The reduced protocol of docs/evaluation.md with the embedded model (hours on 2 cores;
# resumable: run it again after an interruption). EVAL_OUT holds the runs and the memory.
EVAL_OUT ?= results/embedded
EVAL_SYSTEMS ?= ours ours_no_learning cap
EVAL_TEMPLATES ?= blocks_in_bowl matching_bowls block_direction_of_bowl blocks_on_place
EVAL_RUNS ?= 3
eval-embedded: venv
	@for sys in $(EVAL_SYSTEMS); do \
		$(VENV)/bin/llm-interaction eval --system $$sys --split sa_si --templates $(EVAL_TEMPLATES) \
			--runs $(EVAL_RUNS) --seed 0 --out $(EVAL_OUT)/$$sys || exit 1; done

eval-embedded-report: venv
	$(VENV)/bin/llm-interaction eval-report $(addprefix $(EVAL_OUT)/,$(EVAL_SYSTEMS)) \
		--plot $(EVAL_OUT)/rounds.png --out $(EVAL_OUT)/report.md

# Issue 26's measurement with the embedded model (hours on 2 cores; resumable): the 5-run
# protocol of ours, ours_no_learning and cap, their report, the targets (first statement,
# wall per run, tokens ours / CaP, ours = ours_no_learning before a lesson) and the first
# statement after a lesson on the tabletop (bench.embedded_model learned-restart).
PREFIX_OUT ?= results/prompt_prefix
bench-prompt-prefix: venv
	$(MAKE) eval-embedded EVAL_OUT=$(PREFIX_OUT) EVAL_RUNS=5
	$(MAKE) eval-embedded-report EVAL_OUT=$(PREFIX_OUT)
	$(VENV)/bin/python -m llm_interaction_node.bench.prompt_prefix \
		$(addprefix $(PREFIX_OUT)/,$(EVAL_SYSTEMS)) | tee $(PREFIX_OUT)/targets.txt
	$(VENV)/bin/python -m llm_interaction_node.bench.embedded_model learned-restart --api tabletop \
		--save $(PREFIX_OUT)/learned_restart.json | tee $(PREFIX_OUT)/learned_restart.txt

# Issue 30's measurement with the embedded model (hours on 2 cores; resumable): the 5-run
# benchmark with the paper's user on 6 SA/SI templates (ours, ours_no_learning, cap), ours
# with the teaching user as a second protocol, the report, issue 26's targets over the same
# records; then section E (modes auto and final: learned, used and over-applied in new
# processes) and Table III (the lessons of ours on 2 UA/UI templates, frozen, against
# ours_no_learning).
LEARN_OUT ?= results/learning
LEARN_TEMPLATES ?= blocks_in_bowl matching_bowls block_direction_of_bowl blocks_on_place \
	block_distance_to_bowl nth_block_from_direction
LEARN_UNSEEN ?= mismatched_bowls stack_on_place
bench-learning: venv
	$(MAKE) eval-embedded EVAL_OUT=$(LEARN_OUT) EVAL_RUNS=5 EVAL_TEMPLATES="$(LEARN_TEMPLATES)"
	$(VENV)/bin/llm-interaction eval --system ours --user teaching --split sa_si --runs 5 --seed 0 \
		--templates $(LEARN_TEMPLATES) --out $(LEARN_OUT)/ours_teaching
	$(VENV)/bin/llm-interaction eval-report $(addprefix $(LEARN_OUT)/,$(EVAL_SYSTEMS) ours_teaching) \
		--plot $(LEARN_OUT)/rounds.png --out $(LEARN_OUT)/report.md
	$(VENV)/bin/python -m llm_interaction_node.bench.prompt_prefix \
		$(addprefix $(LEARN_OUT)/,$(EVAL_SYSTEMS)) | tee $(LEARN_OUT)/targets.txt
	mkdir -p $(LEARN_OUT)/section_e
	$(VENV)/bin/python -m llm_interaction_node.bench.section_e --modes auto final \
		--out $(LEARN_OUT)/section_e | tee $(LEARN_OUT)/section_e/table.md
	$(VENV)/bin/llm-interaction eval --system ours_frozen --memory-from $(LEARN_OUT)/ours \
		--split ua_ui --templates $(LEARN_UNSEEN) --runs 3 --seed 0 --out $(LEARN_OUT)/table3/ours_frozen
	$(VENV)/bin/llm-interaction eval --system ours_no_learning --split ua_ui \
		--templates $(LEARN_UNSEEN) --runs 3 --seed 0 --out $(LEARN_OUT)/table3/ours_no_learning
	$(VENV)/bin/llm-interaction eval-report $(LEARN_OUT)/table3/ours_frozen \
		$(LEARN_OUT)/table3/ours_no_learning --out $(LEARN_OUT)/table3/report.md

clean:
	rm -rf $(VENV) build *.egg-info
