// compareStep: the diff marks come from the node ids (kept by unchanged nodes along a line of
// snapshots, never reused) and from the rewrites of the steps between the two sides.
#include "app/step_comparison.h"

#include <QCoreApplication>
#include <QLocale>

#include <unordered_set>

namespace graphlens {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("StepComparison", text); }

QString nodeCount(const Graph& graph) { return tr("%1 nodes").arg(QLocale().toString(qlonglong(graph.nodeCount()))); }

QString leftCaption(const PassStepper& stepper, size_t step) {
    const Graph& graph = stepper.snapshot(step).graph;
    if (step == 0) return tr("Original · %1").arg(nodeCount(graph));
    return tr("Step %1, after %2 · %3").arg(step).arg(QString::fromStdString(stepper.resultOf(step).passId), nodeCount(graph));
}

QString rightCaption(const PassStepper& stepper, CompareWith with) {
    const size_t step = stepper.step();
    const QString nodes = nodeCount(stepper.current().graph);
    if (step == 0) return tr("Original (no pass applied) · %1").arg(nodes);
    const QString after = with == CompareWith::Original && step > 1 ? tr("After %1 passes").arg(step)
                                                                    : tr("After %1").arg(QString::fromStdString(stepper.resultOf(step).passId));
    QString caption = tr("%1 (step %2 of %3) · %4").arg(after).arg(step).arg(stepper.stepCount()).arg(nodes);
    if (const VerifyReport* v = stepper.currentVerification())
        caption += v->passed ? tr(" · last step's max error %1").arg(v->maxAbsError, 0, 'g', 3) : tr(" · verification failed");
    return caption;
}

/// The provenance of `nodes` in `graph`; a node `graph` does not have stands for itself.
void addOrigins(const Graph& graph, const std::vector<NodeRef>& nodes, std::vector<NodeId>& origins) {
    for (const NodeRef& n : nodes) {
        if (!graph.hasNode(n.id)) origins.push_back(n.id);
        else origins.insert(origins.end(), graph.node(n.id).provenance.begin(), graph.node(n.id).provenance.end());
    }
}

} // namespace

std::vector<NodeId> rewriteOrigins(const PassStepper& stepper, size_t step, size_t index) {
    const Rewrite& w = stepper.resultOf(step).rewrites.at(index);
    std::vector<NodeId> origins;
    addOrigins(stepper.snapshot(step - 1).graph, w.removed, origins);  // the graph the pass ran on
    addOrigins(stepper.snapshot(step).graph, w.added, origins);        // the graph it made
    return origins;
}

std::vector<NodeId> declineOrigins(const PassStepper& stepper, size_t step, size_t index) {
    std::vector<NodeId> origins;
    addOrigins(stepper.snapshot(step - 1).graph, {stepper.resultOf(step).declines.at(index).node}, origins);
    return origins;
}

StepComparison compareStep(const PassStepper& stepper, CompareWith with) {
    const size_t step = stepper.step();
    StepComparison c;
    c.leftStep = with == CompareWith::Original || step == 0 ? 0 : step - 1;
    std::unordered_set<NodeId> rewrittenAway, rewrittenIn;
    for (size_t s = c.leftStep + 1; s <= step; ++s)
        for (const Rewrite& w : stepper.resultOf(s).rewrites) {
            for (const NodeRef& n : w.removed) rewrittenAway.insert(n.id);
            for (const NodeRef& n : w.added) rewrittenIn.insert(n.id);
        }
    const Graph& left = stepper.snapshot(c.leftStep).graph;
    const Graph& right = stepper.current().graph;
    for (NodeId n : left.nodeIds())
        if (!right.hasNode(n) || rewrittenAway.count(n)) c.removed.push_back(n);
    for (NodeId n : right.nodeIds())
        if (!left.hasNode(n) || rewrittenIn.count(n)) c.added.push_back(n);
    c.leftCaption = leftCaption(stepper, c.leftStep);
    c.rightCaption = rightCaption(stepper, with);
    return c;
}

} // namespace graphlens
