// The protobuf wire format, read just deep enough to find ModelProto.graph (field 7),
// GraphProto.initializer (5) and TensorProto.raw_data (9); every other field is copied as it is.
#include "core/onnx/raw_data_split.h"

#include "core/onnx/wire_format.h"

#include <cstdint>

namespace graphlens {
namespace {

using wire::Field;
using wire::kLengthDelimited;

constexpr uint32_t kModelGraph = 7, kGraphInitializer = 5, kTensorRawData = 9;

void appendBytes(std::string& out, std::span<const std::byte> bytes) {
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

/// `tag` (length-delimited) + length + `payload`.
void appendMessage(std::string& out, uint32_t number, const std::string& payload) {
    wire::appendHeader(out, number, payload.size());
    out += payload;
}

/// What a lifted raw_data becomes in the parsed message: not empty, since the ONNX checker counts
/// an empty raw_data as no data, and a whole number of elements of every type.
constexpr size_t kPlaceholderBytes = 8;

/// A TensorProto without its raw_data when that holds at least `minBytes` (a placeholder takes
/// the last one's place); `lifted` gets those bytes. nullopt: not a plain message.
std::optional<std::string> splitTensor(std::span<const std::byte> tensor, size_t minBytes,
                                       std::span<const std::byte>& lifted) {
    std::optional<Field> raw;
    for (wire::Reader reader(tensor); !reader.atEnd();) {
        const auto f = reader.next();
        if (!f) return std::nullopt;
        if (f->number == kTensorRawData && f->wireType == kLengthDelimited) raw = f;
    }
    std::string out;
    if (!raw || raw->end - raw->payload < minBytes) {
        appendBytes(out, tensor);
        return out;
    }
    lifted = tensor.subspan(raw->payload, raw->end - raw->payload);
    for (wire::Reader reader(tensor); !reader.atEnd();) {
        const Field f = *reader.next();
        if (f.number != kTensorRawData || f.wireType != kLengthDelimited)
            appendBytes(out, tensor.subspan(f.start, f.end - f.start));
        else if (f.start == raw->start)
            appendMessage(out, kTensorRawData, std::string(kPlaceholderBytes, '\0'));
    }
    return out;
}

std::optional<std::string> splitGraph(std::span<const std::byte> graph, size_t minBytes,
                                      std::vector<std::span<const std::byte>>& lifted) {
    std::string out;
    for (wire::Reader reader(graph); !reader.atEnd();) {
        const auto f = reader.next();
        if (!f) return std::nullopt;
        if (f->number != kGraphInitializer || f->wireType != kLengthDelimited) {
            appendBytes(out, graph.subspan(f->start, f->end - f->start));
            continue;
        }
        std::span<const std::byte> raw;
        const auto tensor = splitTensor(graph.subspan(f->payload, f->end - f->payload), minBytes, raw);
        if (!tensor) return std::nullopt;
        lifted.push_back(raw);
        appendMessage(out, kGraphInitializer, *tensor);
    }
    return out;
}

} // namespace

std::optional<SplitModelBytes> splitRawData(std::span<const std::byte> file, size_t minBytes) {
    SplitModelBytes split;
    bool sawGraph = false;
    for (wire::Reader reader(file); !reader.atEnd();) {
        const auto f = reader.next();
        if (!f) return std::nullopt;
        if (f->number != kModelGraph) {
            appendBytes(split.structure, file.subspan(f->start, f->end - f->start));
            continue;
        }
        // Protobuf merges a repeated message field; one graph is all a model file has.
        if (f->wireType != kLengthDelimited || sawGraph) return std::nullopt;
        sawGraph = true;
        const auto graph = splitGraph(file.subspan(f->payload, f->end - f->payload), minBytes, split.lifted);
        if (!graph) return std::nullopt;
        appendMessage(split.structure, kModelGraph, *graph);
    }
    return split;
}

} // namespace graphlens
