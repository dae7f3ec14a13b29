// A TensorFlow GraphDef (from a frozen .pb or a TF.js model.json) converted into the graph IR in
// ONNX-op terms: each TF node becomes one or more ONNX nodes named after it, with the TF op type in
// their doc string ("tf_op: _FusedConv2D") and one shared provenance, so the window shows the graph
// the user knows.
#pragma once

#include "core/graph/model.h"
#include "core/tf/tf_graph.pb.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace graphlens::tf {

struct GraphDefSource {
    std::string fileLabel;  ///< how messages name the file: "'model.json'"
    std::string producer;   ///< "TF.js GraphModel" or "TensorFlow GraphDef"
    /// Const values kept outside the graph (TF.js weight shards), by node name; with
    /// `weightsOutside`, a Const missing here is an error rather than its in-graph value.
    std::unordered_map<std::string, Tensor> weights;
    bool weightsOutside = false;
    /// Output tensors by TF name ("scores", "boxes:1"); empty: every node nothing reads.
    std::vector<std::string> outputs;
    std::vector<std::pair<std::string, std::string>> metadata;
    std::filesystem::path sourceDir;
};

/// Converts `graph`. Throws TfImportError with one sentence for unsupported ops ("unsupported
/// TensorFlow op 'Foo' at node 'bar'"), dangling inputs, cycles and malformed nodes.
Model importGraphDef(const GraphDef& graph, GraphDefSource source);

} // namespace graphlens::tf
