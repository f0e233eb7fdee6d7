#!/usr/bin/env bash
# OpenMPI and `nhc` built with the `mpi` feature, on a fresh Debian or Ubuntu machine (as root,
# or with sudo): the packages rsmpi needs (OpenMPI's library and `mpirun`, and libclang for its
# bindings), then `cargo build --release --features mpi`. Elsewhere, install an MPI (OpenMPI or
# MPICH, with its development headers and `mpicc`) and libclang by other means and run the build
# line. Then: `mpirun -np N ./target/release/nhc train …` (README.md, "On a cluster").
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v mpicc >/dev/null || ! ldconfig -p | grep -q 'libclang\(-[0-9.]*\)\?\.so '; then
    command -v apt-get >/dev/null || { echo "install an MPI with mpicc and libclang, then rerun"; exit 1; }
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        libopenmpi-dev openmpi-bin libclang-dev >/dev/null
fi
cargo build --release --features mpi
