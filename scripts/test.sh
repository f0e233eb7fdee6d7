#!/usr/bin/env bash
# The project's tests: formatting and lints, the Rust workspace, then the Python package built
# from this checkout into its own virtual environment (.venv, made here with maturin, numpy and
# pytest) and its tests. Everything builds with the `ci` profile (Cargo.toml: optimised like
# release, without LTO), so the test binaries link quickly; `cargo build --release` stays as is.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --workspace --all-targets --profile ci -- -D warnings
cargo test --profile ci
# The crates on candle (the DNC trained by backpropagation, crates/nhc-dnc; the learned data
# modules, crates/nhc-learned; what they share, crates/nhc-grad) are not default members, and `nhc dnc` and `nhc data-modules`
# need the features `dnc` and `data-modules`; one thread, as their runs train (results do not
# depend on it).
# The `mpi` feature (`mpirun -np N nhc train`) needs OpenMPI and libclang: installed here when
# missing (scripts/setup_mpi.sh), built into the same binary as the two features above.
if ! command -v mpicc >/dev/null || ! ldconfig -p | grep -q 'libclang\(-[0-9.]*\)\?\.so '; then
    command -v apt-get >/dev/null && [ "$(id -u)" = 0 ] \
        || { echo "OpenMPI (mpicc, mpirun) and libclang are required: scripts/setup_mpi.sh"; exit 1; }
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        libopenmpi-dev openmpi-bin libclang-dev >/dev/null
fi
FEATURES=dnc,data-modules,mpi
cargo clippy -p nhc-cli --all-targets --profile ci --features $FEATURES -- -D warnings
RAYON_NUM_THREADS=1 cargo test --profile ci -p nhc-grad -p nhc-dnc -p nhc-learned
RAYON_NUM_THREADS=1 cargo test --profile ci -p nhc-cli --features $FEATURES --test dnc --test data_modules --test mpi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check "maturin>=1.16,<2" numpy pytest
PATH="$PWD/.venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile ci" \
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-build-isolation .
NHC_BIN="$PWD/target/ci/nhc" .venv/bin/python -m pytest -q python/tests
