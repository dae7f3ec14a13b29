// Just enough of the protobuf wire format to walk a serialized message field by field without
// parsing it: tags, varints, lengths. Used to keep tensors' raw data out of protobuf's strings
// when a model is read (raw_data_split.cpp) and written (raw_data_writer.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace graphlens::wire {

constexpr int kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5;

struct Field {
    uint32_t number = 0;
    int wireType = 0;
    size_t start = 0;    ///< the tag's first byte
    size_t payload = 0;  ///< a length-delimited field's first payload byte
    size_t end = 0;      ///< one past the field
};

/// A field's header, decoded from the bytes it starts with: its number and wire type, how many
/// bytes the header takes (for a varint field, its value too) and how many payload bytes follow.
struct Header {
    uint32_t number = 0;
    int wireType = 0;
    size_t size = 0;
    uint64_t length = 0;
};

/// The header `head` starts with; nullopt when it is no plain field's (a group, a varint running
/// past the end of `head`).
inline std::optional<Header> readHeader(std::span<const std::byte> head) {
    size_t at = 0;
    const auto varint = [&]() -> std::optional<uint64_t> {
        uint64_t value = 0;
        for (int shift = 0; shift < 64 && at < head.size(); shift += 7) {
            const auto byte = uint8_t(head[at++]);
            value |= uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80)) return value;
        }
        return std::nullopt;
    };
    const auto tag = varint();
    if (!tag || (*tag >> 3) == 0 || (*tag >> 3) > UINT32_MAX) return std::nullopt;
    Header h;
    h.number = uint32_t(*tag >> 3);
    h.wireType = int(*tag & 7);
    switch (h.wireType) {
    case kVarint:
        if (!varint()) return std::nullopt;
        break;
    case kFixed64: h.length = 8; break;
    case kFixed32: h.length = 4; break;
    case kLengthDelimited: {
        const auto n = varint();
        if (!n) return std::nullopt;
        h.length = *n;
        break;
    }
    default: return std::nullopt;  // groups (deprecated) or garbage
    }
    h.size = at;
    return h;
}

/// Reads the fields of one serialized message in order.
class Reader {
public:
    explicit Reader(std::span<const std::byte> bytes) : bytes_(bytes) {}
    bool atEnd() const { return pos_ == bytes_.size(); }

    /// The next field, or nullopt when the bytes are not a plain message (groups, a varint or a
    /// length running past the end).
    std::optional<Field> next() {
        const auto h = readHeader(bytes_.subspan(pos_));
        if (!h || h->length > bytes_.size() - pos_ - h->size) return std::nullopt;
        Field f;
        f.number = h->number;
        f.wireType = h->wireType;
        f.start = pos_;
        if (h->wireType == kLengthDelimited) f.payload = pos_ + h->size;
        f.end = pos_ + h->size + size_t(h->length);
        pos_ = f.end;
        return f;
    }

private:
    std::span<const std::byte> bytes_;
    size_t pos_ = 0;
};

inline void appendVarint(std::string& out, uint64_t value) {
    while (value >= 0x80) {
        out.push_back(char(uint8_t(value) | 0x80));
        value >>= 7;
    }
    out.push_back(char(value));
}

inline size_t varintSize(uint64_t value) {
    size_t n = 1;
    while (value >= 0x80) {
        value >>= 7;
        ++n;
    }
    return n;
}

/// The tag and length that open a length-delimited field of `payloadSize` bytes.
inline void appendHeader(std::string& out, uint32_t number, uint64_t payloadSize) {
    appendVarint(out, (uint64_t(number) << 3) | kLengthDelimited);
    appendVarint(out, payloadSize);
}

inline size_t headerSize(uint32_t number, uint64_t payloadSize) {
    return varintSize((uint64_t(number) << 3) | kLengthDelimited) + varintSize(payloadSize);
}

inline std::span<const std::byte> bytesOf(const std::string& s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

/// Where a message serialized in field-number order (as protobuf writes) splits into the fields
/// numbered below `number` and those above; nullopt when the bytes are not a plain message.
inline std::optional<size_t> splitBefore(std::span<const std::byte> message, uint32_t number) {
    Reader reader(message);
    while (!reader.atEnd()) {
        const auto f = reader.next();
        if (!f) return std::nullopt;
        if (f->number >= number) return f->start;
    }
    return message.size();
}

} // namespace graphlens::wire
