#!/usr/bin/env bash
# Sets up GraphLens (Debian packages + build), runs every test through ctest, builds the .deb, then
# builds everything again with Clang, AddressSanitizer and UndefinedBehaviorSanitizer and runs the
# suite and the fuzz targets there.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/bootstrap.sh
ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)"
(cd build && cpack -G DEB >/dev/null && echo "test.sh: built $(ls -1 graphlens_*.deb)")
# The suite again under ASan and UBSan (every suite but the Vulkan conformance run, whose time goes
# to lavapipe's shaders, which the sanitizers do not see), with oneDNN limited to AVX2: on an
# AVX-512 machine this runs the other kind's kernels and layouts (8-channel blocks instead of 16),
# so both kinds are tested wherever this runs. Then each fuzz target on every seed (the fixtures,
# the conformance cases generated above, the TF fixtures as GraphDefs) and regression input, once
# each: the same inputs on every machine. (Seeded mutations, `--runs N`, are steered by coverage,
# which differs by machine kind, so they belong to the fuzzing campaigns, not to this verdict.)
echo "test.sh: the suite and the fuzz targets under ASan and UBSan, oneDNN limited to AVX2"
ONEDNN_MAX_CPU_ISA=AVX2 ./scripts/sanitize.sh --runs 0
