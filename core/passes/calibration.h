// Input sets for calibrating quantization (quantize-int8): ONNX TensorProto files in the layout
// of the ONNX backend test data (DIR/test_data_set_N/input_K.pb, or DIR/input_K.pb for one set),
// or seeded random inputs.
#pragma once

#include "core/graph/graph.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace graphlens {

using InputSet = std::map<std::string, Tensor>;

/// The graph inputs a caller must feed (inputs without an initializer default).
std::vector<ValueId> fedInputs(const Graph& graph);

/// Reads every input set of `dir`: its test_data_set_N folders in the order of N, or the
/// input_K.pb files of `dir` itself as one set. File K feeds the model's input K, or the input
/// its TensorProto names. Throws std::runtime_error with one sentence naming the folder or the
/// file when the layout does not fit, a file cannot be read, or a tensor does not match its
/// input's type or shape.
std::vector<InputSet> readCalibrationSets(const std::filesystem::path& dir, const Graph& graph);

/// `count` input sets of seeded standard-normal floats (int64 and int32 in [0, 10), as `graphlens
/// run` makes token ids; other types zero); a symbolic or unknown dimension is 1. Throws std::runtime_error when an input's rank is unknown.
std::vector<InputSet> randomCalibrationSets(const Graph& graph, int count, uint64_t seed);

} // namespace graphlens
