#!/usr/bin/env bash
# Installs the Debian 12 packages GraphLens builds, tests and runs with (only the missing ones),
# then configures and builds it in ./build. Shared by ./run.sh and ./test.sh; quick when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config ccache
  qt6-base-dev qt6-svg-dev libgl-dev
  libgraphviz-dev graphviz
  libvulkan-dev glslc spirv-tools mesa-vulkan-drivers
  libprotobuf-dev protobuf-compiler libonnx-dev
  libdnnl-dev ocl-icd-opencl-dev opencl-c-headers
  python3 python3-onnx python3-numpy
  xvfb xauth fonts-dejavu-core dpkg-dev file desktop-file-utils shared-mime-info
)

./scripts/apt_install.sh "${packages[@]}"

build_type="${GRAPHLENS_BUILD_TYPE:-Release}"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" ${GRAPHLENS_CMAKE_ARGS:-} >/dev/null
fi
cmake --build build --parallel "$(nproc)"
