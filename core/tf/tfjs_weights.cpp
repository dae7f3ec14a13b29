// Reading TF.js weight shards: path containment, sizes checked before any byte is read.
#include "core/tf/tfjs_weights.h"

#include "core/graph/shape.h"
#include "core/onnx/external_data.h"
#include "core/tf/tf_error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

namespace graphlens::tf {
namespace {

namespace fs = std::filesystem;

/// `relative` resolved inside `dir`; throws when it names a place outside it.
fs::path confined(const fs::path& dir, const std::string& relative, const std::string& fileLabel) {
    const auto target = pathInsideFolder(dir, relative);
    if (!target)
        throw TfImportError("the weight shard path '" + relative + "' in " + fileLabel +
                            " points outside the model's folder");
    return *target;
}

std::string readShards(const TfjsWeightGroup& group, const fs::path& dir, const std::string& fileLabel) {
    std::string bytes;
    for (const std::string& relative : group.paths()) {
        const fs::path path = confined(dir, relative, fileLabel);
        std::ifstream in(path, std::ios::binary);
        if (!fs::is_regular_file(path) || !in)
            throw TfImportError("the weight shard '" + relative + "' of " + fileLabel +
                                " does not exist in the model's folder");
        bytes.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return bytes;
}

/// The IR type and byte size of one stored element of a TF.js dtype name; 0 bytes when unknown.
std::pair<DType, size_t> storedType(const std::string& name) {
    if (name == "float32") return {DType::Float, 4};
    if (name == "int32") return {DType::Int32, 4};
    if (name == "bool") return {DType::Bool, 1};
    if (name == "uint8") return {DType::UInt8, 1};
    if (name == "uint16") return {DType::UInt16, 2};
    if (name == "float16") return {DType::Float16, 2};
    if (name == "complex64") return {DType::Complex64, 8};
    return {DType::Undefined, 0};
}

/// Decodes a quantized weight: value = q * scale + min (uint8, uint16), or float16 widened.
Tensor dequantize(const TfjsWeight& w, std::vector<int64_t> dims, const char* data, int64_t count,
                  const std::string& label) {
    const std::string& q = w.quantization().dtype();
    const std::string original = w.quantization().original_dtype().empty() ? w.dtype() : w.quantization().original_dtype();
    std::vector<double> values(static_cast<size_t>(count));
    if (q == "float16") {
        for (int64_t i = 0; i < count; ++i) {
            uint16_t bits;
            std::memcpy(&bits, data + 2 * i, 2);
            values[size_t(i)] = halfToFloat(bits);
        }
    } else {
        const double scale = w.quantization().scale(), min = w.quantization().min();
        for (int64_t i = 0; i < count; ++i) {
            const double stored = q == "uint8" ? double(uint8_t(data[i]))
                                               : double(uint16_t(uint8_t(data[2 * i]) | uint8_t(data[2 * i + 1]) << 8));
            values[size_t(i)] = double(float(stored * scale + min));
        }
    }
    if (original == "int32") {
        std::vector<int32_t> ints(values.size());
        for (size_t i = 0; i < values.size(); ++i) ints[i] = int32_t(std::trunc(values[i]));
        return Tensor::fromVector(DType::Int32, std::move(dims), ints);
    }
    if (original != "float32")
        throw TfImportError(label + " is quantized from the type '" + original + "', which GraphLens cannot decode");
    std::vector<float> floats(values.begin(), values.end());
    return Tensor::fromVector(DType::Float, std::move(dims), floats);
}

/// TF.js strings: each one a little-endian uint32 byte count and the bytes.
Tensor readStrings(std::vector<int64_t> dims, const std::string& bytes, size_t& offset, int64_t count,
                   const std::string& label) {
    std::vector<std::string> values;
    for (int64_t i = 0; i < count; ++i) {
        uint32_t length = 0;
        if (bytes.size() - offset < 4) throw TfImportError(label + " runs past the end of its weight shards");
        std::memcpy(&length, bytes.data() + offset, 4);
        offset += 4;
        if (bytes.size() - offset < length) throw TfImportError(label + " runs past the end of its weight shards");
        values.push_back(bytes.substr(offset, length));
        offset += length;
    }
    return Tensor::fromStrings(std::move(dims), std::move(values));
}

} // namespace

std::unordered_map<std::string, Tensor> readTfjsWeights(
    const google::protobuf::RepeatedPtrField<TfjsWeightGroup>& manifest, const fs::path& modelDir,
    const std::string& fileLabel) {
    std::unordered_map<std::string, Tensor> weights;
    for (const TfjsWeightGroup& group : manifest) {
        const std::string bytes = readShards(group, modelDir, fileLabel);
        size_t offset = 0;
        for (const TfjsWeight& w : group.weights()) {
            const std::string label = "the weight '" + w.name() + "' of " + fileLabel;
            std::vector<int64_t> dims(w.shape().begin(), w.shape().end());
            const auto count = checkedElementCount(dims);
            if (!count) throw TfImportError(label + " has a negative or overflowing shape");
            if (w.dtype() == "string") {
                weights[w.name()] = readStrings(std::move(dims), bytes, offset, *count, label);
                continue;
            }
            const bool quantized = !w.quantization().dtype().empty();
            const std::string stored = quantized ? w.quantization().dtype() : w.dtype();
            const auto [type, elementBytes] = storedType(stored);
            if (elementBytes == 0 || (quantized && type != DType::UInt8 && type != DType::UInt16 && type != DType::Float16))
                throw TfImportError(label + " has the unknown dtype '" + stored + "'");
            const uint64_t size = uint64_t(*count) * elementBytes;
            if (offset > bytes.size() || bytes.size() - offset < size)
                throw TfImportError(label + " needs " + std::to_string(size) + " bytes at offset " +
                                    std::to_string(offset) + " of its weight shards, which hold only " +
                                    std::to_string(bytes.size()) + " bytes");
            const char* data = bytes.data() + offset;
            offset += size;
            weights[w.name()] = quantized ? dequantize(w, std::move(dims), data, *count, label)
                                          : Tensor::fromBytes(type, std::move(dims), std::string(data, size));
        }
    }
    return weights;
}

} // namespace graphlens::tf
