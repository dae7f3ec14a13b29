// TF.js model.json and frozen .pb reading: the JSON through protobuf's JSON parser (the GraphDef in
// modelTopology parses into the same messages as a .pb), the signature for inputs and outputs.
#include "core/tf/tf_loader.h"

#include "core/tf/graphdef_import.h"
#include "core/tf/tf_error.h"
#include "core/tf/tfjs_model.pb.h"
#include "core/tf/tfjs_weights.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <sstream>

namespace graphlens::tf {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& path, const std::string& label) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) throw TfImportError(label + " does not exist or is not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TfImportError(label + " cannot be opened");
    std::ostringstream text;
    text << in.rdbuf();
    std::string bytes = std::move(text).str();
    if (bytes.empty()) throw TfImportError(label + " is empty");
    return bytes;
}

/// The signature's output names in the order model.json lists them (protobuf maps forget it).
std::vector<std::string> orderedOutputs(const TfjsSignature& signature, const std::string& json) {
    std::vector<std::pair<size_t, std::string>> found;
    const size_t from = json.rfind("\"signature\"");
    for (const auto& [key, info] : signature.outputs()) {
        const size_t at = from == std::string::npos ? std::string::npos : json.find("\"" + key + "\"", from);
        found.emplace_back(at, info.name().empty() ? key : info.name());
    }
    std::stable_sort(found.begin(), found.end());
    std::vector<std::string> names;
    for (auto& entry : found) names.push_back(std::move(entry.second));
    return names;
}

} // namespace

Model loadTfjsModel(const fs::path& path) {
    const std::string label = "'" + path.filename().string() + "'";
    const std::string json = readFile(path, "the TF.js model " + label);
    TfjsModelJson model;
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    if (auto status = google::protobuf::util::JsonStringToMessage(json, &model, options); !status.ok())
    {
        std::string why(status.message());
        why.resize(std::min(why.find('\n'), why.size()));
        while (!why.empty() && (why.back() == '.' || why.back() == ' ')) why.pop_back();
        throw TfImportError(label + " is not a valid TF.js model.json: " + why);
    }
    if (model.format() == "layers-model")
        throw TfImportError(label + " is a TF.js layers model (Keras), which GraphLens does not open yet; convert it to a graph model");
    if (model.model_topology().node_size() == 0)
        throw TfImportError(label + " is not a TF.js graph model: its modelTopology holds no nodes");
    fs::path dir = path.parent_path();
    if (dir.empty()) dir = ".";
    GraphDefSource source;
    source.fileLabel = label;
    source.producer = "TF.js GraphModel";
    source.weights = readTfjsWeights(model.weights_manifest(), dir, label);
    source.weightsOutside = true;
    const TfjsSignature& signature = model.has_signature() ? model.signature() : model.user_defined_metadata().signature();
    source.outputs = orderedOutputs(signature, json);
    if (!model.generated_by().empty()) source.metadata.emplace_back("generatedBy", model.generated_by());
    if (!model.converted_by().empty()) source.metadata.emplace_back("convertedBy", model.converted_by());
    source.metadata.emplace_back("format", "TF.js " + (model.format().empty() ? std::string("graph-model") : model.format()));
    source.sourceDir = dir;
    return importGraphDef(model.model_topology(), std::move(source));
}

Model loadFrozenGraph(const fs::path& path) {
    const std::string label = "'" + path.filename().string() + "'";
    const std::string bytes = readFile(path, "the TensorFlow graph " + label);
    if (bytes.size() > size_t(INT_MAX)) throw TfImportError(label + " is over 2 GiB, more than a GraphDef can hold");
    GraphDef graph;
    google::protobuf::io::CodedInputStream coded(reinterpret_cast<const uint8_t*>(bytes.data()), int(bytes.size()));
    coded.SetTotalBytesLimit(INT_MAX);
    if (!graph.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
        throw TfImportError(label + " is not a TensorFlow GraphDef: its protobuf data is malformed or truncated");
    if (graph.node_size() == 0) throw TfImportError(label + " is not a TensorFlow GraphDef: it holds no nodes");
    fs::path dir = path.parent_path();
    GraphDefSource source;
    source.fileLabel = label;
    source.producer = "TensorFlow GraphDef";
    source.metadata.emplace_back("format", "TensorFlow frozen GraphDef");
    source.sourceDir = dir.empty() ? fs::path(".") : dir;
    return importGraphDef(graph, std::move(source));
}

bool looksLikeGraphDef(std::string_view bytes) { return !bytes.empty() && uint8_t(bytes[0]) == 0x0a; }

} // namespace graphlens::tf
