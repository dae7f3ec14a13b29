// Input feeds from files and seeded random data.
#include "app/cli/model_inputs.h"

#include "core/onnx/tensor_file.h"
#include "core/runtime/backend.h"
#include "core/runtime/resource_limits.h"
#include "core/runtime/reference/ref_util.h"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace graphlens::cli {
namespace {

std::map<std::string, int64_t> parseDims(const QStringList& specs) {
    std::map<std::string, int64_t> dims;
    for (const QString& spec : specs) {
        const int eq = spec.indexOf('=');
        bool ok = false;
        const qint64 value = eq > 0 ? spec.mid(eq + 1).toLongLong(&ok) : 0;
        if (!ok || value < 0) throw std::runtime_error("--dim expects NAME=VALUE with VALUE >= 0, not '" + spec.toStdString() + "'");
        dims[spec.left(eq).toStdString()] = value;
    }
    return dims;
}

std::vector<int64_t> concreteDims(const Value& input, const std::map<std::string, int64_t>& dims) {
    if (!input.shape.rankKnown())
        throw std::runtime_error("the input '" + input.name + "' has no known shape; give it with --input " + input.name + "=FILE.pb");
    std::vector<int64_t> out;
    for (const Dim& d : input.shape.dims()) {
        if (d.isStatic()) out.push_back(d.size());
        else if (auto it = dims.find(d.symbol()); d.isSymbolic() && it != dims.end()) out.push_back(it->second);
        else throw std::runtime_error("the input '" + input.name + "' has the dimension '" + d.toString() +
                                      "'; give its size with --dim " + (d.isSymbolic() ? d.symbol() : "NAME") + "=N");
    }
    return out;
}

} // namespace

Tensor randomTensor(DType dtype, const std::vector<int64_t>& dims, uint64_t seed) {
    std::mt19937_64 rng(seed);
    if (dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Double)
        return ref::fromFloat(randomTensor(DType::Float, dims, seed), dtype);
    Tensor t = Tensor::allocate(dtype, dims);
    const int64_t n = t.numel();
    ref::visitNumeric(dtype, "random input", [&]<typename T>() {
        T* p = ref::mutableDataOf<T>(t);
        for (int64_t i = 0; i < n; ++i) {
            if constexpr (std::is_same_v<T, bool>) p[i] = rng() & 1;
            else if constexpr (std::is_floating_point_v<T>) p[i] = T(std::uniform_real_distribution<double>(-1, 1)(rng));
            else p[i] = T(rng() % 10);
        }
    });
    return t;
}

std::map<std::string, Tensor> makeFeeds(const Graph& graph, const QStringList& inputSpecs,
                                        const QStringList& dimSpecs, uint64_t seed, uint64_t maxMemory,
                                        const std::function<void(const FeedShapes&)>& beforeAllocating) {
    std::map<std::string, Tensor> feeds;
    for (const QString& spec : inputSpecs) {
        const int eq = spec.indexOf('=');
        if (eq <= 0) throw std::runtime_error("--input expects NAME=FILE.pb, not '" + spec.toStdString() + "'");
        const std::string name = spec.left(eq).toStdString();
        const auto v = graph.findValue(name);
        if (!v || !graph.isGraphInput(*v)) throw std::runtime_error("the model has no input named '" + name + "'");
        feeds[name] = readValueFile(spec.mid(eq + 1).toStdString(), graph.value(*v).opaqueType);
    }
    const auto dims = parseDims(dimSpecs);
    // The sizes of the random inputs first, so inputs too large for the memory are refused
    // before any is allocated.
    std::vector<std::pair<ValueId, std::vector<int64_t>>> random;
    uint64_t total = 0;
    for (ValueId v : graph.inputs()) {
        const Value& input = graph.value(v);
        if (feeds.count(input.name) || input.initializer) continue;
        if (input.dtype == DType::Undefined || input.dtype == DType::String)
            throw std::runtime_error("the input '" + input.name + "' needs a file: --input " + input.name + "=FILE.pb");
        std::vector<int64_t> shape = concreteDims(input, dims);
        const auto bytes = checkedTensorBytes(input.dtype, shape);
        if (!bytes)
            throw ResourceError("the input '" + input.name + "' of shape " + Shape::ofSizes(shape).toString() +
                                " has more bytes than 64 bits can count");
        total = saturatingAdd(total, *bytes);
        random.emplace_back(v, std::move(shape));
    }
    if (const MemoryBudget budget = MemoryBudget::of(maxMemory); total > budget.bytes)
        throw ResourceError("the random inputs need " + formatBytes(total) + " but " + budget.describe());
    if (beforeAllocating && total > (uint64_t(64) << 20)) {
        FeedShapes shapes;
        for (const auto& [name, tensor] : feeds) shapes[name] = tensor.dims();
        for (const auto& [v, shape] : random) shapes[graph.value(v).name] = shape;
        beforeAllocating(shapes);
    }
    for (const auto& [v, shape] : random) {
        const uint64_t index = uint64_t(std::find(graph.inputs().begin(), graph.inputs().end(), v) - graph.inputs().begin()) + 1;
        feeds[graph.value(v).name] = randomTensor(graph.value(v).dtype, shape, seed * 1000003u + index);
    }
    return feeds;
}

void addRunOptions(QCommandLineParser& parser) {
    parser.addOption({"backend", "cpu or vulkan (default cpu)", "BACKEND", "cpu"});
    parser.addOption({"input", "feed input NAME from an ONNX TensorProto file", "NAME=FILE.pb"});
    parser.addOption({"dim", "size of a symbolic dimension", "NAME=VALUE"});
    parser.addOption({"seed", "seed of the random inputs", "N", "0"});
    parser.addOption({"threads", "CPU threads (default: all cores)", "T", "0"});
    parser.addOption({"reference", "run every node with its reference kernel"});
    parser.addOption({"max-memory", "refuse a plan whose arena plus weights exceed BYTES, and a tensor sized at "
                                    "run time larger than BYTES (K, M, G, T suffixes; default: the memory available)",
                      "BYTES"});
}

uint64_t maxMemoryFromOptions(const QCommandLineParser& parser) {
    if (!parser.optionNames().contains("max-memory")) return 0;
    QString text = parser.value("max-memory").trimmed().toUpper();
    uint64_t unit = 1;
    if (text.endsWith('B')) text.chop(1);
    const QString suffixes = "KMGT";
    if (!text.isEmpty() && suffixes.contains(text.back())) {
        unit = uint64_t(1) << (10 * (suffixes.indexOf(text.back()) + 1));
        text.chop(1);
    }
    bool ok = false;
    const qulonglong value = text.toULongLong(&ok);
    if (!ok || value == 0 || value > UINT64_MAX / unit)
        throw std::runtime_error("--max-memory takes a positive number of bytes (K, M, G or T allowed), not '" +
                                 parser.value("max-memory").toStdString() + "'");
    return value * unit;
}

std::map<std::string, Tensor> feedsFromOptions(const Graph& graph, const QCommandLineParser& parser) {
    return makeFeeds(graph, parser.values("input"), parser.values("dim"), parser.value("seed").toULongLong(),
                     maxMemoryFromOptions(parser));
}

std::map<std::string, Tensor> feedsFromOptions(const Model& model, const QCommandLineParser& parser) {
    const uint64_t maxMemory = maxMemoryFromOptions(parser);
    return makeFeeds(model.graph, parser.values("input"), parser.values("dim"), parser.value("seed").toULongLong(),
                     maxMemory, [&](const FeedShapes& shapes) {
                         CompileOptions options;
                         options.inputShapes = shapes;
                         options.maxMemory = maxMemory;
                         checkCpuPlanFits(model, options);
                     });
}

CompileOptions compileOptionsFor(const QCommandLineParser& parser, const std::map<std::string, Tensor>& feeds) {
    CompileOptions options;
    options.threads = parser.value("threads").toInt();
    options.referenceOnly = parser.isSet("reference");
    options.maxMemory = maxMemoryFromOptions(parser);
    for (const auto& [name, tensor] : feeds)
        if (!tensor.isSequence() && !tensor.isOptional()) options.inputShapes[name] = tensor.dims();
    return options;
}

} // namespace graphlens::cli
