// Tensor shapes with static, symbolic ("batch") and unknown dimensions, as ONNX describes them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace graphlens {

/// One dimension: a known size, a named symbol, or unknown.
class Dim {
public:
    Dim() = default;
    Dim(int64_t size) : value_(size) {}  // NOLINT: a number is a dim
    Dim(std::string symbol) : value_(std::move(symbol)) {}  // NOLINT
    Dim(const char* symbol) : value_(std::string(symbol)) {}  // NOLINT

    bool isStatic() const { return std::holds_alternative<int64_t>(value_); }
    bool isSymbolic() const { return std::holds_alternative<std::string>(value_); }
    bool isUnknown() const { return std::holds_alternative<std::monostate>(value_); }
    int64_t size() const { return isStatic() ? std::get<int64_t>(value_) : -1; }
    const std::string& symbol() const;
    std::string toString() const;  ///< "224", "batch" or "?"

    bool operator==(const Dim&) const = default;

private:
    std::variant<std::monostate, int64_t, std::string> value_;
};

/// A shape of known rank (a list of dims) or of unknown rank.
class Shape {
public:
    Shape() = default;  ///< unknown rank
    Shape(std::vector<Dim> dims) : dims_(std::move(dims)), rankKnown_(true) {}  // NOLINT
    Shape(std::initializer_list<int64_t> sizes);
    static Shape ofSizes(const std::vector<int64_t>& sizes);

    bool rankKnown() const { return rankKnown_; }
    size_t rank() const { return dims_.size(); }
    const std::vector<Dim>& dims() const { return dims_; }
    const Dim& operator[](size_t i) const { return dims_[i]; }
    bool isStatic() const;  ///< rank known and every dim a number
    /// The sizes when static; nullopt otherwise.
    std::optional<std::vector<int64_t>> sizes() const;
    /// Element count when static and representable in int64; nullopt otherwise.
    std::optional<int64_t> numel() const;
    std::string toString() const;  ///< "[1,3,224,224]", "[batch,128]", "?" for unknown rank

    bool operator==(const Shape&) const = default;

private:
    std::vector<Dim> dims_;
    bool rankKnown_ = false;
};

/// Product of sizes, nullopt when a size is negative or the product overflows int64.
std::optional<int64_t> checkedElementCount(const std::vector<int64_t>& sizes);

} // namespace graphlens
