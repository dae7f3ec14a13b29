// libFuzzer target: load, validate, prepare (shape inference and folding for concrete input
// sizes) and compile a CPU plan, under a memory bound, without running it. Inputs are ONNX models
// mutated structurally (fuzz_common.h): attributes, dims, wiring and op types change, so the
// validation before planning and the planners' size arithmetic see hostile values.
#include "fuzz/fuzz_common.h"

#include "core/onnx/loader.h"
#include "core/runtime/backend.h"

#include <exception>
#include <string_view>

GRAPHLENS_MODEL_MUTATOR

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace graphlens;
    try {
        const Model model = loadModelFromBytes(std::string_view(reinterpret_cast<const char*>(data), size));
        const auto feeds = fuzz::boundedFeeds(model.graph);
        if (!feeds) return 0;
        CompileOptions options;
        options.threads = 1;
        options.maxMemory = fuzz::kMaxPlanBytes;
        options.inputShapes = fuzz::shapesOf(*feeds);
        checkCpuPlanFits(model, options);
        makeCpuBackend()->compile(model, options);
        options.referenceOnly = true;
        makeCpuBackend()->compile(model, options);
    } catch (const std::exception&) {
        return 0;  // refused with a sentence
    }
    return 0;
}
