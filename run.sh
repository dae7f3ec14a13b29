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
echo "run.sh: no display found, so here is the headless demo instead of the window:"
echo "info, optimize with every pass verified, before/after drawings, run, bench and a profile"
echo "(hotspots, a Chrome trace for Perfetto and a time heatmap of the optimized graph)."
out="demo-output"
mkdir -p "$out"
./build/app/graphlens info "$model"
echo
./build/app/graphlens optimize "$model" -o "$out/optimized.onnx" --verify --log
echo
./build/app/graphlens render "$model" -o "$out/before.svg"
./build/app/graphlens render "$out/optimized.onnx" -o "$out/after.svg"
echo
./build/app/graphlens run "$out/optimized.onnx"
echo
./build/app/graphlens bench "$model" --runs 20 --passes default --by-op
echo
./build/app/graphlens profile "$out/optimized.onnx" --runs 20 --trace "$out/trace.json" --top 5
./build/app/graphlens render "$out/optimized.onnx" --heatmap time -o "$out/heatmap.svg"
