// Shared by the libFuzzer targets (fuzz_*.cpp): a structure-aware mutator of serialized ONNX
// models and the bounded feeds and options each target runs a mutated model with.
//
// Byte mutations of a protobuf mostly produce files the parser rejects; the mutator here parses
// the input as a ModelProto and changes one thing a hostile or broken exporter could: an integer
// or float attribute, a dimension of a graph input or initializer, the wiring (a node input taken
// from another value computed earlier), an op type (to a sibling with the same arity), a removed
// attribute or input, an element type, or the bytes of a weight. Inputs that do not parse fall back
// to libFuzzer's byte mutations, so the loader still sees arbitrary bytes.
#pragma once

#include "core/graph/model.h"
#include "core/graph/tensor.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>

namespace graphlens::fuzz {

/// Bounds every target runs under, so a mutated model that asks for gigabytes or hours is refused
/// the way the command line refuses it (a ResourceError) instead of being reported as an OOM or a
/// timeout of the fuzzer.
constexpr uint64_t kMaxPlanBytes = uint64_t(256) << 20;
constexpr uint64_t kMaxFeedBytes = uint64_t(4) << 20;
/// The size symbolic input dims take.
constexpr int64_t kSymbolicDim = 2;

using Rng = std::mt19937;

/// A uniform index below n (n > 0).
size_t pick(Rng& rng, size_t n);
/// Integers that break kernels written for the common case, or `current` nudged.
int64_t interestingInt(Rng& rng, int64_t current);
/// Zeros, signs, tiny, huge, infinite and NaN values.
float interestingFloat(Rng& rng);

/// Applies one structure-aware mutation to the serialized model in data[0, size) and writes the
/// result back (at most maxSize bytes). Returns the new size, or 0 when `data` does not parse as a
/// model or the result would not fit (the caller then mutates bytes instead).
size_t mutateModel(uint8_t* data, size_t size, size_t maxSize, unsigned seed);

/// The model `data` holds, or nothing when the loader refuses it (with an exception: the expected
/// answer to a broken file).
std::optional<Model> loadedModel(const uint8_t* data, size_t size);

/// Deterministic inputs for every graph input without an initializer (symbolic dims become
/// kSymbolicDim), or nothing when an input has no usable type or shape, or the inputs together
/// exceed kMaxFeedBytes.
std::optional<std::map<std::string, Tensor>> boundedFeeds(const Graph& graph);

/// Compiles `model` for the CPU under kMaxPlanBytes, once with the optimized kernels and once with
/// the reference kernels alone, and runs each on `feeds`; a refusal or failure with an exception
/// is the expected answer to a broken model.
void runBothKernelSets(const Model& model, const std::map<std::string, Tensor>& feeds);

/// The input shapes of `feeds`, for CompileOptions::inputShapes.
std::map<std::string, std::vector<int64_t>> shapesOf(const std::map<std::string, Tensor>& feeds);

} // namespace graphlens::fuzz

/// libFuzzer's own byte mutator (defined by the fuzzing runtime).
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

/// Every structure-aware target defines libFuzzer's custom mutator through this macro.
#define GRAPHLENS_MODEL_MUTATOR                                                                       \
    extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize, unsigned seed) { \
        if ((seed & 7) != 0) {                                                                         \
            if (const size_t n = graphlens::fuzz::mutateModel(data, size, maxSize, seed)) return n;   \
        }                                                                                              \
        return LLVMFuzzerMutate(data, size, maxSize);                                                  \
    }
