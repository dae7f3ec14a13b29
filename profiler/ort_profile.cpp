// ONNX Runtime profile import.
#include "profiler/ort_profile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <set>
#include <unordered_map>
#include <stdexcept>
#include <string_view>

namespace graphlens {
namespace {

constexpr std::string_view kKernelTime = "_kernel_time";
constexpr std::string_view kSuffixes[] = {kKernelTime, "_fence_before", "_fence_after"};

bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// ORT writes the sizes as strings ("65536").
uint64_t sizeArg(const QJsonObject& args, const char* key) {
    const QJsonValue v = args[key];
    return v.isString() ? v.toString().toULongLong() : uint64_t(v.toInteger());
}

NodeEvent kernelEvent(NodeId node, const QJsonObject& e) {
    const QJsonObject args = e["args"].toObject();
    NodeEvent event;
    event.node = node;
    event.beginNs = e["ts"].toInteger() * 1000;
    event.endNs = event.beginNs + e["dur"].toInteger() * 1000;
    event.bytesRead = sizeArg(args, "activation_size") + sizeArg(args, "parameter_size");
    event.bytesWritten = sizeArg(args, "output_size");
    return event;
}

} // namespace

std::string ortNodeName(const std::string& eventName) {
    for (std::string_view suffix : kSuffixes)
        if (endsWith(eventName, suffix)) return eventName.substr(0, eventName.size() - suffix.size());
    return eventName;
}

OrtProfileImport importOrtProfile(const std::string& json, const Graph& graph) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    if (doc.isNull())
        throw std::runtime_error("the profile is not valid JSON: " + error.errorString().toStdString());
    if (!doc.isArray()) throw std::runtime_error("the profile is not an ONNX Runtime profile (a list of events)");
    std::unordered_map<std::string, NodeId> nodeNamed;
    for (NodeId id : graph.nodeIds()) nodeNamed.emplace(graph.node(id).name, id);
    OrtProfileImport result;
    std::set<std::string> unmapped;
    for (const QJsonValue& value : doc.array()) {
        const QJsonObject e = value.toObject();
        if (e["cat"].toString() == "Session" && e["name"].toString() == "model_run")
            result.runMs.push_back(double(e["dur"].toInteger()) / 1e3);
        if (e["cat"].toString() != "Node") continue;
        ++result.nodeEvents;
        const std::string name = e["name"].toString().toStdString();
        const auto node = nodeNamed.find(ortNodeName(name));
        if (node == nodeNamed.end()) {
            unmapped.insert(ortNodeName(name));
            continue;
        }
        ++result.mappedEvents;
        if (endsWith(name, kKernelTime)) result.events.push_back(kernelEvent(node->second, e));
    }
    result.unmappedNames.assign(unmapped.begin(), unmapped.end());
    return result;
}

} // namespace graphlens
