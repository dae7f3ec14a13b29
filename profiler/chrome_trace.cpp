// Chrome trace export, written with Qt's JSON classes (strings escaped as JSON requires).
#include "profiler/chrome_trace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <map>
#include <set>

namespace graphlens {
namespace {

QJsonObject metadata(const char* name, int tid, const std::string& value) {
    return {{"name", name}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
            {"args", QJsonObject{{"name", QString::fromStdString(value)}}}};
}

QJsonArray shapesJson(const std::vector<std::string>& shapes) {
    QJsonArray array;
    for (const std::string& s : shapes) array.append(QString::fromStdString(s));
    return array;
}

} // namespace

std::string chromeTraceJson(const std::vector<NodeEvent>& events, const std::vector<NodeProfile>& nodes,
                            const std::string& processName, const std::vector<MemoryStep>& memory) {
    std::map<NodeId, uint64_t> liveBytesAt;
    for (const MemoryStep& step : memory) liveBytesAt[step.node] = step.liveBytes;
    std::map<NodeId, const NodeProfile*> profileOf;
    for (const NodeProfile& p : nodes) profileOf[p.node] = &p;
    const int64_t origin = events.empty() ? 0 : std::min_element(events.begin(), events.end(), [](auto& a, auto& b) {
                                                   return a.beginNs < b.beginNs;
                                               })->beginNs;
    QJsonArray trace{metadata("process_name", 0, processName)};
    std::set<int> tracks;
    std::map<NodeId, int> runOf;
    for (const NodeEvent& e : events) {
        const NodeProfile& p = *profileOf.at(e.node);
        tracks.insert(e.track);
        const QJsonObject args{{"op", QString::fromStdString(p.op)},
                               {"kernel", QString::fromStdString(p.kernel)},
                               {"run", runOf[e.node]++},
                               {"input_shapes", shapesJson(p.inputShapes)},
                               {"output_shape", QString::fromStdString(p.outputShape)}};
        trace.append(QJsonObject{{"name", QString::fromStdString(p.name)}, {"cat", "node"}, {"ph", "X"},
                                 {"ts", double(e.beginNs - origin) / 1e3}, {"dur", double(e.endNs - e.beginNs) / 1e3},
                                 {"pid", 1}, {"tid", e.track + 1}, {"args", args}});
        if (const auto live = liveBytesAt.find(e.node); live != liveBytesAt.end())
            trace.append(QJsonObject{{"name", "live bytes"}, {"cat", "memory"}, {"ph", "C"},
                                     {"ts", double(e.beginNs - origin) / 1e3}, {"pid", 1},
                                     {"args", QJsonObject{{"bytes", double(live->second)}}}});
    }
    for (int track : tracks) trace.append(metadata("thread_name", track + 1, "thread " + std::to_string(track)));
    const QJsonObject root{{"traceEvents", trace}, {"displayTimeUnit", "ms"}};
    return QJsonDocument(root).toJson(QJsonDocument::Compact).toStdString();
}

} // namespace graphlens
