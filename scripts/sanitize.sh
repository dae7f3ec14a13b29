#!/usr/bin/env bash
# Builds GraphLens with Clang, AddressSanitizer and UndefinedBehaviorSanitizer (any undefined
# behaviour is an error) in ./build-asan: the core, the window, the command line, every test suite
# and the libFuzzer targets. Runs the test suite there, then the fuzz targets through
# scripts/fuzz.sh on the same build.
#
#   scripts/sanitize.sh [SECONDS]     every suite, then each fuzz target for SECONDS (default 15)
#   scripts/sanitize.sh --runs N      every suite but the slow ones listed below, then each fuzz
#                                     target on its corpus plus N mutations from a fixed seed
#                                     (what CI runs: the same answer on every run of one commit)
#
# Assertions stay on (no NDEBUG): Debug-only checks, such as the graph validation after each pass,
# run too. Leak checking is off: Qt, Mesa and protobuf keep process-lifetime allocations it reports.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_args=(15)
exclude=""
if [ "${1:-}" = "--runs" ]; then
  fuzz_args=(--runs "${2:-0}")
  # The Vulkan conformance run spends its time in lavapipe's JIT-compiled shaders, which the
  # sanitizers do not instrument; tst_vulkan_*, vulkan_matches_cpu and the kernel differential
  # test cover the Vulkan host code under the sanitizers.
  exclude="^conformance_vulkan$"
elif [ -n "${1:-}" ]; then
  fuzz_args=("$1")
fi
build="${GRAPHLENS_ASAN_BUILD:-build-asan}"

# Clang and libFuzzer besides what scripts/bootstrap.sh installs.
./scripts/apt_install.sh clang libclang-rt-14-dev libomp-dev

if [ ! -f "$build/build.ninja" ]; then
  CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
    -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only -fno-sanitize-recover=undefined" \
    -DGRAPHLENS_SANITIZE=address,undefined -DGRAPHLENS_FUZZ=ON >/dev/null
fi
echo "sanitize.sh: building $build (Clang, ASan + UBSan)"
cmake --build "$build" --parallel "$(nproc)"

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
echo "sanitize.sh: the test suite under AddressSanitizer and UndefinedBehaviorSanitizer${exclude:+ (without ${exclude})}"
ctest --test-dir "$build" --output-on-failure --timeout 900 -j "$(nproc)" ${exclude:+-E "$exclude"}
# fuzz.sh sets the fuzzers' own sanitizer options (allocations past the limit return null).
ASAN_OPTIONS= UBSAN_OPTIONS= GRAPHLENS_FUZZ_BUILD="$build" ./scripts/fuzz.sh "${fuzz_args[@]}"
