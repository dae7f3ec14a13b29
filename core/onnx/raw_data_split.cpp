// The protobuf wire format, read just deep enough to find ModelProto.graph (field 7),
// GraphProto.initializer (5) and TensorProto.raw_data (9); every other field is copied as it is.
// Fields are found by their headers alone, so a raw data that is lifted is never read here.
#include "core/onnx/raw_data_split.h"

#include "core/onnx/wire_format.h"

namespace graphlens {
namespace {

using wire::kLengthDelimited;

constexpr uint32_t kModelGraph = 7, kGraphInitializer = 5, kTensorRawData = 9;
/// A tag (at most 5 bytes) and a varint (at most 10): all of a field's header.
constexpr size_t kMaxHeaderBytes = 15;

/// A field found by its header: offsets in the model's bytes.
struct Field {
    uint32_t number = 0;
    int wireType = 0;
    uint64_t start = 0;    ///< the tag's first byte
    uint64_t payload = 0;  ///< a length-delimited field's first payload byte
    uint64_t end = 0;      ///< one past the field
};

/// The fields of the message in [begin, end) of `file`, in order.
class FieldReader {
public:
    FieldReader(ModelBytes& file, uint64_t begin, uint64_t end) : file_(file), pos_(begin), end_(end) {}
    bool atEnd() const { return pos_ == end_; }

    /// The next field, or nullopt when the bytes are not a plain message (groups, a varint or a
    /// length running past the end).
    std::optional<Field> next() {
        const auto h = wire::readHeader(file_.bytes(pos_, size_t(std::min<uint64_t>(kMaxHeaderBytes, end_ - pos_))));
        if (!h) return std::nullopt;
        Field f;
        f.number = h->number;
        f.wireType = h->wireType;
        f.start = pos_;
        f.payload = pos_ + h->size;
        if (h->length > end_ - f.payload) return std::nullopt;
        f.end = f.payload + h->length;
        pos_ = f.end;
        return f;
    }

private:
    ModelBytes& file_;
    uint64_t pos_, end_;
};

void appendField(std::string& out, ModelBytes& file, const Field& f) {
    const auto bytes = file.bytes(f.start, size_t(f.end - f.start));
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

/// The TensorProto `tensor` without its raw_data when that holds at least `minBytes` (a
/// placeholder takes the last one's place); `lifted` gets where those bytes lie. nullopt: not a
/// plain message.
std::optional<std::string> splitTensor(ModelBytes& file, const Field& tensor, size_t minBytes, LiftedRange& lifted) {
    std::optional<Field> raw;
    for (FieldReader reader(file, tensor.payload, tensor.end); !reader.atEnd();) {
        const auto f = reader.next();
        if (!f) return std::nullopt;
        if (f->number == kTensorRawData && f->wireType == kLengthDelimited) raw = f;
    }
    std::string out;
    if (!raw || raw->end - raw->payload < minBytes) {
        const auto bytes = file.bytes(tensor.payload, size_t(tensor.end - tensor.payload));
        out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        return out;
    }
    lifted = {raw->payload, size_t(raw->end - raw->payload)};
    for (FieldReader reader(file, tensor.payload, tensor.end); !reader.atEnd();) {
        const Field f = *reader.next();
        if (f.number != kTensorRawData || f.wireType != kLengthDelimited)
            appendField(out, file, f);
        else if (f.start == raw->start)
            appendMessage(out, kTensorRawData, std::string(kPlaceholderBytes, '\0'));
    }
    return out;
}

std::optional<std::string> splitGraph(ModelBytes& file, const Field& graph, size_t minBytes,
                                      std::vector<LiftedRange>& lifted) {
    std::string out;
    for (FieldReader reader(file, graph.payload, graph.end); !reader.atEnd();) {
        const auto f = reader.next();
        if (!f) return std::nullopt;
        if (f->number != kGraphInitializer || f->wireType != kLengthDelimited) {
            appendField(out, file, *f);
            continue;
        }
        LiftedRange raw;
        const auto tensor = splitTensor(file, *f, minBytes, raw);
        if (!tensor) return std::nullopt;
        lifted.push_back(raw);
        appendMessage(out, kGraphInitializer, *tensor);
    }
    return out;
}

} // namespace

std::optional<SplitModelBytes> splitRawData(ModelBytes& file, size_t minBytes) {
    SplitModelBytes split;
    bool sawGraph = false;
    for (FieldReader reader(file, 0, file.size()); !reader.atEnd();) {
        const auto f = reader.next();
        if (!f) return std::nullopt;
        if (f->number != kModelGraph) {
            appendField(split.structure, file, *f);
            continue;
        }
        // Protobuf merges a repeated message field; one graph is all a model file has.
        if (f->wireType != kLengthDelimited || sawGraph) return std::nullopt;
        sawGraph = true;
        const auto graph = splitGraph(file, *f, minBytes, split.lifted);
        if (!graph) return std::nullopt;
        appendMessage(split.structure, kModelGraph, *graph);
    }
    return split;
}

} // namespace graphlens
