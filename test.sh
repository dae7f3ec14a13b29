#!/usr/bin/env bash
# Sets up GraphLens (Debian packages + build), runs every test through ctest, and builds the .deb.
set -euo pipefail
cd "$(dirname "$0")"
./scripts/bootstrap.sh
ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)"
(cd build && cpack -G DEB >/dev/null && echo "test.sh: built $(ls -1 graphlens_*.deb)")
