#!/usr/bin/env bash
# Sets up GraphLens (Debian packages + build) and opens the window on MODEL, or on the bundled
# sample model. Without a display it says so and runs a headless demo instead.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/bootstrap.sh
model="${1:-resources/models/sample_cnn.onnx}"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec ./build/app/graphlens "$model"
fi
echo "run.sh: no display found, so here is the headless demo (info, run, bench) instead of the window."
./build/app/graphlens info "$model"
echo
./build/app/graphlens run "$model"
echo
./build/app/graphlens bench "$model" --runs 20 --by-op
