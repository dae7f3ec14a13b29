// The --passes option and the pass report.
#include "app/cli/pass_options.h"

#include "core/passes/calibration.h"
#include "core/passes/pass_registry.h"

#include <QJsonArray>

#include <cstdio>

namespace graphlens::cli {

void addPassOption(QCommandLineParser& parser, const QString& defaultPipeline) {
    parser.addOption({"passes",
                      "optimization pipeline: default (every lossless pass), all, none, or pass ids "
                      "separated by commas (see `graphlens passes`); default " + defaultPipeline,
                      "PASSES", defaultPipeline});
    parser.addOption({"calibration",
                      "quantize-int8: calibrate activation ranges on the ONNX TensorProto inputs of DIR "
                      "(DIR/test_data_set_N/input_K.pb or DIR/input_K.pb); default: 4 seeded random input sets",
                      "DIR"});
}

void applyCalibrationOption(PassContext& context, const Model& model, const QCommandLineParser& parser) {
    if (!parser.isSet("calibration")) return;
    const std::string dir = parser.value("calibration").toStdString();
    context.calibration.inputSets = readCalibrationSets(dir, model.graph);
    context.calibration.source = dir;
}

PipelineReport applyPassOption(Model& model, const QCommandLineParser& parser) {
    const auto passes = makePipeline(parser.value("passes").toStdString());
    PassContext context = contextFor(model);
    applyCalibrationOption(context, model, parser);
    return runPipeline(model, passes, context, {});
}

namespace {

QJsonArray nodeRefs(const std::vector<NodeRef>& nodes) {
    QJsonArray array;
    for (const NodeRef& n : nodes)
        array.append(QJsonObject{{"id", n.id}, {"name", QString::fromStdString(n.name)},
                                 {"op_type", QString::fromStdString(n.opType)}});
    return array;
}

QJsonArray rewriteLog(const PassResult& r) {
    QJsonArray log;
    for (const Rewrite& w : r.rewrites)
        log.append(QJsonObject{{"kind", QString::fromStdString(w.kind)},
                               {"sentence", QString::fromStdString(w.sentence)},
                               {"removed", nodeRefs(w.removed)},
                               {"added", nodeRefs(w.added)}});
    return log;
}

QJsonArray declineLog(const PassResult& r) {
    QJsonArray log;
    for (const Decline& d : r.declines)
        log.append(QJsonObject{{"node", QString::fromStdString(d.node.name)},
                               {"op_type", QString::fromStdString(d.node.opType)},
                               {"reason", QString::fromStdString(d.reason)}});
    return log;
}

} // namespace

QJsonObject passRunJson(const PassRun& run, bool log) {
    const PassResult& r = run.result;
    QJsonObject counters;
    for (const auto& [name, value] : r.counters) counters[QString::fromStdString(name)] = qint64(value);
    QJsonObject json{{"id", QString::fromStdString(r.passId)},
                     {"rewrites", qint64(r.rewrites.size())},
                     {"nodes_before", qint64(r.nodesBefore)},
                     {"nodes_after", qint64(r.nodesAfter)},
                     {"ms", r.milliseconds},
                     {"converged", r.converged},
                     {"lossy", r.lossy},
                     {"counters", counters}};
    if (!r.notes.empty()) {
        QJsonArray notes;
        for (const std::string& n : r.notes) notes.append(QString::fromStdString(n));
        json["notes"] = notes;
    }
    if (run.verification) {
        const VerifyReport& v = *run.verification;
        json["max_abs_error"] = v.maxAbsError;
        json["max_rel_error"] = v.maxRelError;
        json["verified"] = v.passed;
        json["tensors_compared"] = qint64(v.outputsCompared + v.intermediatesCompared);
        if (!v.passed) json["verify_failure"] = QString::fromStdString(v.failure);
        json["reverted"] = run.reverted;
    }
    if (log) {
        json["log"] = rewriteLog(r);
        json["declined"] = declineLog(r);
    }
    return json;
}

std::string passTable(const PipelineReport& report, bool verified) {
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%-34s %8s %15s %9s%s\n", "pass", "rewrites", "nodes", "ms",
                  verified ? "   max abs err   max rel err" : "");
    out += line;
    for (const PassRun& run : report.passes) {
        const PassResult& r = run.result;
        const std::string nodes = std::to_string(r.nodesBefore) + " -> " + std::to_string(r.nodesAfter);
        std::snprintf(line, sizeof line, "%-34s %8zu %15s %9.2f", r.passId.c_str(), r.rewrites.size(), nodes.c_str(),
                      r.milliseconds);
        out += line;
        if (run.verification) {
            std::snprintf(line, sizeof line, "   %11.3g   %11.3g%s", run.verification->maxAbsError,
                          run.verification->maxRelError,
                          run.reverted                   ? "  FAILED, undone"
                          : run.verification->passed     ? ""
                          : run.result.lossy             ? "  (lossy: reported, not enforced)"
                                                         : "  FAILED");
            out += line;
        }
        out += "\n";
    }
    std::snprintf(line, sizeof line, "nodes: %zu -> %zu\n", report.nodesBefore, report.nodesAfter);
    out += line;
    return out;
}

} // namespace graphlens::cli
