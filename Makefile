# Developer entry points. Stamp files record what was installed from which inputs,
# so a repeated `make test` reinstalls nothing unless pyproject/constraints/lockfile changed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# The extras to install: all of them for the tests; the site alone needs only docs (the publishing
# workflow sets EXTRAS=docs, and so installs no torch). The stamp names them, so that a venv made
# for fewer extras is completed, not taken for a full one.
EXTRAS ?= docs,test,verify
comma := ,
VENV_STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS)).stamp
NODE_STAMP := node_modules/.installed.stamp
# constraints.txt pins every transitive version, pip and setuptools included.
CONSTRAINTS := -c constraints.txt

# Material 9.8 prints an end-of-life notice for MkDocs 1.x on every build.
export NO_MKDOCS_2_WARNING := 1

.PHONY: all .venv node_modules site serve test clean
all: test

.venv: $(VENV_STAMP)
$(VENV_STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install $(CONSTRAINTS) pip setuptools
	# No build isolation: the package is built with the pinned setuptools just installed.
	$(PY) -m pip install $(CONSTRAINTS) --no-build-isolation -e '.[$(EXTRAS)]'
	touch $@

node_modules: $(NODE_STAMP)
$(NODE_STAMP): package.json package-lock.json
	npm ci
	touch $@

site: .venv node_modules
	$(PY) -m mkdocs build --strict -d site

serve: .venv node_modules
	$(PY) -m mkdocs serve --strict -a 127.0.0.1:8000

test: .venv node_modules
	$(PY) -m pytest

clean:
	rm -rf site .cache .pytest_cache .hypothesis
	find . -name __pycache__ -type d -not -path './$(VENV)/*' -not -path './node_modules/*' -prune -exec rm -rf {} +
