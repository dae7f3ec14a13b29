#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with Clang, AddressSanitizer and UndefinedBehaviorSanitizer
# in ./build-fuzz, seeds each target's corpus from the fixture models (and the generated ONNX
# conformance cases where build/onnx_cases exists), and runs every target for SECONDS (default 60).
# Prints executions, coverage and corpus size per target; exits 1 when a target found a crash, a
# sanitizer report or a timeout (the reproducer is in build-fuzz/artifacts/TARGET/).
#
#   scripts/fuzz.sh [SECONDS] [TARGET ...]
#   scripts/fuzz.sh --runs N [TARGET ...]
#
# --runs N replays the corpus and then makes N mutations per target from a fixed seed (-seed=1),
# as long as a count rather than a clock: one commit makes the same inputs on every run on one
# kind of machine (coverage steers the mutations, and kernels differ by CPU). --runs 0 (what CI
# runs, through scripts/sanitize.sh) only replays the corpus: every seed model once.
#
# Installs Debian's clang, libclang-rt-14-dev and libomp-dev where missing (besides the packages of
# scripts/bootstrap.sh, which it expects).
# A reproducer replays with: build-fuzz/fuzz/TARGET FILE; fix it, then copy FILE into
# fuzz/regressions/TARGET/, which ctest replays in every build (fuzz_regressions).
set -euo pipefail
cd "$(dirname "$0")/.."

mutations=""
if [ "${1:-}" = "--runs" ]; then
  mutations="${2:-}"
  shift 2 || true
  seconds=0
  case "$mutations" in ''|*[!0-9]*) echo "fuzz.sh: --runs takes a whole number of mutations" >&2; exit 2 ;; esac
else
  seconds="${1:-60}"
  shift || true
  case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_load fuzz_plan fuzz_run fuzz_passes fuzz_tf)

build="${GRAPHLENS_FUZZ_BUILD:-build-fuzz}"
./scripts/apt_install.sh clang libclang-rt-14-dev libomp-dev
if [ ! -f "$build/build.ninja" ]; then
  CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Fuzz \
    -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only -fno-sanitize-recover=undefined" -DGRAPHLENS_FUZZ=ON -DGRAPHLENS_SANITIZE=address,undefined \
    -DGRAPHLENS_APP=OFF -DGRAPHLENS_TESTS=OFF -DGRAPHLENS_VULKAN=OFF >/dev/null
fi
cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]}"

# Seeds: every fixture model, and the conformance cases (one small model per ONNX op test); for
# fuzz_tf, the TensorFlow fixtures written as frozen GraphDefs.
seeds=(tests/fixtures/models/*/model.onnx resources/models/*.onnx fuzz/regressions/*/*)
[ -d build/onnx_cases ] && seeds+=(build/onnx_cases/*/model.onnx)
tf_seeds=(tests/fixtures/tf/cases/pb_graphdef/model.pb)
if [[ " ${targets[*]} " == *" fuzz_tf "* ]]; then
  /usr/bin/python3 tests/fixtures/tf/make_tf_fixtures.py --frozen "$build/tf_seeds" >/dev/null
  tf_seeds+=("$build"/tf_seeds/*/model.pb)
  [ -d fuzz/regressions/fuzz_tf ] && tf_seeds+=(fuzz/regressions/fuzz_tf/*)
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export OMP_NUM_THREADS=1

failed=()
summary=()
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  artifacts="$build/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  # A seed enters the corpus under a name of its own, so new seeds join an existing corpus.
  target_seeds=("${seeds[@]}")
  [ "$target" = fuzz_tf ] && target_seeds=("${tf_seeds[@]}")
  for s in "${target_seeds[@]}"; do
    name="seed_$(echo "$s" | tr '/.' '__')"
    [ -e "$corpus/$name" ] || cp "$s" "$corpus/$name"
  done
  log="$build/$target.log"
  inputs=$(ls "$corpus" | wc -l)
  if [ "$mutations" = 0 ]; then
    budget=()
    echo "fuzz.sh: $target: the corpus ($inputs inputs), no mutations"
  elif [ -n "$mutations" ]; then
    budget=(-runs=$((inputs + mutations)) -seed=1)
    echo "fuzz.sh: $target: the corpus ($inputs inputs), then $mutations mutations"
  else
    budget=(-max_total_time="$seconds")
    echo "fuzz.sh: $target for ${seconds} s (corpus $corpus: $inputs inputs)"
  fi
  status=0
  if [ "$mutations" = 0 ]; then
    # Files, not the folder: libFuzzer runs each once and stops.
    "$build/fuzz/$target" "$corpus"/* -timeout=25 -rss_limit_mb=4096 -artifact_prefix="$artifacts/" \
      >"$log" 2>&1 || status=$?
  else
    "$build/fuzz/$target" "$corpus" "${budget[@]}" -timeout=25 -rss_limit_mb=4096 \
      -max_len=262144 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1 || status=$?
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  [ "$mutations" = 0 ] && execs=$(grep -c '^Executed ' "$log" || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  summary+=("$(printf '%-12s %12s executions  %6s edges  %7s features  %6s corpus' "$target" "${execs:-?}" \
    "${cov:-?}" "${ft:-?}" "$(ls "$corpus" | wc -l)")")
  if [ "$status" -ne 0 ]; then
    failed+=("$target")
    echo "fuzz.sh: $target stopped with status $status; the end of $log:" >&2
    tail -40 "$log" >&2
  fi
done

echo
if [ -n "$mutations" ]; then echo "fuzz.sh: the corpus and $mutations mutations per target"; else echo "fuzz.sh: ${seconds} s per target"; fi
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: findings in ${failed[*]}; reproducers in $build/artifacts/" >&2
  exit 1
fi
