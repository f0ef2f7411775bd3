# prunelab — build the book and run the tests.
#
#   make book                 executed book into _build/html (profile: paper)
#   PROFILE=smoke make book   the same at a small scale, quickly
#   BOOK_JOBS=1 make book     chapters one at a time (default: one per usable core)
#   make test                 ruff and actionlint, then the test suite (PYTEST_ARGS="-k prune -x")
#   make lift                 run each section of each chapter after only its setup cell (smoke profile)
#   make downloads            run each chapter's .ipynb on its own (after make book)
#   make clean                remove _build (keeps .venv)
#
# Each target installs what it needs into .venv itself; the install is redone only
# when pyproject.toml or constraints.txt changes (stamp: .venv/.prunelab-installed).

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
.DEFAULT_GOAL := book
.DELETE_ON_ERROR:

PYTHON3 ?= python3
VENV    := .venv
PY      := $(VENV)/bin/python
INSTALL_STAMP := $(VENV)/.prunelab-installed
EXTRAS  := test,book,peers,solvers

PROFILE ?= paper
export PRUNELAB_PROFILE := $(PROFILE)

BUILD_DIR := _build
HTML_DIR  := $(BUILD_DIR)/html
PYTEST_ARGS ?=

CHAPTERS  := $(wildcard notebooks/*.md)

.PHONY: venv test book lift downloads clean

## venv: create .venv and install the package with its test, book, peer and solver extras
##   (book pulls in chapters = experiments + plots; together: every dependency)
venv: $(INSTALL_STAMP)

$(PY):
	$(PYTHON3) -c 'import sys; assert sys.version_info >= (3, 11), f"prunelab needs Python 3.11+, this is {sys.version.split()[0]}"'
	$(PYTHON3) -m venv $(VENV)

$(INSTALL_STAMP): pyproject.toml constraints.txt | $(PY)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -c constraints.txt -e '.[$(EXTRAS)]'
	touch $@

## test: the linters (ruff, configured in pyproject.toml; actionlint on the publish
##   workflow), then the whole test suite
test: $(INSTALL_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/actionlint .github/workflows/*.yml
	$(PY) -m pytest $(PYTEST_ARGS)

## book: execute every chapter and build the site, failing on any warning or error.
##   1. scripts/cache_stamp.py drops executed notebooks if prunelab/, pyproject.toml,
##      data/ or PROFILE changed (jupyter-cache only sees a notebook's own cells), and
##      any cached execution with stderr or an error output (a page check_site
##      rejected executes again next time instead of being replayed from the cache);
##      matplotlib builds its font cache here, once per user, so that its "building
##      the font cache" notice cannot reach a page on a fresh machine;
##   2. scripts/execute_chapters.py executes the chapters not cached yet, side by side
##      (one kernel per usable core, or BOOK_JOBS), into the cache jupyter-book reads,
##      under its own keys;
##   3. jupyter-book builds, rendering the cached executions (a chapter that failed in
##      step 2 executes here and shows its error); its local extension
##      scripts/ipynb_download.py adds the plain .ipynb of each chapter to the page's
##      download menu;
##   4. scripts/figures.py gathers every figure of the executed chapters into
##      _build/html/figures/ (a page with captions, SVG files, figures.zip);
##   5. scripts/check_site.py checks every page of the toc in its HTML, and the page
##      of figures;
##   6. scripts/screenshot_site.py opens every page in headless Chromium (Debian's
##      /usr/bin/chromium), checks what a reader sees (maths typeset, images shown, no
##      page errors) and saves screenshots to _build/screenshots. Without Chromium it
##      says so and skips, except under CI, where it fails.
book: $(INSTALL_STAMP)
	@echo "== book: profile $(PROFILE)"
	$(PY) scripts/cache_stamp.py --profile '$(PROFILE)' --build-dir $(BUILD_DIR)
	$(PY) -c 'import matplotlib.font_manager'
	time $(PY) scripts/execute_chapters.py --book . --build-dir $(BUILD_DIR) $(if $(BOOK_JOBS),--jobs $(BOOK_JOBS)) $(CHAPTERS)
	time $(VENV)/bin/jupyter-book build . -n -W --keep-going
	$(PY) scripts/figures.py --build $(BUILD_DIR)
	$(PY) scripts/check_site.py --html $(HTML_DIR)
	$(PY) scripts/screenshot_site.py --html $(HTML_DIR) --out $(BUILD_DIR)/screenshots $(if $(CI),--require-browser)
	@echo "== book: open $(HTML_DIR)/index.html"

## lift: run each `## ` section of each chapter after only the chapter's setup cell
##   (its first code cell), in one Jupyter kernel per chapter, at the smoke profile
##   whatever PROFILE says: a section that uses a name only an earlier section
##   defines fails, unless its first line is the hidden comment "% runs-after: label".
lift: $(INSTALL_STAMP)
	time $(PY) scripts/check_lift.py --profile smoke $(CHAPTERS)

## downloads: run each chapter's .ipynb download on its own, as a teacher would: in a
##   new venv outside the repository with only the prunelab wheel and its chapters extra,
##   at the reader's default profile. Needs a built book (make book).
downloads: $(INSTALL_STAMP)
	$(PY) scripts/run_downloads.py --html $(HTML_DIR)

## clean: remove the build (executed notebooks, cache, site); keeps .venv
clean:
	rm -rf $(BUILD_DIR)
