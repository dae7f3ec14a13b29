// buildVisualGraph: boxes in topological order (graph inputs first, outputs last), a collapsed
// group taking the place of its first member, then one edge per value between two boxes.
#include "viewer/visual_graph.h"

#include "core/graph/dtype.h"
#include "viewer/node_label.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace graphlens {
namespace {

constexpr qreal kPadX = 10, kPadY = 6;

/// True for the op-type part exporters end scoped names with: "Conv", "MatMul_1".
bool looksLikeOpType(std::string_view part) {
    const size_t underscore = part.find('_');
    const bool numbered = underscore != std::string_view::npos;
    const std::string_view word = part.substr(0, underscore);
    const std::string_view number = numbered ? part.substr(underscore + 1) : std::string_view();
    const auto all = [](std::string_view s, auto test) { return std::all_of(s.begin(), s.end(), test); };
    const auto letter = [](unsigned char c) { return std::isalpha(c) != 0; };
    const auto digit = [](unsigned char c) { return std::isdigit(c) != 0; };
    if (word.empty() || !std::isupper(static_cast<unsigned char>(word[0])) || (numbered && number.empty())) return false;
    return all(word, letter) && all(number, digit);
}

/// The part of a node name worth a line in its box: the scope of the frame around it and a
/// last part that only names the op type are left out, and long names are shortened.
QString shortName(const Node& node, const std::string& framePath) {
    std::string_view name = node.name;
    if (!framePath.empty() && name.starts_with(framePath + "/")) name.remove_prefix(framePath.size() + 1);
    const bool scoped = node.name.find('/') != std::string::npos;
    if (name.starts_with('/')) name.remove_prefix(1);
    const size_t slash = name.rfind('/');
    const std::string_view last = slash == std::string_view::npos ? name : name.substr(slash + 1);
    if (last == node.opType || (scoped && looksLikeOpType(last)))
        name = slash == std::string_view::npos ? "" : name.substr(0, slash);
    QString text = QString::fromUtf8(name.data(), qsizetype(name.size()));
    if (text.size() > 40) text = text.left(18) + QStringLiteral("…") + text.right(18);
    return text;
}

QSizeF boxSize(const VisualNode& n, const TextMeasure& measure) {
    QSizeF title = measure(n.title, TextRole::Title);
    qreal width = title.width(), height = title.height();
    auto addLine = [&](const QString& line) {
        const QSizeF s = measure(line, TextRole::Body);
        width = std::max(width, s.width());
        height += s.height();
    };
    for (const QString& line : {n.subtitle, n.domain})
        if (!line.isEmpty()) addLine(line);
    for (const QString& line : n.details) addLine(line);
    for (const QString& line : n.parameters) addLine(line);
    return {std::ceil(std::max(width + 2 * kPadX, 48.0)), std::ceil(height + 2 * kPadY)};
}

QString typeLine(const Value& v) {
    const QString shape = shapeLabel(v.shape);
    return QString::fromUtf8(dtypeName(v.dtype).data()) + (shape.isEmpty() ? QString() : " " + shape);
}

class VisualGraphBuilder {
public:
    VisualGraphBuilder(const Graph& graph, const ScopeTree& scopes, const VisualGraphOptions& options)
        : graph_(graph), scopes_(scopes), options_(options) {}

    VisualGraph build() {
        for (ValueId v : graph_.inputs())
            if (!graph_.value(v).initializer) addTerminal(VisualKey::input(v), graph_.value(v), "input");
        for (NodeId id : drawingOrder(graph_)) addNode(graph_.node(id));
        for (ValueId v : graph_.outputs()) addTerminal(VisualKey::output(v), graph_.value(v), "output");
        addEdges();
        if (options_.groupFrames) addFrames();
        const TextMeasure measure = options_.measure ? options_.measure : fixedTextMeasure();
        for (VisualNode& n : vg_.nodes) n.size = boxSize(n, measure);
        return std::move(vg_);
    }

private:
    int add(VisualNode node) {
        const int index = int(vg_.nodes.size());
        vg_.indexByKey[node.key.hash()] = index;
        vg_.nodes.push_back(std::move(node));
        return index;
    }

    void addTerminal(VisualKey key, const Value& value, const char* role) {
        if (vg_.indexOf(key) >= 0) return;  // a value listed twice
        const QString name = QString::fromStdString(value.name);
        const QString subtitle = name == QLatin1String(role) ? QString() : QString::fromUtf8(role);
        VisualNode n{key, OpFamily::Other, name, subtitle, name, {}, {typeLine(value)}, {}, kNoId, {}, {}};
        add(std::move(n));
    }

    /// The frame a box sits in: the innermost expanded group, when frames are drawn.
    GroupId frameOf(GroupId innermost) const { return options_.groupFrames ? innermost : kNoId; }

    void addNode(const Node& node) {
        if (isDrawnAsParameter(graph_, node)) return;
        const GroupId collapsed = scopes_.collapsedAncestor(node.id, options_.collapsed);
        if (collapsed != kNoId) {
            int index = vg_.indexOf(VisualKey::group(collapsed));
            if (index < 0) index = addCollapsedGroup(scopes_.group(collapsed));
            vg_.indexByNode[node.id] = index;
            return;
        }
        const GroupId frame = frameOf(scopes_.groupOf(node.id));
        VisualNode n;
        n.key = VisualKey::node(node.id);
        n.family = opFamily(node.opType, node.domain);
        n.title = QString::fromStdString(node.opType);
        n.subtitle = shortName(node, frame == kNoId ? std::string() : scopes_.group(frame).path);
        n.name = QString::fromStdString(node.name);
        n.domain = QString::fromStdString(node.domain);
        n.details = keyAttributeLines(node);
        n.parameters = parameterLines(graph_, node);
        n.group = frame;
        vg_.indexByNode[node.id] = add(std::move(n));
    }

    int addCollapsedGroup(const ScopeGroup& group) {
        std::map<std::string, int> ops;
        countOps(group, ops);
        std::vector<std::pair<int, std::string>> byCount;
        for (const auto& [op, count] : ops) byCount.emplace_back(-count, op);
        std::sort(byCount.begin(), byCount.end());
        VisualNode n;
        n.key = VisualKey::group(group.id);
        n.title = QString::fromStdString(group.name);
        n.name = QString::fromStdString(group.path);
        n.details << QStringLiteral("%1 nodes").arg(group.totalNodes);
        // The op histogram, most frequent first: "MatMul 48 · Add 36 · Softmax 12", three a line.
        constexpr size_t kPerLine = 3, kLines = 2;
        QStringList line;
        for (size_t i = 0; i < byCount.size() && i < kPerLine * kLines; ++i) {
            line << QStringLiteral("%1 %2").arg(QString::fromStdString(byCount[i].second)).arg(-byCount[i].first);
            if (line.size() == kPerLine || i + 1 == byCount.size()) n.details << line.join(QStringLiteral(" · "));
            if (line.size() == kPerLine) line.clear();
        }
        if (byCount.size() > kPerLine * kLines)
            n.details.back() += QStringLiteral(" · +%1 more").arg(byCount.size() - kPerLine * kLines);
        n.group = frameOf(group.parent);
        return add(std::move(n));
    }

    void countOps(const ScopeGroup& group, std::map<std::string, int>& ops) const {
        for (NodeId id : group.nodes) ++ops[graph_.node(id).opType];
        for (GroupId c : group.children) countOps(scopes_.group(c), ops);
    }

    /// The box a value comes out of; -1 for parameters and values from outside the graph.
    int sourceOf(ValueId v) const {
        const Value& value = graph_.value(v);
        if (isParameterValue(graph_, v)) return -1;
        if (value.producer() != kNoId) return vg_.indexShowing(value.producer());
        return vg_.indexOf(VisualKey::input(v));
    }

    void addEdge(int from, int to, ValueId v) {
        if (from < 0 || to < 0 || from == to || !seen_.insert({from, to, v}).second) return;
        vg_.edges.push_back({from, to, v, shapeLabel(graph_.value(v).shape), {}, {}});
    }

    void addEdges() {
        for (NodeId id : drawingOrder(graph_)) {
            const Node& node = graph_.node(id);
            if (isDrawnAsParameter(graph_, node)) continue;
            for (ValueId v : node.inputs())
                if (v != kNoId) addEdge(sourceOf(v), vg_.indexShowing(id), v);
        }
        for (ValueId v : graph_.outputs()) addEdge(sourceOf(v), vg_.indexOf(VisualKey::output(v)), v);
    }

    void addFrames() {
        for (const ScopeGroup& g : scopes_.groups())
            if (scopes_.collapsedAncestorOfGroup(g.id, options_.collapsed) == kNoId)
                vg_.frames.push_back({g.id, g.parent, QString::fromStdString(g.name), g.depth, {}});
    }

    const Graph& graph_;
    const ScopeTree& scopes_;
    const VisualGraphOptions& options_;
    VisualGraph vg_;
    std::set<std::tuple<int, int, ValueId>> seen_;
};

} // namespace

TextMeasure fixedTextMeasure() {
    return [](const QString& text, TextRole role) {
        switch (role) {
        case TextRole::Title: return QSizeF(9.0 * text.size(), 16);
        case TextRole::Body: return QSizeF(7.0 * text.size(), 14);
        case TextRole::EdgeLabel: return QSizeF(6.0 * text.size(), 12);
        }
        return QSizeF();
    };
}

int VisualGraph::indexOf(VisualKey key) const {
    const auto it = indexByKey.find(key.hash());
    return it == indexByKey.end() ? -1 : it->second;
}

int VisualGraph::indexShowing(NodeId node) const {
    const auto it = indexByNode.find(node);
    return it == indexByNode.end() ? -1 : it->second;
}

QString shapeLabel(const Shape& shape) {
    if (!shape.rankKnown()) return {};
    if (shape.rank() == 0) return QStringLiteral("scalar");
    QStringList dims;
    for (const Dim& d : shape.dims()) dims << QString::fromStdString(d.toString());
    return dims.join(QStringLiteral("×"));
}

VisualGraph buildVisualGraph(const Graph& graph, const ScopeTree& scopes, const VisualGraphOptions& options) {
    return VisualGraphBuilder(graph, scopes, options).build();
}

std::vector<NodeId> drawingOrder(const Graph& graph) {
    try {
        return graph.topologicalOrder();
    } catch (const GraphError&) {
        return graph.nodeIds();
    }
}

} // namespace graphlens
