// Window work: plain functions of their inputs, so they run in a worker thread and tests can
// call them directly.
#include "app/window_work.h"

#include "app/cli/model_inputs.h"
#include "core/import/open_model.h"
#include "core/passes/verify.h"

#include "app/cli/model_report.h"

#include <QCoreApplication>
#include <QObject>
#include <QPointer>
#include <QThreadPool>

#include <atomic>
#include <optional>
#include <set>

namespace graphlens {

LoadedModel loadForWindow(const QString& path) {
    LoadedModel loaded{graphlens::openModel(path.toStdString()), {}};
    // FLOPs on static shapes can take seconds on a deep transformer: the window counts them
    // after the first frame (summarizeInBackground) when the shapes as loaded do not suffice.
    loaded.summary = summarize(loaded.model, FlopShapes::AsLoaded);
    return loaded;
}

QString statusText(size_t step, size_t steps, const ModelSummary& s) {
    const QString flops = s.flopsComplete ? cli::humanCount(double(s.flops), "FLOPs") + " " + QString::fromStdString(unitDimsNote(s.unitDims))
                                          : QObject::tr("counting FLOPs...");
    return QObject::tr("step %1/%2 · %3 nodes · %4 op types · %5 parameters · %6")
        .arg(step)
        .arg(steps)
        .arg(s.nodes)
        .arg(s.ops.size())
        .arg(cli::humanCount(double(s.parameters), QString()).trimmed())
        .arg(flops.trimmed());
}

void summarizeInBackground(std::shared_ptr<const Model> model, QObject* context, std::function<void(const ModelSummary&)> done) {
    static std::atomic<bool> quitting = false;  // the pool's end waits for its task: cut it short
    static QThreadPool* pool = [] {  // not the global pool: Qt's painting waits on that one
        auto* p = new QThreadPool(qApp);
        p->setMaxThreadCount(1);
        QObject::connect(qApp, &QCoreApplication::aboutToQuit, p, [] { quitting = true; });
        return p;
    }();
    QPointer<QObject> receiver(context);
    pool->start([model = std::move(model), receiver, done = std::move(done)] {
        auto summary = std::make_shared<const ModelSummary>(summarize(*model, FlopShapes::Static, [] { return quitting.load(); }));
        QMetaObject::invokeMethod(qApp, [receiver, summary, done] {
            if (receiver) done(*summary);
        }, Qt::QueuedConnection);
    });
}

namespace {

/// "NAME=1" for each symbolic dimension of the graph's inputs: a model exported with a dynamic
/// batch or sequence length is verified on one image or one token.
QStringList unitSymbolicSizes(const Graph& graph) {
    std::set<std::string> names;
    for (ValueId id : graph.inputs()) {
        const Value& v = graph.value(id);
        if (v.initializer || !v.shape.rankKnown()) continue;
        for (const Dim& d : v.shape.dims())
            if (d.isSymbolic()) names.insert(d.symbol());
    }
    QStringList specs;
    for (const std::string& name : names) specs << QString::fromStdString(name) + "=1";
    return specs;
}

/// A checker whose baseline is `from`, on seeded random inputs (symbolic sizes 1, named in
/// `note`); nullopt with `why` set when the model cannot be run (an unsupported op, an input
/// of unknown shape).
std::optional<NumericChecker> checkerFor(const Model& from, QString& why, QString& note) {
    try {
        const QStringList sizes = unitSymbolicSizes(from.graph);
        if (!sizes.isEmpty())
            note = QObject::tr("Steps verified with %1 for the model's symbolic sizes.").arg(sizes.join(", ").replace("=", " = "));
        // Like the command line: a plan too large for the memory is refused before gigabytes of
        // random inputs are allocated and filled.
        auto feeds = cli::makeFeeds(from.graph, {}, sizes, /*seed=*/1, /*maxMemory=*/0, [&](const cli::FeedShapes& shapes) {
            CompileOptions options;
            options.inputShapes = shapes;
            checkCpuPlanFits(from, options);
        });
        NumericChecker checker(std::move(feeds), VerifyOptions{});
        checker.setBaseline(from);
        return checker;
    } catch (const std::exception& e) {
        why = QObject::tr("The steps were not verified: %1").arg(QString::fromUtf8(e.what()));
        note.clear();
        return std::nullopt;
    }
}

} // namespace

AppliedSteps applyPasses(const Model& from, const std::vector<PassToRun>& passes, bool verify, const TaskRunner::Control& control) {
    AppliedSteps applied;
    applied.asked = passes.size();
    std::optional<NumericChecker> checker;
    if (verify) {
        control.report(0, int(passes.size()), QObject::tr("Running the model for verification"));
        checker = checkerFor(from, applied.verifyError, applied.verifyNote);
    }
    for (size_t k = 0; k < passes.size(); ++k) {
        control.report(int(k), int(passes.size()),
                       QObject::tr("Applying pass %1 of %2: %3").arg(k + 1).arg(passes.size()).arg(QString::fromStdString(passes[k].id)));
        if (control.cancelled()) {
            applied.cancelled = true;
            break;
        }
        const Model& last = applied.steps.empty() ? from : applied.steps.back().model;
        try {
            applied.steps.push_back(runPassStep(passes[k].id, passes[k].pass, last, checker ? &*checker : nullptr));
        } catch (const std::exception& e) {
            applied.error = QObject::tr("Pass %1 failed: %2").arg(QString::fromStdString(passes[k].id), QString::fromUtf8(e.what()));
            break;
        }
    }
    return applied;
}

} // namespace graphlens
