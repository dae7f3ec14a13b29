// Writing a ModelProto whose main-graph initializers carry their raw data beside the message, as
// tensors, instead of inside it: the same bytes protobuf writes with the data inside, without
// first copying every weight into a string of the message.
#pragma once

#include "core/graph/tensor.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace graphlens {

class AtomicFile;

class RawDataModelWriter {
public:
    /// `rawData[i]`, when not null, is the raw_data of initializer i of `proto`'s graph, which
    /// holds none for it. `proto` is serialized in parts now and not kept.
    RawDataModelWriter(onnx::ModelProto& proto, std::vector<const Tensor*> rawData);

    /// The size of the serialized model.
    uint64_t byteSize() const { return size_; }
    /// Writes the model to `file`: protobuf's serialization of the model with the data inside.
    void write(AtomicFile& file) const;

private:
    struct Initializer {
        std::string head;    ///< its tag and length, and its fields before raw_data
        const Tensor* data;  ///< null: `head` is all of it
        std::string tail;    ///< its fields after raw_data
    };
    std::string modelHead_, graphHead_, graphTail_, modelTail_;  // around the graph and initializers
    std::vector<Initializer> initializers_;
    uint64_t size_ = 0;
};

} // namespace graphlens
