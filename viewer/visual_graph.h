// The graph as the canvas draws it: boxes for operators, for graph inputs and outputs and for
// collapsed name-scope groups; constants and initializers listed as parameters of the boxes that
// read them; edges labeled with tensor shapes. Built from the IR, then placed by layoutVisualGraph()
// (graph_layout.h). Qt Core/Gui value types only, no widgets, so it can be built in a worker thread.
#pragma once

#include "core/graph/graph.h"
#include "viewer/op_family.h"
#include "viewer/scope_tree.h"

#include <QPainterPath>
#include <QRectF>
#include <QStringList>

#include <functional>
#include <unordered_map>
#include <vector>

namespace graphlens {

/// What a box stands for: an operator node, a graph input or output value, or a collapsed group.
struct VisualKey {
    enum class Kind : uint8_t { Node, Input, Output, Group };
    Kind kind = Kind::Node;
    int32_t id = kNoId;  ///< NodeId, ValueId (Input, Output) or GroupId

    static VisualKey node(NodeId id) { return {Kind::Node, id}; }
    static VisualKey input(ValueId id) { return {Kind::Input, id}; }
    static VisualKey output(ValueId id) { return {Kind::Output, id}; }
    static VisualKey group(GroupId id) { return {Kind::Group, id}; }
    bool operator==(const VisualKey&) const = default;
    uint64_t hash() const { return (uint64_t(kind) << 32) | uint32_t(id); }
};

/// The text roles of a box, each drawn in its own font.
enum class TextRole { Title, Body, EdgeLabel };

/// Measures one line of text in a role's font (width and line height, in scene units).
using TextMeasure = std::function<QSizeF(const QString& text, TextRole role)>;

/// Metrics that do not depend on installed fonts (7 units per character, 9 for titles; lines of
/// 14 units), so layouts are the same on every machine; the scene passes real font metrics.
TextMeasure fixedTextMeasure();

struct VisualNode {
    VisualKey key;
    OpFamily family = OpFamily::Other;
    QString title;        ///< op type; the value name of a terminal; the group's name
    QString subtitle;     ///< the part of the name the box shows (scope and op type left out)
    QString name;         ///< the whole node name; the value name of a terminal; the group path
    QString domain;       ///< empty for the default ONNX domain
    QStringList details;  ///< key attributes ("kernel 3×3", "stride 2×2"), a terminal's type
    QStringList parameters;  ///< constants read by the node ("W 16×3×3×3", "shape [1,-1]")
    GroupId group = kNoId;   ///< the innermost expanded group around the box
    QSizeF size;          ///< box size from the text metrics
    QRectF rect;          ///< scene rectangle, set by the layout
};

struct VisualEdge {
    int from = -1;  ///< index into VisualGraph::nodes
    int to = -1;
    ValueId value = kNoId;
    QString label;       ///< the tensor shape, "1×64×56×56"; empty when unknown
    QPainterPath path;   ///< set by the layout: from the border of `from` to the border of `to`
    QRectF labelRect;    ///< set by the layout: where the label goes, right of the curve's middle
};

/// An expanded group drawn as a frame around its members.
struct VisualGroupFrame {
    GroupId id = kNoId;
    GroupId parent = kNoId;  ///< the frame around this one; kNoId at the top
    QString title;  ///< the group's name
    int depth = 1;
    QRectF rect;    ///< set by the layout
};

struct VisualGraph {
    std::vector<VisualNode> nodes;
    std::vector<VisualEdge> edges;
    std::vector<VisualGroupFrame> frames;
    QRectF bounds;  ///< set by the layout
    bool laidOut = false;

    /// Index of the box for `key`; -1 when there is none.
    int indexOf(VisualKey key) const;
    /// Index of the box that shows node `node`: its own, or the collapsed group hiding it; -1
    /// for nodes not drawn (Constant nodes) or unknown ids.
    int indexShowing(NodeId node) const;

    std::unordered_map<uint64_t, int> indexByKey;
    std::unordered_map<NodeId, int> indexByNode;  ///< every drawn node, hidden ones included
};

struct VisualGraphOptions {
    CollapsedGroups collapsed = {};  ///< see automaticCollapse() and collapseBelowDepth()
    bool groupFrames = true;         ///< draw expanded groups as frames (Graphviz clusters)
    TextMeasure measure = {};        ///< fixedTextMeasure() when empty
};

/// Builds the boxes and edges of `graph` grouped by `scopes` (a ScopeTree of the same graph).
VisualGraph buildVisualGraph(const Graph& graph, const ScopeTree& scopes, const VisualGraphOptions& options = {});

/// "1×3×224×224"; symbolic dims by name, unknown ones as "?"; empty for an unknown rank.
QString shapeLabel(const Shape& shape);

/// The order the viewer lists nodes in: topological, or insertion order when the graph has a cycle
/// (a viewer still shows what is there).
std::vector<NodeId> drawingOrder(const Graph& graph);

} // namespace graphlens
