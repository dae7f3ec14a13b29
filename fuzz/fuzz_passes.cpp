// libFuzzer target: the default (lossless) pass pipeline with numeric verification on a mutated
// ONNX model (fuzz_common.h), then export and reload of the result. A pass may decline, and
// verification may fail with a sentence; neither may crash, leave a malformed graph, or write a
// model that does not load.
#include "fuzz/fuzz_common.h"

#include "core/onnx/exporter.h"
#include "core/onnx/loader.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

GRAPHLENS_MODEL_MUTATOR

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace graphlens;
    auto loaded = fuzz::loadedModel(data, size);
    if (!loaded) return 0;
    Model& model = *loaded;
    auto feeds = fuzz::boundedFeeds(model.graph);
    if (!feeds) return 0;
    PipelineReport report;
    try {
        const auto passes = makePipeline("default");
        PassContext context = contextFor(model);
        PipelineOptions options;
        options.verify = true;
        options.skipFailing = true;
        options.verifyOptions.threads = 1;
        options.verifyOptions.maxMemory = fuzz::kMaxPlanBytes;
        options.feeds = std::move(*feeds);
        report = runPipeline(model, passes, context, options);
    } catch (const std::exception&) {
        return 0;  // the original model cannot run: refused with a sentence
    }
    if (const auto problems = model.graph.validate(); !problems.empty()) {
        std::fprintf(stderr, "the passes left a malformed graph: %s\n", problems.front().c_str());
        std::abort();
    }
    try {
        loadModelFromBytes(serializeModel(model));
    } catch (const std::exception&) {
    }
    return 0;
}
