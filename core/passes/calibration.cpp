// Reading calibration input sets (calibration.h).
#include "core/passes/calibration.h"

#include "core/onnx/tensor_file.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>

namespace graphlens {
namespace fs = std::filesystem;

std::vector<ValueId> fedInputs(const Graph& graph) {
    std::vector<ValueId> fed;
    for (ValueId v : graph.inputs())
        if (!graph.value(v).initializer) fed.push_back(v);
    return fed;
}

namespace {

/// The number in a name like "test_data_set_12" after `prefix`, or -1.
int64_t numberAfter(const std::string& name, const std::string& prefix, const std::string& suffix = {}) {
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return -1;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return -1;
    return std::stoll(digits);
}

/// The files input_K.pb of `dir`, by K.
std::map<int64_t, fs::path> inputFiles(const fs::path& dir) {
    std::map<int64_t, fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (const int64_t k = numberAfter(entry.path().filename().string(), "input_", ".pb"); k >= 0) files[k] = entry.path();
    return files;
}

/// True when `got` fits the declared shape (static dims equal, symbolic ones anything).
bool fits(const Shape& declared, const std::vector<int64_t>& got) {
    if (!declared.rankKnown()) return true;
    if (declared.rank() != got.size()) return false;
    for (size_t i = 0; i < got.size(); ++i)
        if (declared[i].isStatic() && declared[i].size() != got[i]) return false;
    return true;
}

InputSet readSet(const fs::path& dir, const Graph& graph) {
    const std::vector<ValueId> inputs = fedInputs(graph);
    const std::map<int64_t, fs::path> files = inputFiles(dir);
    if (files.size() != inputs.size())
        throw std::runtime_error("calibration folder '" + dir.string() + "' holds " + std::to_string(files.size()) +
                                 " input_K.pb files but the model has " + std::to_string(inputs.size()) + " inputs");
    InputSet set;
    for (const auto& [k, path] : files) {
        std::string name;
        Tensor t;
        try {
            t = readTensorFile(path, &name);
        } catch (const std::exception& e) {
            throw std::runtime_error("calibration file '" + path.string() + "' is not a readable ONNX TensorProto: " + e.what());
        }
        // The input the file names, else the K-th input.
        const auto named = std::find_if(inputs.begin(), inputs.end(), [&](ValueId v) { return graph.value(v).name == name; });
        if (named == inputs.end() && k >= int64_t(inputs.size()))
            throw std::runtime_error("calibration file '" + path.string() + "' matches none of the model's " +
                                     std::to_string(inputs.size()) + " inputs (by name or by position)");
        const Value& input = graph.value(named != inputs.end() ? *named : inputs[size_t(k)]);
        if (t.dtype() != input.dtype || !fits(input.shape, t.dims()))
            throw std::runtime_error("calibration file '" + path.string() + "' does not match the model's input '" +
                                     input.name + "': it holds " + std::string(dtypeName(t.dtype())) + " " +
                                     Shape::ofSizes(t.dims()).toString() + ", the input is " +
                                     std::string(dtypeName(input.dtype)) + " " + input.shape.toString());
        if (set.count(input.name))
            throw std::runtime_error("calibration file '" + path.string() + "' feeds the model's input '" + input.name +
                                     "' a second time");
        set[input.name] = std::move(t);
    }
    return set;
}

} // namespace

std::vector<InputSet> readCalibrationSets(const fs::path& dir, const Graph& graph) {
    std::error_code error;
    if (!fs::is_directory(dir, error))
        throw std::runtime_error("calibration folder '" + dir.string() + "' is not a folder");
    std::map<int64_t, fs::path> sets;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.is_directory())
            if (const int64_t n = numberAfter(entry.path().filename().string(), "test_data_set_"); n >= 0) sets[n] = entry.path();
    std::vector<InputSet> out;
    if (sets.empty()) {
        if (inputFiles(dir).empty())
            throw std::runtime_error("calibration folder '" + dir.string() +
                                     "' holds neither test_data_set_N folders nor input_K.pb files");
        out.push_back(readSet(dir, graph));
        return out;
    }
    for (const auto& [n, path] : sets) out.push_back(readSet(path, graph));
    return out;
}

std::vector<InputSet> randomCalibrationSets(const Graph& graph, int count, uint64_t seed) {
    std::vector<InputSet> out;
    for (int s = 0; s < count; ++s) {
        std::mt19937_64 rng(seed + uint64_t(s));
        std::normal_distribution<float> normal(0.f, 1.f);
        InputSet set;
        for (ValueId v : fedInputs(graph)) {
            const Value& input = graph.value(v);
            if (!input.shape.rankKnown())
                throw std::runtime_error("the model's input '" + input.name + "' has no known rank to make random inputs for");
            std::vector<int64_t> dims;
            for (const Dim& d : input.shape.dims()) dims.push_back(d.isStatic() ? d.size() : 1);
            Tensor t = Tensor::allocate(input.dtype, dims);  // zeros
            std::uniform_int_distribution<int> small(0, 9);  // token ids and indices, as `graphlens run` makes them
            if (input.dtype == DType::Float)
                for (float& x : t.mutableSpan<float>()) x = normal(rng);
            else if (input.dtype == DType::Int64)
                for (int64_t& x : t.mutableSpan<int64_t>()) x = small(rng);
            else if (input.dtype == DType::Int32)
                for (int32_t& x : t.mutableSpan<int32_t>()) x = small(rng);
            set[input.name] = std::move(t);
        }
        out.push_back(std::move(set));
    }
    return out;
}

} // namespace graphlens
