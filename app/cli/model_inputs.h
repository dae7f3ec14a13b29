// Feeds for `run`, `bench` and `profile`: tensors from --input NAME=FILE.pb, the rest seeded random
// data of the right type and shape (symbolic dims from --dim NAME=VALUE).
#pragma once

#include "core/graph/model.h"
#include "core/runtime/backend.h"

#include <QCommandLineParser>
#include <QStringList>

#include <functional>
#include <map>
#include <string>

namespace graphlens::cli {

/// Builds feeds for every graph input without an initializer default. Throws std::runtime_error
/// with one sentence (unknown input name, unreadable file, symbolic dim without --dim), and
/// ResourceError before allocating random inputs larger than `maxMemory` bytes (0: the memory
/// available now).
/// `beforeAllocating`, when given, sees the shapes of every feed before random inputs of more
/// than 64 MB in all are allocated (and filled, which takes seconds per gigabyte).
using FeedShapes = std::map<std::string, std::vector<int64_t>>;
std::map<std::string, Tensor> makeFeeds(const Graph& graph, const QStringList& inputSpecs,
                                        const QStringList& dimSpecs, uint64_t seed, uint64_t maxMemory = 0,
                                        const std::function<void(const FeedShapes&)>& beforeAllocating = {});

/// The options of every command that runs a model: --backend, --input, --dim, --seed,
/// --threads, --reference, --max-memory.
void addRunOptions(QCommandLineParser& parser);

/// The --max-memory value in bytes (a number, optionally with K, M, G or T: powers of 1024);
/// 0 when not given. Throws std::runtime_error for a malformed value.
uint64_t maxMemoryFromOptions(const QCommandLineParser& parser);

/// Feeds from those options (see makeFeeds).
std::map<std::string, Tensor> feedsFromOptions(const Graph& graph, const QCommandLineParser& parser);
/// The same, and before allocating large random inputs, checks that a CPU plan of `model` for
/// them fits the memory (so a model with a 2^20 batch is refused in a second, not after filling
/// gigabytes of inputs).
std::map<std::string, Tensor> feedsFromOptions(const Model& model, const QCommandLineParser& parser);

/// Compile options from those options, for a plan shaped by `feeds`.
CompileOptions compileOptionsFor(const QCommandLineParser& parser, const std::map<std::string, Tensor>& feeds);

/// Seeded random values: floats uniform in [-1, 1), integers in [0, 10), bools fair.
Tensor randomTensor(DType dtype, const std::vector<int64_t>& dims, uint64_t seed);

} // namespace graphlens::cli
