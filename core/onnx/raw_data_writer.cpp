// Protobuf writes a message's fields in field-number order, so the model serializes as: its
// fields before graph (7), the graph's tag and length, the graph's fields before initializer (5),
// each initializer (its fields before raw_data (9), raw_data, the rest), the graph's fields after
// initializer, the model's after graph. Each part but the raw data is serialized by protobuf.
#include "core/onnx/raw_data_writer.h"

#include "core/onnx/atomic_file.h"
#include "core/onnx/onnx_error.h"
#include "core/onnx/wire_format.h"

namespace graphlens {
namespace {

constexpr uint32_t kModelGraph = 7, kGraphInitializer = 5, kTensorRawData = 9;

/// `bytes` cut before its first field numbered `number` or higher: {before, from there on}.
std::pair<std::string, std::string> cutBefore(const std::string& bytes, uint32_t number) {
    const auto at = wire::splitBefore(wire::bytesOf(bytes), number);
    if (!at) throw OnnxError("cannot export the model: protobuf wrote a message this writer cannot read");
    return {bytes.substr(0, *at), bytes.substr(*at)};
}

} // namespace

RawDataModelWriter::RawDataModelWriter(onnx::ModelProto& proto, std::vector<const Tensor*> rawData) {
    onnx::GraphProto* graph = proto.mutable_graph();
    google::protobuf::RepeatedPtrField<onnx::TensorProto> initializers;  // out of the graph while it is serialized
    graph->mutable_initializer()->Swap(&initializers);
    const std::string graphBytes = graph->SerializeAsString();
    graph = proto.release_graph();
    const std::string modelBytes = proto.SerializeAsString();
    proto.set_allocated_graph(graph);

    uint64_t graphSize = graphBytes.size();
    for (int i = 0; i < initializers.size(); ++i) {
        const Tensor* data = size_t(i) < rawData.size() ? rawData[size_t(i)] : nullptr;
        const std::string tensor = initializers.Get(i).SerializeAsString();
        Initializer part{{}, data, {}};
        uint64_t tensorSize = tensor.size();
        if (data) {
            auto [before, after] = cutBefore(tensor, kTensorRawData + 1);
            tensorSize += wire::headerSize(kTensorRawData, data->byteSize()) + data->byteSize();
            wire::appendHeader(part.head, kGraphInitializer, tensorSize);
            part.head += before;
            wire::appendHeader(part.head, kTensorRawData, data->byteSize());
            part.tail = std::move(after);
        } else {
            wire::appendHeader(part.head, kGraphInitializer, tensorSize);
            part.head += tensor;
        }
        graphSize += wire::headerSize(kGraphInitializer, tensorSize) + tensorSize;
        initializers_.push_back(std::move(part));
    }
    graph->mutable_initializer()->Swap(&initializers);
    std::tie(graphHead_, graphTail_) = cutBefore(graphBytes, kGraphInitializer + 1);
    std::tie(modelHead_, modelTail_) = cutBefore(modelBytes, kModelGraph + 1);
    wire::appendHeader(modelHead_, kModelGraph, graphSize);
    size_ = modelHead_.size() + graphSize + modelTail_.size();
}

void RawDataModelWriter::write(AtomicFile& file) const {
    constexpr size_t kDirect = size_t(64) << 10;  // smaller raw data joins the buffered parts
    std::string pending = modelHead_ + graphHead_;
    for (const Initializer& part : initializers_) {
        pending += part.head;
        if (part.data && part.data->byteSize() >= kDirect) {
            file.write(pending.data(), pending.size());
            pending.clear();
            file.write(part.data->data(), part.data->byteSize());
        } else if (part.data) {
            pending.append(reinterpret_cast<const char*>(part.data->data()), part.data->byteSize());
        }
        pending += part.tail;
    }
    pending += graphTail_;
    pending += modelTail_;
    file.write(pending.data(), pending.size());
}

} // namespace graphlens
