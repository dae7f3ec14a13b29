// A model: the main graph plus what the ONNX file says about it (opsets, producer, metadata).
#pragma once

#include "core/graph/graph.h"
#include "core/graph/op_key.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace graphlens {

struct OpsetImport {
    std::string domain;  ///< canonical: "" is the default domain (the loader reads "ai.onnx" as "")
    int64_t version = 0;
    bool operator==(const OpsetImport&) const = default;
};

struct Model {
    int64_t irVersion = 8;
    std::vector<OpsetImport> opsets{{"", 17}};
    std::string producerName;
    std::string producerVersion;
    std::string domain;
    int64_t modelVersion = 0;
    std::string docString;
    std::vector<std::pair<std::string, std::string>> metadata;
    Graph graph;

    /// Model-level fields GraphLens does not interpret (local functions, training info),
    /// kept as a serialized ModelProto fragment and merged back on export.
    std::string opaqueFields;
    /// The folder external data was read from; empty for models built in memory.
    std::filesystem::path sourceDir;
    /// What the ONNX checker and shape inference reported without stopping the load.
    std::vector<std::string> warnings;

    /// The opset version imported for `domain` ("" and "ai.onnx" are the same); 0 when absent.
    int64_t opsetVersion(std::string_view opsetDomain = "") const {
        const std::string wanted = canonicalDomain(opsetDomain);
        for (const OpsetImport& o : opsets)
            if (canonicalDomain(o.domain) == wanted) return o.version;
        return 0;
    }
};

} // namespace graphlens
