#!/usr/bin/env bash
# The project's tests: the Rust workspace, then the Python package built from this checkout into
# its own virtual environment (.venv, made here with maturin, numpy and pytest) and its tests.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check "maturin>=1.16,<2" numpy pytest
PATH="$PWD/.venv/bin:$PATH" .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-build-isolation .
.venv/bin/python -m pytest -q python/tests
