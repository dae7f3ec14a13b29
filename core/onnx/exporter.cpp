// ONNX export: IR -> ModelProto -> file. Nodes are written in topological order; unnamed values
// that something reads get generated names; external data is appended to one side file. A file
// gets the main graph's raw data straight from the tensors (raw_data_writer.h).
#include "core/onnx/exporter.h"

#include "core/onnx/atomic_file.h"
#include "core/onnx/onnx_error.h"
#include "core/onnx/onnx_types.h"
#include "core/onnx/raw_data_writer.h"
#include "core/onnx/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <optional>

namespace graphlens {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kProtobufLimit = (uint64_t(1) << 31) - (uint64_t(64) << 20);
constexpr uint64_t kExternalAlignment = 64;

/// Appends tensor bytes to the external data file and points TensorProtos at them.
class ExternalDataWriter {
public:
    ExternalDataWriter(AtomicFile& file, std::string location, uint64_t threshold)
        : file_(file), location_(std::move(location)), threshold_(threshold) {}

    bool wants(const Tensor& t) const {
        return t.dtype() != DType::String && t.byteSize() >= threshold_;
    }
    void write(const Tensor& tensor, onnx::TensorProto& proto) {
        static const char zeros[kExternalAlignment] = {};
        const uint64_t pad = (kExternalAlignment - offset_ % kExternalAlignment) % kExternalAlignment;
        file_.write(zeros, pad);
        offset_ += pad;
        file_.write(tensor.data(), tensor.byteSize());
        proto.set_data_type(static_cast<int32_t>(tensor.dtype()));
        for (int64_t d : tensor.dims()) proto.add_dims(d);
        proto.set_data_location(onnx::TensorProto::EXTERNAL);
        addEntry(proto, "location", location_);
        addEntry(proto, "offset", std::to_string(offset_));
        addEntry(proto, "length", std::to_string(tensor.byteSize()));
        offset_ += tensor.byteSize();
    }

private:
    static void addEntry(onnx::TensorProto& proto, const std::string& key, const std::string& value) {
        auto* e = proto.add_external_data();
        e->set_key(key);
        e->set_value(value);
    }
    AtomicFile& file_;
    std::string location_;
    uint64_t threshold_;
    uint64_t offset_ = 0;
};

class GraphExporter {
public:
    GraphExporter(const SaveOptions& options, ExternalDataWriter* external)
        : options_(options), external_(external) {}

    /// Leaves the raw data of `g`'s initializers out of the message; `rawData` gets each one's
    /// tensor (null where the data went in), for RawDataModelWriter.
    void streamRawData(const Graph* g, std::vector<const Tensor*>* rawData) {
        streamedGraph_ = g;
        rawData_ = rawData;
    }
    void exportGraph(const Graph& g, onnx::GraphProto& out);

private:
    std::string nameOf(const Graph& g, ValueId v);
    void exportNode(const Graph& g, const Node& n, onnx::NodeProto& out);
    void exportAttribute(const Attribute& a, onnx::AttributeProto& out);
    void writeTensor(const Tensor& t, onnx::TensorProto& out, bool allowExternal);

    const SaveOptions& options_;
    ExternalDataWriter* external_;
    const Graph* streamedGraph_ = nullptr;
    std::vector<const Tensor*>* rawData_ = nullptr;
    std::unordered_map<const Graph*, std::unordered_map<ValueId, std::string>> generatedNames_;
};

std::string GraphExporter::nameOf(const Graph& g, ValueId v) {
    if (v == kNoId) return {};
    const Value& value = g.value(v);
    if (!value.name.empty() || (value.uses().empty() && !g.isGraphOutput(v))) return value.name;
    auto& names = generatedNames_[&g];
    auto it = names.find(v);
    if (it != names.end()) return it->second;
    std::string candidate;
    int suffix = v;
    do {
        candidate = "graphlens_value_" + std::to_string(suffix++);
    } while (g.findValue(candidate));
    return names[v] = candidate;
}

void GraphExporter::writeTensor(const Tensor& t, onnx::TensorProto& out, bool allowExternal) {
    if (t.byteSize() > options_.omitDataAboveBytes) {
        out.set_data_type(static_cast<int32_t>(t.dtype()));
        for (int64_t d : t.dims()) out.add_dims(d);
    } else if (allowExternal && external_ && external_->wants(t)) external_->write(t, out);
    else tensorToProto(t, out);
}

void GraphExporter::exportGraph(const Graph& g, onnx::GraphProto& out) {
    out.set_name(g.name);
    if (!g.docString.empty()) out.set_doc_string(g.docString);
    for (ValueId v : g.inputs()) valueToValueInfo(g.value(v), *out.add_input());
    for (ValueId v : g.initializers()) {
        auto* t = out.add_initializer();
        const Tensor& tensor = *g.value(v).initializer;
        const bool streamed = &g == streamedGraph_ && tensor.dtype() != DType::String &&
                              tensor.byteSize() <= options_.omitDataAboveBytes && !(external_ && external_->wants(tensor));
        if (streamed) {  // what tensorToProto writes, but the data
            t->set_data_type(static_cast<int32_t>(tensor.dtype()));
            for (int64_t d : tensor.dims()) t->add_dims(d);
        } else {
            writeTensor(tensor, *t, true);
        }
        if (&g == streamedGraph_) rawData_->push_back(streamed ? &tensor : nullptr);
        t->set_name(g.value(v).name);
    }
    for (const std::string& sparse : g.sparseInitializers)
        out.add_sparse_initializer()->ParseFromString(sparse);
    for (NodeId id : g.topologicalOrder()) exportNode(g, g.node(id), *out.add_node());
    for (ValueId v : g.outputs()) {
        auto* info = out.add_output();
        valueToValueInfo(g.value(v), *info);
        info->set_name(nameOf(g, v));
    }
    for (ValueId v : g.valueIds()) {
        const Value& value = g.value(v);
        if (g.isGraphInput(v) || g.isGraphOutput(v) || value.initializer || value.outerScope ||
            value.sparseInitializer || value.producer() == kNoId)
            continue;
        const bool known = value.dtype != DType::Undefined || !value.opaqueType.empty();
        if (value.declaredInFile || (options_.writeInferredShapes && known)) {
            auto* info = out.add_value_info();
            valueToValueInfo(value, *info);
            info->set_name(nameOf(g, v));
        }
    }
}

void GraphExporter::exportNode(const Graph& g, const Node& n, onnx::NodeProto& out) {
    out.set_op_type(n.opType);
    if (!n.name.empty()) out.set_name(n.name);
    if (!n.domain.empty()) out.set_domain(n.domain);
    if (!n.docString.empty()) out.set_doc_string(n.docString);
    for (ValueId v : n.inputs()) out.add_input(nameOf(g, v));
    for (ValueId v : n.outputs()) out.add_output(nameOf(g, v));
    for (const auto& [name, attribute] : n.attributes) {
        auto* a = out.add_attribute();
        a->set_name(name);
        exportAttribute(attribute, *a);
    }
}

void GraphExporter::exportAttribute(const Attribute& attr, onnx::AttributeProto& out) {
    using A = onnx::AttributeProto;
    if (!attr.refAttrName.empty()) out.set_ref_attr_name(attr.refAttrName);
    if (!attr.docString.empty()) out.set_doc_string(attr.docString);
    switch (attr.kind()) {
    case AttributeKind::Float: out.set_type(A::FLOAT); out.set_f(attr.get<float>()); break;
    case AttributeKind::Int: out.set_type(A::INT); out.set_i(attr.get<int64_t>()); break;
    case AttributeKind::String: out.set_type(A::STRING); out.set_s(attr.get<std::string>()); break;
    case AttributeKind::Tensor: out.set_type(A::TENSOR); writeTensor(attr.get<Tensor>(), *out.mutable_t(), false); break;
    case AttributeKind::Graph: out.set_type(A::GRAPH); exportGraph(*attr.get<GraphPtr>(), *out.mutable_g()); break;
    case AttributeKind::SparseTensor:
        out.set_type(A::SPARSE_TENSOR);
        out.mutable_sparse_tensor()->ParseFromString(attr.get<SparseTensorBytes>().serialized);
        break;
    case AttributeKind::TypeProto:
        out.set_type(A::TYPE_PROTO);
        out.mutable_tp()->ParseFromString(attr.get<TypeProtoBytes>().serialized);
        break;
    case AttributeKind::Floats:
        out.set_type(A::FLOATS);
        for (float f : attr.get<std::vector<float>>()) out.add_floats(f);
        break;
    case AttributeKind::Ints:
        out.set_type(A::INTS);
        for (int64_t i : attr.get<std::vector<int64_t>>()) out.add_ints(i);
        break;
    case AttributeKind::Strings:
        out.set_type(A::STRINGS);
        for (const auto& s : attr.get<std::vector<std::string>>()) out.add_strings(s);
        break;
    case AttributeKind::Tensors:
        out.set_type(A::TENSORS);
        for (const auto& t : attr.get<std::vector<Tensor>>()) writeTensor(t, *out.add_tensors(), false);
        break;
    case AttributeKind::Graphs:
        out.set_type(A::GRAPHS);
        for (const auto& sub : attr.get<std::vector<GraphPtr>>()) exportGraph(*sub, *out.add_graphs());
        break;
    case AttributeKind::SparseTensors:
        out.set_type(A::SPARSE_TENSORS);
        for (const auto& s : attr.get<std::vector<SparseTensorBytes>>())
            out.add_sparse_tensors()->ParseFromString(s.serialized);
        break;
    case AttributeKind::TypeProtos:
        out.set_type(A::TYPE_PROTOS);
        for (const auto& t : attr.get<std::vector<TypeProtoBytes>>())
            out.add_type_protos()->ParseFromString(t.serialized);
        break;
    }
}

void fillModelFields(const Model& model, onnx::ModelProto& proto) {
    proto.set_ir_version(model.irVersion);
    for (const OpsetImport& o : model.opsets) {
        auto* op = proto.add_opset_import();
        op->set_domain(o.domain);
        op->set_version(o.version);
    }
    if (!model.producerName.empty()) proto.set_producer_name(model.producerName);
    if (!model.producerVersion.empty()) proto.set_producer_version(model.producerVersion);
    if (!model.domain.empty()) proto.set_domain(model.domain);
    if (model.modelVersion) proto.set_model_version(model.modelVersion);
    if (!model.docString.empty()) proto.set_doc_string(model.docString);
    for (const auto& [key, value] : model.metadata) {
        auto* p = proto.add_metadata_props();
        p->set_key(key);
        p->set_value(value);
    }
    if (!model.opaqueFields.empty()) {
        onnx::ModelProto opaque;
        opaque.ParseFromString(model.opaqueFields);
        *proto.mutable_functions() = opaque.functions();
        *proto.mutable_training_info() = opaque.training_info();
    }
}

void buildProto(const Model& model, onnx::ModelProto& proto, const SaveOptions& options,
                ExternalDataWriter* external, std::vector<const Tensor*>* rawData = nullptr) {
    fillModelFields(model, proto);
    GraphExporter exporter(options, external);
    if (rawData) exporter.streamRawData(&model.graph, rawData);
    try {
        exporter.exportGraph(model.graph, *proto.mutable_graph());
    } catch (const GraphError& e) {
        throw OnnxError(std::string("cannot export the model: ") + e.what());
    }
}

bool wantsExternalData(const Model& model, const SaveOptions& options) {
    if (options.externalData != SaveOptions::ExternalData::Auto)
        return options.externalData == SaveOptions::ExternalData::Always;
    uint64_t total = 0;
    for (ValueId v : model.graph.initializers()) {
        const Tensor& t = *model.graph.value(v).initializer;
        if (t.externalOrigin()) return true;
        total += t.byteSize();
    }
    return total > kProtobufLimit;
}

} // namespace

void modelToProto(const Model& model, onnx::ModelProto& proto, const SaveOptions& options) {
    buildProto(model, proto, options, nullptr);
}

std::string serializeModel(const Model& model, const SaveOptions& options) {
    onnx::ModelProto proto;
    modelToProto(model, proto, options);
    if (proto.ByteSizeLong() > kProtobufLimit)
        throw OnnxError("the model is over 2 GiB and must be saved with external data");
    return proto.SerializeAsString();
}

void saveModel(const Model& model, const fs::path& path, const SaveOptions& options) {
    if (path.empty()) throw OnnxError("no output file was given");
    onnx::ModelProto proto;  // not on an arena: its cleanup of the strings cost more than freeing them
    std::optional<AtomicFile> dataFile;
    std::optional<ExternalDataWriter> external;
    if (wantsExternalData(model, options)) {
        const std::string location = path.stem().string() + ".data";
        dataFile.emplace(path.parent_path() / location);
        external.emplace(*dataFile, location, options.externalThresholdBytes);
    }
    std::vector<const Tensor*> rawData;
    buildProto(model, proto, options, external ? &*external : nullptr, &rawData);
    const RawDataModelWriter writer(proto, std::move(rawData));
    if (writer.byteSize() > kProtobufLimit)
        throw OnnxError("the model is over 2 GiB even with external data, which ONNX cannot store");
    AtomicFile modelFile(path);
    writer.write(modelFile);
    if (dataFile) dataFile->commit(options.waitForDisk);
    modelFile.commit(options.waitForDisk);
}

} // namespace graphlens
