// libFuzzer target: structure-aware execution. A mutated ONNX model (fuzz_common.h) is compiled for
// the CPU under a memory bound and run on small deterministic inputs, with the optimized kernels
// and then with the reference kernels alone; a model either runs or is refused with an exception.
#include "fuzz/fuzz_common.h"

#include "core/onnx/loader.h"

#include <string_view>

GRAPHLENS_MODEL_MUTATOR

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace graphlens;
    auto loaded = fuzz::loadedModel(data, size);
    if (!loaded) return 0;
    const Model& model = *loaded;
    const auto feeds = fuzz::boundedFeeds(model.graph);
    if (!feeds) return 0;
    fuzz::runBothKernelSets(model, *feeds);
    return 0;
}
