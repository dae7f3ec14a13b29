#!/usr/bin/env bash
# Sets up GraphLens (Debian packages + build), runs every test through ctest, and builds the .deb.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/bootstrap.sh
ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)"
# Once more with oneDNN limited to AVX2: on an AVX-512 machine this runs the other kind's kernels
# and layouts (8-channel blocks instead of 16), so both kinds are tested wherever this runs.
echo "test.sh: the suite again with ONEDNN_MAX_CPU_ISA=AVX2"
ONEDNN_MAX_CPU_ISA=AVX2 ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)"
(cd build && cpack -G DEB >/dev/null && echo "test.sh: built $(ls -1 graphlens_*.deb)")
# The fuzz targets built with Clang, AddressSanitizer and UndefinedBehaviorSanitizer, each on every
# seed model (the fixtures and the conformance cases generated above) and every regression input.
echo "test.sh: the fuzz targets under ASan and UBSan"
./scripts/fuzz.sh --runs 0
