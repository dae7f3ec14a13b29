// Shapes and dims: printing and overflow-checked element counts.
#include "core/graph/shape.h"

#include <limits>

namespace graphlens {

const std::string& Dim::symbol() const {
    static const std::string empty;
    return isSymbolic() ? std::get<std::string>(value_) : empty;
}

std::string Dim::toString() const {
    if (isStatic()) return std::to_string(size());
    if (isSymbolic()) return symbol();
    return "?";
}

Shape::Shape(std::initializer_list<int64_t> sizes) : rankKnown_(true) {
    for (int64_t s : sizes) dims_.emplace_back(s);
}

Shape Shape::ofSizes(const std::vector<int64_t>& sizes) {
    std::vector<Dim> dims(sizes.begin(), sizes.end());
    return Shape(std::move(dims));
}

bool Shape::isStatic() const {
    if (!rankKnown_) return false;
    for (const Dim& d : dims_)
        if (!d.isStatic()) return false;
    return true;
}

std::optional<std::vector<int64_t>> Shape::sizes() const {
    if (!isStatic()) return std::nullopt;
    std::vector<int64_t> out;
    out.reserve(dims_.size());
    for (const Dim& d : dims_) out.push_back(d.size());
    return out;
}

std::optional<int64_t> Shape::numel() const {
    auto s = sizes();
    return s ? checkedElementCount(*s) : std::nullopt;
}

std::string Shape::toString() const {
    if (!rankKnown_) return "?";
    std::string out = "[";
    for (size_t i = 0; i < dims_.size(); ++i) {
        if (i) out += ',';
        out += dims_[i].toString();
    }
    return out + "]";
}

std::optional<int64_t> checkedElementCount(const std::vector<int64_t>& sizes) {
    for (int64_t s : sizes)
        if (s < 0) return std::nullopt;
    for (int64_t s : sizes)
        if (s == 0) return 0;
    int64_t count = 1;
    for (int64_t s : sizes) {
        if (count > std::numeric_limits<int64_t>::max() / s) return std::nullopt;
        count *= s;
    }
    return count;
}

} // namespace graphlens
