#!/usr/bin/env bash
# Builds GraphLens with Clang, AddressSanitizer and UndefinedBehaviorSanitizer (any undefined
# behaviour is an error) in ./build-asan, runs the test suite there, then each libFuzzer target for
# SECONDS (default 15) through scripts/fuzz.sh. CI runs it after the regular build's tests.
#
#   scripts/sanitize.sh [SECONDS]
#
# Assertions stay on (no NDEBUG): Debug-only checks, such as the graph validation after each pass,
# run too. Leak checking is off: Qt, Mesa and protobuf keep process-lifetime allocations it reports.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-15}"
build="${GRAPHLENS_ASAN_BUILD:-build-asan}"

# Clang and libFuzzer besides what scripts/bootstrap.sh installs.
./scripts/apt_install.sh clang libclang-rt-14-dev libomp-dev

if [ ! -f "$build/build.ninja" ]; then
  CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
    -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only -fno-sanitize-recover=undefined" \
    -DGRAPHLENS_SANITIZE=address,undefined -DGRAPHLENS_FUZZ=ON >/dev/null
fi
cmake --build "$build" --parallel "$(nproc)"

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
echo "sanitize.sh: the test suite under AddressSanitizer and UndefinedBehaviorSanitizer"
ctest --test-dir "$build" --output-on-failure --timeout 900 -j "$(nproc)"
GRAPHLENS_FUZZ_BUILD="$build" ./scripts/fuzz.sh "$seconds"
