// Splitting an ONNX file's bytes before protobuf parses them: the raw data of the main graph's
// large initializers is not parsed (the loader reads it straight to its place), while protobuf
// parses only the rest (nodes, names, shapes, small tensors). Parsing the whole file would copy
// every weight into a string of its own first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace graphlens {

/// Where the split reads a model's bytes: a buffer in memory, or a file read with pread. (Touching
/// the pages of a mapped file costs a fault and, in a virtual machine with shadow paging, a
/// shadow page-table fill each: about 100 us apiece on the machines measured, 40 ms for the 400
/// initializers of a 200 MB transformer, whose headers lie a page or more apart.)
class ModelBytes {
public:
    virtual ~ModelBytes() = default;
    virtual uint64_t size() const = 0;
    /// The `n` bytes at `offset` (inside size()), valid until the next call; throws OnnxError
    /// when they cannot be read.
    virtual std::span<const std::byte> bytes(uint64_t offset, size_t n) = 0;
};

/// Where a lifted raw data lies in the model's bytes; `size` 0 where nothing was lifted.
struct LiftedRange {
    uint64_t offset = 0;
    size_t size = 0;
};

struct SplitModelBytes {
    /// The ModelProto to parse: the same fields, except that the raw_data of each lifted
    /// initializer holds 8 zero bytes (which is what ONNX shape inference would read of it; it
    /// reads values only from tensors of a shape's size, such as Reshape's shape or Slice's starts).
    std::string structure;
    /// By initializer index (in file order): where its raw data lies in the model's bytes, or an
    /// empty range where it stayed in `structure` (smaller than the threshold, or no raw data).
    std::vector<LiftedRange> lifted;
};

/// Cuts out the raw_data of every main-graph initializer holding at least `minBytes` bytes,
/// reading only the fields around them. nullopt when the bytes do not have the plain layout this
/// expects (groups, a second graph field, a length past the end): the caller then parses them
/// whole, and protobuf says what is wrong.
std::optional<SplitModelBytes> splitRawData(ModelBytes& file, size_t minBytes);

} // namespace graphlens
