// Attribute lookup helpers.
#include "core/graph/attribute.h"

#include <algorithm>
#include <array>

namespace graphlens {

std::string_view attributeKindName(AttributeKind kind) {
    static constexpr std::array<std::string_view, 14> names{
        "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "SPARSE_TENSOR", "TYPE_PROTO",
        "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS", "SPARSE_TENSORS", "TYPE_PROTOS"};
    return names[static_cast<size_t>(kind)];
}

const Attribute* Attributes::find(std::string_view name) const {
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return e.first == name; });
    return it == entries_.end() ? nullptr : &it->second;
}

void Attributes::noteGraphs() {
    holdsGraphs_.set(std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) {
        return e.second.holds<GraphPtr>() || e.second.holds<std::vector<GraphPtr>>();
    }));
}

void Attributes::set(std::string name, Attribute value) {
    const auto same = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.first == name; });
    if (same != entries_.end()) same->second = std::move(value);
    else entries_.emplace_back(std::move(name), std::move(value));
    noteGraphs();
}

bool Attributes::erase(std::string_view name) {
    const bool erased = std::erase_if(entries_, [&](const Entry& e) { return e.first == name; }) > 0;
    noteGraphs();
    return erased;
}

int64_t Attributes::getInt(std::string_view name, int64_t fallback) const {
    const Attribute* a = find(name);
    return a && a->holds<int64_t>() ? a->get<int64_t>() : fallback;
}

float Attributes::getFloat(std::string_view name, float fallback) const {
    const Attribute* a = find(name);
    return a && a->holds<float>() ? a->get<float>() : fallback;
}

std::string Attributes::getString(std::string_view name, std::string fallback) const {
    const Attribute* a = find(name);
    return a && a->holds<std::string>() ? a->get<std::string>() : fallback;
}

std::vector<int64_t> Attributes::getInts(std::string_view name,
                                         std::vector<int64_t> fallback) const {
    const Attribute* a = find(name);
    return a && a->holds<std::vector<int64_t>>() ? a->get<std::vector<int64_t>>() : fallback;
}

const Tensor* Attributes::getTensor(std::string_view name) const {
    const Attribute* a = find(name);
    return a && a->holds<Tensor>() ? &a->get<Tensor>() : nullptr;
}

} // namespace graphlens
