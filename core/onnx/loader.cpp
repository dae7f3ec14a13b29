// ONNX import: the file is parsed around its weights, which are read once, into a buffer of their
// own that tensors view.
// Structural problems (duplicate names, undefined inputs, cycles, bad tensors) stop the load with
// one sentence; what the ONNX checker and shape inference say is kept as warnings, so a model that
// ONNX Runtime runs also opens here.
#include "core/onnx/loader.h"

#include "core/graph/large_buffer.h"
#include "core/onnx/external_data.h"
#include "core/onnx/onnx_error.h"
#include "core/onnx/onnx_types.h"
#include "core/onnx/proto_arena.h"
#include "core/onnx/raw_data_split.h"
#include "core/onnx/shape_inference.h"
#include "core/runtime/op_validation.h"
#include "core/onnx/tensor_proto.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/checker.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace graphlens {
namespace {

namespace fs = std::filesystem;
using ProtoPtr = std::shared_ptr<onnx::ModelProto>;

ProtoPtr parseModelStream(google::protobuf::io::ZeroCopyInputStream& stream) {
    auto arena = std::make_shared<google::protobuf::Arena>(modelArenaOptions());
    auto* message = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(arena.get());
    ProtoPtr proto(arena, message);  // shares the arena's ownership
    google::protobuf::io::CodedInputStream coded(&stream);
    coded.SetTotalBytesLimit(INT_MAX);
    coded.SetRecursionLimit(200);
    if (!proto->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
        throw OnnxError("the file is not an ONNX model: its protobuf data is malformed or truncated");
    return proto;
}

ProtoPtr parseModelBytes(const void* data, size_t size) {
    google::protobuf::io::ArrayInputStream array(data, static_cast<int>(size));
    return parseModelStream(array);
}

/// A model's bytes as the loader reads them: the split's view (ModelBytes), copies of ranges
/// that two threads may make at once, and all of the bytes where protobuf must parse them whole.
class LoadSource : public ModelBytes {
public:
    /// Copies the `n` bytes at `offset` to `to`; safe on two threads at once.
    virtual void readTo(std::byte* to, size_t n, uint64_t offset) const = 0;
    /// Every byte, for a file the split cannot take (protobuf then parses it and says what is wrong).
    virtual std::span<const std::byte> whole() = 0;
};

/// Bytes already in memory (loadModelFromBytes).
class MemorySource final : public LoadSource {
public:
    explicit MemorySource(std::span<const std::byte> data) : data_(data) {}
    uint64_t size() const override { return data_.size(); }
    std::span<const std::byte> bytes(uint64_t offset, size_t n) override { return data_.subspan(size_t(offset), n); }
    void readTo(std::byte* to, size_t n, uint64_t offset) const override {
        std::memcpy(to, data_.data() + offset, n);
    }
    std::span<const std::byte> whole() override { return data_; }

private:
    std::span<const std::byte> data_;
};

/// A model file, read with pread: the split's reads through a window that reads ahead, the
/// weights straight to their place. Mapped only when it must be parsed whole.
class FileSource final : public LoadSource {
public:
    /// Takes `fd`, open for reading, of a regular file of `size` bytes.
    FileSource(int fd, uint64_t size) : fd_(fd), size_(size) {}
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    ~FileSource() override {
        if (mapped_) munmap(mapped_, size_t(size_));
        ::close(fd_);
    }

    uint64_t size() const override { return size_; }

    std::span<const std::byte> bytes(uint64_t offset, size_t n) override {
        if (offset < windowStart_ || offset + n > windowStart_ + windowSize_) {
            // Reading ahead: a node is a few dozen bytes, an initializer's fields before its raw
            // data a few hundred.
            constexpr size_t kWindowBytes = size_t(16) << 10;
            const size_t want = size_t(std::min<uint64_t>(std::max(n, kWindowBytes), size_ - offset));
            if (want > windowCapacity_) {
                window_.reset(new std::byte[want]);
                windowCapacity_ = want;
            }
            windowSize_ = 0;
            readTo(window_.get(), want, offset);
            windowStart_ = offset;
            windowSize_ = want;
        }
        return {window_.get() + (offset - windowStart_), n};
    }

    void readTo(std::byte* to, size_t n, uint64_t offset) const override {
        for (size_t done = 0; done < n;) {
            const ssize_t got = ::pread(fd_, to + done, n - done, off_t(offset + done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0)
                throw OnnxError(got < 0 ? std::string("cannot read the file: ") + std::strerror(errno)
                                        : std::string("the file became shorter while it was read"));
            done += size_t(got);
        }
    }

    std::span<const std::byte> whole() override {
        if (!mapped_) {
            void* mapped = mmap(nullptr, size_t(size_), PROT_READ, MAP_PRIVATE, fd_, 0);
            if (mapped == MAP_FAILED) throw OnnxError(std::string("cannot map the file: ") + std::strerror(errno));
            mapped_ = mapped;
        }
        return {static_cast<const std::byte*>(mapped_), size_t(size_)};
    }

private:
    int fd_;
    uint64_t size_;
    std::unique_ptr<std::byte[]> window_;
    size_t windowCapacity_ = 0;
    uint64_t windowStart_ = 0;
    size_t windowSize_ = 0;
    void* mapped_ = nullptr;
};

/// One piece of a large raw data: where it goes and where it lies in the model's bytes.
struct LiftedRead {
    std::byte* to;
    size_t size;
    uint64_t offset;
};

/// The copies of the lifted raw data, made while the structure is imported. A second thread
/// starts on them at once; the loading thread, once it has imported, checked and shape-inferred
/// the structure (which reads none of these bytes: they are 64 KiB and up, and validation reads
/// constants of at most 4096 elements), takes pieces too until none is left. On a large model
/// the copy out of the page cache and the first touch of fresh pages are most of a load; this
/// way they overlap the rest of it.
class LiftedReads {
public:
    /// Pieces this long at most, so that both threads end close together.
    static constexpr size_t kPieceBytes = size_t(4) << 20;
    /// From this many bytes up a second thread reads: below, starting it costs more than it saves.
    static constexpr size_t kSecondThreadBytes = size_t(16) << 20;

    LiftedReads(std::vector<LiftedRead> pieces, size_t totalBytes, std::shared_ptr<const LoadSource> source,
                std::shared_ptr<std::byte> buffer)
        : pieces_(std::move(pieces)), source_(std::move(source)), buffer_(std::move(buffer)) {
        if (totalBytes >= kSecondThreadBytes) second_ = std::thread([this] { work(); });
    }
    LiftedReads(const LiftedReads&) = delete;
    LiftedReads& operator=(const LiftedReads&) = delete;
    /// A load that fails before finish(): the second thread takes no new piece and is waited for.
    ~LiftedReads() {
        stop_ = true;
        if (second_.joinable()) second_.join();
    }

    /// Makes the pieces left on this thread, waits for the second, and throws the first error.
    void finish() {
        work();
        if (second_.joinable()) second_.join();
        if (error_) std::rethrow_exception(error_);
    }

private:
    void work() {
        for (size_t k; !stop_ && (k = next_.fetch_add(1)) < pieces_.size();) {
            try {
                source_->readTo(pieces_[k].to, pieces_[k].size, pieces_[k].offset);
            } catch (...) {
                const std::lock_guard lock(errorMutex_);
                if (!error_) error_ = std::current_exception();
                stop_ = true;
            }
        }
    }

    std::vector<LiftedRead> pieces_;
    std::shared_ptr<const LoadSource> source_;  ///< kept open until the reads are done
    /// Kept until the reads are done, whatever the tensors that view it: a load refused meanwhile
    /// drops them first.
    std::shared_ptr<std::byte> buffer_;
    std::atomic<size_t> next_{0};
    std::atomic<bool> stop_{false};
    std::mutex errorMutex_;
    std::exception_ptr error_;
    std::thread second_;
};

/// A parsed file: the message, where the raw data of its large initializers goes (see
/// raw_data_split.h), each with an owner of its own (a WritableRegion of one shared buffer), and
/// the copies of that data still under way (none when nothing was lifted).
struct ParsedFile {
    ProtoPtr proto;
    std::vector<std::span<const std::byte>> lifted;
    std::vector<std::shared_ptr<const void>> owners;  ///< by initializer index, as `lifted`
    std::unique_ptr<LiftedReads> reads;
};

/// Raw data from this size up is copied into a buffer of its own instead of parsed. Far above any
/// shape tensor that shape inference reads values from (of lifted data it sees an 8-byte placeholder).
constexpr size_t kLiftRawDataBytes = size_t(64) << 10;
/// Where each lifted raw data starts in that buffer: kernels read weights in place, aligned.
constexpr size_t kLiftedAlignment = 64;

/// Parses the model in `source` around the raw data of its large initializers: only the
/// structure is read and parsed, and each large raw data is copied into one huge-page buffer, at
/// a 64-byte boundary whatever its offset in the file, while the caller imports the structure
/// (the copies are complete once it has called `reads->finish()`). Tensors view the buffer; the
/// peak memory of a load is the weights plus the parsed structure.
ParsedFile parseModelLifted(std::shared_ptr<LoadSource> source) {
    ParsedFile parsed;
    auto split = splitRawData(*source, kLiftRawDataBytes);
    if (!split) {
        const auto bytes = source->whole();
        parsed.proto = parseModelBytes(bytes.data(), bytes.size());
        return parsed;
    }
    auto place = [](size_t n) { return (n + kLiftedAlignment - 1) / kLiftedAlignment * kLiftedAlignment; };
    size_t total = 0;
    for (const LiftedRange& raw : split->lifted) total += place(raw.size);
    if (total == 0) {
        parsed.proto = parseModelBytes(split->structure.data(), split->structure.size());
        return parsed;
    }
    std::shared_ptr<std::byte> buffer = allocateLargeBuffer(total);
    parsed.lifted.resize(split->lifted.size());
    parsed.owners.resize(split->lifted.size());
    std::vector<LiftedRead> pieces;
    size_t at = 0;
    for (size_t i = 0; i < split->lifted.size(); ++i) {
        const LiftedRange raw = split->lifted[i];
        if (raw.size == 0) continue;
        std::byte* to = buffer.get() + at;
        for (size_t done = 0; done < raw.size; done += LiftedReads::kPieceBytes)
            pieces.push_back({to + done, std::min(LiftedReads::kPieceBytes, raw.size - done), raw.offset + done});
        parsed.lifted[i] = {to, raw.size};
        parsed.owners[i] = writableRegion(buffer, to);
        at += place(raw.size);
    }
    parsed.reads = std::make_unique<LiftedReads>(std::move(pieces), total, std::move(source), std::move(buffer));
    parsed.proto = parseModelBytes(split->structure.data(), split->structure.size());
    return parsed;
}

/// Reads the file's structure and then its large raw data with pread straight to their places:
/// the weights are copied once out of the page cache, and nothing else of the file is.
ParsedFile parseModelFile(const fs::path& path) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) throw OnnxError("cannot open the file: it does not exist");
    if (!fs::is_regular_file(status)) throw OnnxError("it is not a regular file");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw OnnxError(std::string("cannot open the file: ") + std::strerror(errno));
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        const int error = errno;
        ::close(fd);
        throw OnnxError(std::string("cannot read the file's size: ") + std::strerror(error));
    }
    auto file = std::make_shared<FileSource>(fd, uint64_t(st.st_size));  // closes the file from here on
    if (file->size() == 0) throw OnnxError("the file is empty");
    if (file->size() > uint64_t(INT_MAX))
        throw OnnxError("the file is over 2 GiB; ONNX models that large keep their weights in "
                        "external data files");
    return parseModelLifted(std::move(file));
}

/// Names visible in a graph and in the graphs around it (sub-graphs read outer values).
struct Scope {
    const Scope* parent = nullptr;
    std::unordered_set<std::string> names;
    bool has(const std::string& name) const {
        return names.count(name) || (parent && parent->has(name));
    }
};

class GraphImporter {
public:
    GraphImporter(std::shared_ptr<const void> owner, ExternalDataReader* external)
        : owner_(std::move(owner)), external_(external) {}

    /// The raw data of `graph`'s initializers that were lifted out of the file, and their owners
    /// (by index).
    void setLiftedRawData(const onnx::GraphProto* graph, std::vector<std::span<const std::byte>> lifted,
                          std::vector<std::shared_ptr<const void>> owners) {
        liftedGraph_ = graph;
        lifted_ = std::move(lifted);
        liftedOwners_ = std::move(owners);
    }

    std::shared_ptr<Graph> import(const onnx::GraphProto& proto, const Scope* outer);

    /// Every imported graph with the proto it came from, to apply inferred shapes afterwards.
    std::vector<std::pair<const onnx::GraphProto*, Graph*>> graphs;

private:
    void importInputsAndInitializers(const onnx::GraphProto& proto, Graph& g);
    void importNodes(const onnx::GraphProto& proto, Graph& g, const Scope& scope);
    ValueId resolve(Graph& g, const std::string& name, const Scope& scope, const std::string& user);
    Attributes importAttributes(const onnx::NodeProto& node, const Scope& scope);
    Attribute importAttribute(const onnx::AttributeProto& a, const std::string& label,
                              const Scope& scope);

    std::shared_ptr<const void> owner_;
    ExternalDataReader* external_;
    const onnx::GraphProto* liftedGraph_ = nullptr;
    std::vector<std::span<const std::byte>> lifted_;
    std::vector<std::shared_ptr<const void>> liftedOwners_;
};

std::string nodeLabel(const onnx::NodeProto& node) {
    return "node '" + (node.name().empty() ? node.op_type() : node.name()) + "'";
}

std::shared_ptr<Graph> GraphImporter::import(const onnx::GraphProto& proto, const Scope* outer) {
    auto g = std::make_shared<Graph>();
    graphs.emplace_back(&proto, g.get());
    g->name = proto.name();
    g->docString = proto.doc_string();
    Scope scope{outer, {}};
    try {
        importInputsAndInitializers(proto, *g);
        for (const auto& n : proto.node())
            for (const std::string& out : n.output())
                if (!out.empty()) {
                    g->addValue(out);
                    scope.names.insert(out);
                }
        for (ValueId v : g->valueIds()) scope.names.insert(g->value(v).name);
        importNodes(proto, *g, scope);
        for (const auto& out : proto.output()) {
            ValueId v = resolve(*g, out.name(), scope, "graph output");
            applyValueInfo(out, g->value(v));
            g->addOutput(v);
        }
        for (const auto& info : proto.value_info())
            if (auto v = g->findValue(info.name())) applyValueInfo(info, g->value(*v));
        (void)g->topologicalOrder();
    } catch (const GraphError& e) {
        throw OnnxError(e.what());
    }
    return g;
}

void GraphImporter::importInputsAndInitializers(const onnx::GraphProto& proto, Graph& g) {
    for (const auto& in : proto.input()) {
        ValueId v = g.addInput(in.name(), DType::Undefined, {});
        applyValueInfo(in, g.value(v));
        const Shape& shape = g.value(v).shape;
        for (const Dim& d : shape.dims())
            if (d.isStatic() && d.size() < 0)
                throw OnnxError("the graph input '" + in.name() + "' has a negative dimension");
        if (shape.isStatic() && !shape.numel())
            throw OnnxError("the graph input '" + in.name() + "' has the shape " +
                            shape.toString() + ", whose element count overflows 64 bits");
    }
    for (int i = 0; i < proto.initializer_size(); ++i) {
        const onnx::TensorProto& init = proto.initializer(i);
        const std::string label = "initializer '" + init.name() + "'";
        const bool lifted = &proto == liftedGraph_ && size_t(i) < lifted_.size() && !lifted_[size_t(i)].empty();
        Tensor t = lifted ? tensorFromProto(init, liftedOwners_[size_t(i)], external_, label, lifted_[size_t(i)])
                          : tensorFromProto(init, owner_, external_, label);
        if (auto existing = g.findValue(init.name())) {
            if (g.value(*existing).initializer)
                throw OnnxError("the initializer name '" + init.name() + "' is used more than once");
            g.setInitializer(*existing, std::move(t));  // IR < 4: an input with a default
        } else {
            ValueId v = g.addInitializer(init.name(), std::move(t));
            g.value(v).declaredInFile = true;
        }
    }
    for (const auto& sparse : proto.sparse_initializer()) {
        g.sparseInitializers.push_back(sparse.SerializeAsString());
        const std::string& name = sparse.values().name();
        ValueId v = g.findValue(name).value_or(kNoId);
        if (v == kNoId) v = g.addValue(name);
        g.value(v).sparseInitializer = true;
    }
}

ValueId GraphImporter::resolve(Graph& g, const std::string& name, const Scope& scope,
                               const std::string& user) {
    if (auto v = g.findValue(name)) return *v;
    if (scope.parent && scope.parent->has(name)) {
        ValueId v = g.addValue(name);
        g.value(v).outerScope = true;
        return v;
    }
    throw OnnxError("the " + user + " reads '" + name +
                    "', which no node, graph input or initializer produces");
}

void GraphImporter::importNodes(const onnx::GraphProto& proto, Graph& g, const Scope& scope) {
    for (const auto& n : proto.node()) {
        const std::string label = nodeLabel(n);
        std::vector<ValueId> inputs;
        for (const std::string& in : n.input())
            inputs.push_back(in.empty() ? kNoId : resolve(g, in, scope, "input of " + label));
        std::vector<ValueId> outputs;
        for (const std::string& out : n.output())
            outputs.push_back(out.empty() ? g.addValue("") : *g.findValue(out));
        NodeId id = g.addNodeProducing(n.op_type(), std::move(inputs), std::move(outputs),
                                       importAttributes(n, scope), n.name(), canonicalDomain(n.domain()));
        g.node(id).docString = n.doc_string();
    }
}

Attributes GraphImporter::importAttributes(const onnx::NodeProto& node, const Scope& scope) {
    Attributes attrs;
    for (const auto& a : node.attribute()) {
        const std::string label = "attribute '" + a.name() + "' of " + nodeLabel(node);
        // A second value would replace the first, and with it a subgraph already imported and
        // registered for shape inference (fuzzing: a use after free).
        if (attrs.has(a.name())) throw OnnxError("the " + label + " is given twice");
        Attribute value = importAttribute(a, label, scope);
        value.refAttrName = a.ref_attr_name();
        value.docString = a.doc_string();
        attrs.set(a.name(), std::move(value));
    }
    return attrs;
}

onnx::AttributeProto::AttributeType inferredAttributeType(const onnx::AttributeProto& a) {
    using A = onnx::AttributeProto;
    if (a.type() != A::UNDEFINED) return a.type();
    if (a.has_f()) return A::FLOAT;
    if (a.has_i()) return A::INT;
    if (a.has_s()) return A::STRING;
    if (a.has_t()) return A::TENSOR;
    if (a.has_g()) return A::GRAPH;
    if (a.floats_size()) return A::FLOATS;
    if (a.ints_size()) return A::INTS;
    if (a.strings_size()) return A::STRINGS;
    if (a.tensors_size()) return A::TENSORS;
    if (a.graphs_size()) return A::GRAPHS;
    return A::UNDEFINED;
}

Attribute GraphImporter::importAttribute(const onnx::AttributeProto& a, const std::string& label,
                                         const Scope& scope) {
    using A = onnx::AttributeProto;
    auto tensor = [&](const onnx::TensorProto& t) { return tensorFromProto(t, owner_, external_, label); };
    auto graph = [&](const onnx::GraphProto& sub) -> GraphPtr { return import(sub, &scope); };
    switch (inferredAttributeType(a)) {
    case A::FLOAT: return a.f();
    case A::INT: return a.i();
    case A::STRING: return a.s();
    case A::TENSOR: return tensor(a.t());
    case A::GRAPH: return graph(a.g());
    case A::SPARSE_TENSOR: return SparseTensorBytes{a.sparse_tensor().SerializeAsString()};
    case A::TYPE_PROTO: return TypeProtoBytes{a.tp().SerializeAsString()};
    case A::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
    case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case A::TENSORS: {
        std::vector<Tensor> out;
        for (const auto& t : a.tensors()) out.push_back(tensor(t));
        return out;
    }
    case A::GRAPHS: {
        std::vector<GraphPtr> out;
        for (const auto& sub : a.graphs()) out.push_back(graph(sub));
        return out;
    }
    case A::SPARSE_TENSORS: {
        std::vector<SparseTensorBytes> out;
        for (const auto& s : a.sparse_tensors()) out.push_back({s.SerializeAsString()});
        return out;
    }
    case A::TYPE_PROTOS: {
        std::vector<TypeProtoBytes> out;
        for (const auto& t : a.type_protos()) out.push_back({t.SerializeAsString()});
        return out;
    }
    default:
        if (!a.ref_attr_name().empty()) return int64_t(0);  // a function-body reference
        throw OnnxError("the " + label + " has no type and no value");
    }
}

void runChecker(const onnx::ModelProto& proto, const fs::path& dir, Model& model) {
    try {
        onnx::checker::CheckerContext ctx;
        ctx.set_ir_version(static_cast<int>(proto.ir_version()));
        std::unordered_map<std::string, int> opsets;
        for (const auto& o : proto.opset_import()) opsets[o.domain()] = int(o.version());
        ctx.set_opset_imports(opsets);
        if (!dir.empty()) ctx.set_model_dir(dir.string());
        onnx::checker::LexicalScopeContext lex;
        onnx::checker::check_graph(proto.graph(), ctx, lex);
    } catch (const std::exception& e) {
        model.warnings.push_back("ONNX checker: " + firstLine(e));
    }
}

void inferShapes(onnx::ModelProto& proto, GraphImporter& importer, Model& model) {
    try {
        runOnnxShapeInference(proto, /*strict=*/false);
    } catch (const OnnxError& e) {
        model.warnings.push_back(std::string("ONNX shape inference: ") + e.what());
    }
    for (const auto& entry : importer.graphs) {
        const auto* graphProto = entry.first;
        Graph* graph = entry.second;  // not a structured binding: Clang 14 cannot capture one
        auto apply = [&](const onnx::ValueInfoProto& info) {
            if (auto v = graph->findValue(info.name())) {
                Value& value = graph->value(*v);
                const bool declared = value.declaredInFile;
                applyValueInfo(info, value, /*onlyIfMoreKnown=*/true);
                value.declaredInFile = declared;
            }
        };
        for (const auto& info : graphProto->value_info()) apply(info);
        for (const auto& info : graphProto->output()) apply(info);
    }
}

Model importModel(ParsedFile parsed, const fs::path& dir, const LoadOptions& options) {
    const ProtoPtr& proto = parsed.proto;
    if (!proto->has_graph())
        throw OnnxError("the file holds no graph, so it is not an ONNX model");
    if (proto->ir_version() <= 0)
        throw OnnxError("the file does not state an ONNX IR version, so it is not an ONNX model");
    Model model;
    model.irVersion = proto->ir_version();
    model.opsets.clear();
    for (const auto& o : proto->opset_import()) model.opsets.push_back({canonicalDomain(o.domain()), o.version()});
    model.producerName = proto->producer_name();
    model.producerVersion = proto->producer_version();
    model.domain = proto->domain();
    model.modelVersion = proto->model_version();
    model.docString = proto->doc_string();
    for (const auto& p : proto->metadata_props()) model.metadata.emplace_back(p.key(), p.value());
    model.sourceDir = dir;
    if (proto->functions_size() || proto->training_info_size()) {
        onnx::ModelProto opaque;
        *opaque.mutable_functions() = proto->functions();
        *opaque.mutable_training_info() = proto->training_info();
        model.opaqueFields = opaque.SerializeAsString();
    }

    ExternalDataReader external(dir);
    GraphImporter importer(proto, &external);
    importer.setLiftedRawData(&proto->graph(), std::move(parsed.lifted), std::move(parsed.owners));
    // The weights are still being read (parseModelLifted) while the structure is imported.
    std::shared_ptr<Graph> main = importer.import(proto->graph(), nullptr);
    // Out-of-range attributes (a zero stride reaches a division in ONNX's shape inference) are
    // refused before anything reads them, and again once inferred shapes show the input ranks.
    validateGraph(*main, model.opsetVersion());
    if (options.runChecker) runChecker(*proto, dir, model);
    if (options.inferShapes) {
        inferShapes(*proto, importer, model);
        validateGraph(*main, model.opsetVersion());
    }
    if (parsed.reads) parsed.reads->finish();
    model.graph = std::move(*main);
    return model;
}

} // namespace

Model loadModel(const fs::path& path, const LoadOptions& options) {
    ParsedFile parsed = parseModelFile(path);
    fs::path dir = path.parent_path();
    if (dir.empty()) dir = ".";
    return importModel(std::move(parsed), dir, options);
}

Model loadModelFromBytes(std::string_view bytes, const fs::path& baseDir, const LoadOptions& options) {
    if (bytes.empty()) throw OnnxError("the model data is empty");
    if (bytes.size() > size_t(INT_MAX)) throw OnnxError("the model data is over 2 GiB");
    // The same parse as a file's (and the fuzz targets, which load from bytes, exercise it).
    const std::span<const std::byte> data(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
    return importModel(parseModelLifted(std::make_shared<MemorySource>(data)), baseDir, options);
}

} // namespace graphlens
