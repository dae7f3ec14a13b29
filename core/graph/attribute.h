// Node attributes: every ONNX attribute kind. Sub-graphs (If/Loop/Scan bodies) are kept as Graphs;
// sparse tensors and type protos, which no pass looks into, are kept as their serialized bytes.
#pragma once

#include "core/graph/tensor.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace graphlens {

class Graph;
using GraphPtr = std::shared_ptr<const Graph>;

struct SparseTensorBytes {
    std::string serialized;  ///< an onnx.SparseTensorProto
    bool operator==(const SparseTensorBytes&) const = default;
};
struct TypeProtoBytes {
    std::string serialized;  ///< an onnx.TypeProto
    bool operator==(const TypeProtoBytes&) const = default;
};

enum class AttributeKind {
    Float, Int, String, Tensor, Graph, SparseTensor, TypeProto,
    Floats, Ints, Strings, Tensors, Graphs, SparseTensors, TypeProtos,
};

/// The ONNX name of an attribute kind ("INT", "FLOATS", "GRAPH", ...).
std::string_view attributeKindName(AttributeKind kind);

class Attribute {
public:
    using Storage = std::variant<float, int64_t, std::string, Tensor, GraphPtr, SparseTensorBytes,
                                 TypeProtoBytes, std::vector<float>, std::vector<int64_t>,
                                 std::vector<std::string>, std::vector<Tensor>,
                                 std::vector<GraphPtr>, std::vector<SparseTensorBytes>,
                                 std::vector<TypeProtoBytes>>;

    Attribute() = default;
    template <typename T>
        requires std::is_constructible_v<Storage, T>
    Attribute(T value) : value_(std::move(value)) {}  // NOLINT: implicit from any kind
    Attribute(int value) : value_(int64_t(value)) {}  // NOLINT
    Attribute(double value) : value_(float(value)) {}  // NOLINT
    Attribute(const char* value) : value_(std::string(value)) {}  // NOLINT
    Attribute(std::initializer_list<int64_t> values) : value_(std::vector<int64_t>(values)) {}

    AttributeKind kind() const { return static_cast<AttributeKind>(value_.index()); }
    template <typename T> bool holds() const { return std::holds_alternative<T>(value_); }
    template <typename T> const T& get() const { return std::get<T>(value_); }
    const Storage& storage() const { return value_; }

    /// For attributes of function bodies that refer to an attribute of the caller.
    std::string refAttrName;
    std::string docString;

private:
    Storage value_;
};

/// Whether one Attributes holds a sub-graph, tallied process-wide: while no Attributes anywhere
/// holds one (no model with control flow is loaded), a walk for the names sub-graphs read ends at
/// once instead of visiting every node. Noexcept throughout, so that vectors of nodes move them.
class SubgraphMark {
public:
    SubgraphMark() = default;
    SubgraphMark(const SubgraphMark& other) noexcept { set(other.on_); }
    SubgraphMark(SubgraphMark&& other) noexcept : on_(std::exchange(other.on_, false)) {}
    SubgraphMark& operator=(const SubgraphMark& other) noexcept {
        set(other.on_);
        return *this;
    }
    SubgraphMark& operator=(SubgraphMark&& other) noexcept {
        if (this != &other) {
            set(false);
            on_ = std::exchange(other.on_, false);
        }
        return *this;
    }
    ~SubgraphMark() { set(false); }

    void set(bool on) noexcept {
        if (on == on_) return;
        live_.fetch_add(on ? 1 : -1, std::memory_order_relaxed);
        on_ = on;
    }
    bool on() const { return on_; }
    /// True while some Attributes in the process holds a sub-graph.
    static bool anyLive() { return live_.load(std::memory_order_relaxed) > 0; }

private:
    bool on_ = false;
    static inline std::atomic<long> live_{0};
};

/// Attributes of one node, in file order (so export writes them back in the same order).
class Attributes {
public:
    using Entry = std::pair<std::string, Attribute>;

    Attributes() = default;
    Attributes(std::initializer_list<Entry> entries) : entries_(entries) { noteGraphs(); }

    const Attribute* find(std::string_view name) const;
    bool has(std::string_view name) const { return find(name) != nullptr; }
    void set(std::string name, Attribute value);
    bool erase(std::string_view name);

    int64_t getInt(std::string_view name, int64_t fallback) const;
    float getFloat(std::string_view name, float fallback) const;
    std::string getString(std::string_view name, std::string fallback = {}) const;
    std::vector<int64_t> getInts(std::string_view name, std::vector<int64_t> fallback = {}) const;
    const Tensor* getTensor(std::string_view name) const;

    size_t size() const { return entries_.size(); }
    bool empty() const { return entries_.empty(); }
    auto begin() const { return entries_.begin(); }
    auto end() const { return entries_.end(); }
    /// True when some attribute is a sub-graph or a list of them (If, Loop, Scan bodies): what
    /// whole-graph walks for names sub-graphs read check first, node by node.
    bool holdsGraphs() const { return holdsGraphs_.on(); }

private:
    void noteGraphs();

    std::vector<Entry> entries_;
    SubgraphMark holdsGraphs_;
};

} // namespace graphlens
