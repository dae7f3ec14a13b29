// Splitting an ONNX file's bytes before protobuf parses them: the raw data of the main graph's
// large initializers stays where it is in the file buffer and tensors view it there, while
// protobuf parses only the rest (nodes, names, shapes, small tensors). Parsing the whole file
// would copy every weight into a string of its own first.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace graphlens {

struct SplitModelBytes {
    /// The ModelProto to parse: the same fields, except that the raw_data of each lifted
    /// initializer holds 8 zero bytes (which is what ONNX shape inference would read of it; it
    /// reads values only from tensors of a shape's size, such as Reshape's shape or Slice's starts).
    std::string structure;
    /// By initializer index (in file order): where its raw data lies in the file's bytes, or an
    /// empty span where it stayed in `structure` (smaller than the threshold, or no raw data).
    std::vector<std::span<const std::byte>> lifted;
};

/// Cuts out the raw_data of every main-graph initializer holding at least `minBytes` bytes.
/// nullopt when the bytes do not have the plain layout this expects (groups, a second graph
/// field, a length past the end): the caller then parses them whole, and protobuf says what is
/// wrong.
std::optional<SplitModelBytes> splitRawData(std::span<const std::byte> file, size_t minBytes);

} // namespace graphlens
