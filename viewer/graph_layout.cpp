// Graphviz layout: the VisualGraph becomes a cgraph graph of fixed-size boxes (no labels, no
// arrowheads, so splines end on the box borders and nothing depends on Graphviz's fonts), dot
// places it, and the positions are read back with y flipped to Qt's downward axis.
#include "viewer/graph_layout.h"

#include <graphviz/gvc.h>

#include <QElapsedTimer>

#include <mutex>
#include <string>

namespace graphlens {
namespace {

constexpr double kPointsPerInch = 72.0;

std::mutex& graphvizMutex() {
    static std::mutex mutex;
    return mutex;
}

/// The one Graphviz context; only used with graphvizMutex() held.
GVC_t* graphvizContext() {
    static GVC_t* context = gvContext();
    return context;
}

std::string graphvizErrors;  // guarded by graphvizMutex()

int collectGraphvizError(char* message) {
    graphvizErrors += message;
    return 0;
}

char* cstr(const std::string& s) { return const_cast<char*>(s.c_str()); }
char* cstr(const char* s) { return const_cast<char*>(s); }
std::string inches(qreal units) { return std::to_string(units / kPointsPerInch); }

/// One cgraph graph for one VisualGraph; closed (layout freed) on destruction.
class GraphvizGraph {
public:
    explicit GraphvizGraph(const VisualGraph& vg, const LayoutOptions& options) {
        graph_ = agopen(cstr("visual"), Agdirected, nullptr);
        agattr(graph_, AGRAPH, cstr("rankdir"), cstr("TB"));
        agattr(graph_, AGRAPH, cstr("splines"), cstr("true"));
        agattr(graph_, AGRAPH, cstr("ranksep"), cstr(inches(options.rankSeparation)));
        agattr(graph_, AGRAPH, cstr("nodesep"), cstr(inches(options.nodeSeparation)));
        agattr(graph_, AGRAPH, cstr("label"), cstr(""));
        agattr(graph_, AGRAPH, cstr("labeljust"), cstr("l"));
        agattr(graph_, AGRAPH, cstr("fontsize"), cstr("11"));
        agattr(graph_, AGNODE, cstr("shape"), cstr("box"));
        agattr(graph_, AGNODE, cstr("fixedsize"), cstr("true"));
        agattr(graph_, AGNODE, cstr("label"), cstr(""));
        width_ = agattr(graph_, AGNODE, cstr("width"), cstr("1"));
        height_ = agattr(graph_, AGNODE, cstr("height"), cstr("0.5"));
        agattr(graph_, AGEDGE, cstr("arrowhead"), cstr("none"));
        addFrames(vg, options.frameMargin);
        addNodes(vg);
        for (const VisualEdge& e : vg.edges)
            edges_.push_back(agedge(graph_, nodes_[size_t(e.from)], nodes_[size_t(e.to)], nullptr, 1));
    }
    ~GraphvizGraph() {
        if (laidOut_) gvFreeLayout(graphvizContext(), graph_);
        agclose(graph_);
    }
    GraphvizGraph(const GraphvizGraph&) = delete;
    GraphvizGraph& operator=(const GraphvizGraph&) = delete;

    void layout() {
        graphvizErrors.clear();
        if (gvLayout(graphvizContext(), graph_, "dot") != 0)
            throw LayoutError("Graphviz could not lay the graph out" +
                              (graphvizErrors.empty() ? std::string() : ": " + graphvizErrors));
        laidOut_ = true;
    }

    void readBack(VisualGraph& vg, const TextMeasure& measure) const;

private:
    void addFrames(const VisualGraph& vg, qreal margin) {
        for (const VisualGroupFrame& f : vg.frames) {  // parents come before their children
            Agraph_t* parent = f.parent == kNoId ? graph_ : clusters_.at(f.parent);
            Agraph_t* cluster = agsubg(parent, cstr("cluster_" + std::to_string(f.id)), 1);
            agsafeset(cluster, cstr("label"), cstr(f.title.toStdString()), cstr(""));
            agsafeset(cluster, cstr("margin"), cstr(std::to_string(margin)), cstr("8"));  // points
            clusters_[f.id] = cluster;
        }
    }

    void addNodes(const VisualGraph& vg) {
        for (size_t i = 0; i < vg.nodes.size(); ++i) {
            const VisualNode& n = vg.nodes[i];
            Agraph_t* owner = n.group != kNoId && clusters_.count(n.group) ? clusters_.at(n.group) : graph_;
            Agnode_t* node = agnode(owner, cstr("n" + std::to_string(i)), 1);
            agxset(node, width_, cstr(inches(n.size.width())));
            agxset(node, height_, cstr(inches(n.size.height())));
            nodes_.push_back(node);
        }
    }

    QPointF toScene(pointf p) const { return {p.x - bounds_.LL.x, bounds_.UR.y - p.y}; }
    QRectF toScene(boxf box) const { return QRectF(toScene(box.LL), toScene(box.UR)).normalized(); }

    Agraph_t* graph_ = nullptr;
    Agsym_t* width_ = nullptr;
    Agsym_t* height_ = nullptr;
    std::vector<Agnode_t*> nodes_;
    std::vector<Agedge_t*> edges_;
    std::unordered_map<GroupId, Agraph_t*> clusters_;
    mutable boxf bounds_{};
    bool laidOut_ = false;
};

QPainterPath splinePath(const splines* spl, const std::function<QPointF(pointf)>& toScene) {
    QPainterPath path;
    if (!spl) return path;
    for (int b = 0; b < spl->size; ++b) {
        const bezier& bz = spl->list[b];
        if (bz.size < 1) continue;
        path.moveTo(toScene(bz.list[0]));
        for (int i = 1; i + 2 < bz.size; i += 3)
            path.cubicTo(toScene(bz.list[i]), toScene(bz.list[i + 1]), toScene(bz.list[i + 2]));
    }
    return path;
}

void GraphvizGraph::readBack(VisualGraph& vg, const TextMeasure& measure) const {
    bounds_ = GD_bb(graph_);
    vg.bounds = QRectF(0, 0, bounds_.UR.x - bounds_.LL.x, bounds_.UR.y - bounds_.LL.y);
    for (size_t i = 0; i < vg.nodes.size(); ++i) {
        const QPointF center = toScene(ND_coord(nodes_[i]));
        const QSizeF size(ND_width(nodes_[i]) * kPointsPerInch, ND_height(nodes_[i]) * kPointsPerInch);
        vg.nodes[i].rect = QRectF(center - QPointF(size.width() / 2, size.height() / 2), size);
    }
    const auto convert = [this](pointf p) { return toScene(p); };
    for (size_t i = 0; i < vg.edges.size(); ++i) {
        VisualEdge& e = vg.edges[i];
        e.path = splinePath(ED_spl(edges_[i]), convert);
        const QPointF middle = e.path.pointAtPercent(e.path.percentAtLength(e.path.length() / 2));
        const QSizeF label = measure(e.label, TextRole::EdgeLabel);
        e.labelRect = QRectF(middle + QPointF(4, -label.height() / 2), label);
        vg.bounds |= e.labelRect;  // a label beside an edge on the far right sticks out
    }
    for (VisualGroupFrame& f : vg.frames) f.rect = toScene(GD_bb(clusters_.at(f.id)));
}

} // namespace

void layoutVisualGraph(VisualGraph& graph, const LayoutOptions& options, const TextMeasure& measure) {
    const TextMeasure labels = measure ? measure : fixedTextMeasure();
    std::lock_guard lock(graphvizMutex());
    agseterr(AGERR);  // warnings stay quiet; errors are collected for the exception
    agseterrf(collectGraphvizError);
    GraphvizGraph gv(graph, options);
    gv.layout();
    gv.readBack(graph, labels);
    graph.laidOut = true;
}

VisualGraph layoutGraph(const Graph& graph, const GraphLayoutRequest& request) {
    const ScopeTree scopes(graph);
    VisualGraphOptions options;
    if (!request.collapseDepth) options.collapsed = automaticCollapse(scopes, request.maxVisibleNodes);
    else if (*request.collapseDepth >= 0) options.collapsed = collapseBelowDepth(scopes, *request.collapseDepth);
    options.groupFrames = request.groupFrames;
    options.measure = request.measure;
    VisualGraph visual = buildVisualGraph(graph, scopes, options);
    layoutVisualGraph(visual, request.layout, request.measure);
    return visual;
}

} // namespace graphlens
