// Loading for the CLI and the info report in text and JSON.
#include "app/cli/model_report.h"

#include "app/cli/cli.h"
#include "core/import/open_model.h"
#include "core/onnx/onnx_error.h"

#include <QFileInfo>

#include <cmath>

namespace graphlens::cli {

std::optional<Model> loadOrReport(const QString& path) {
    const std::string shown = path.toStdString();
    if (!QFileInfo::exists(path)) {
        fail("cannot load '" + shown + "': the file does not exist");
        return std::nullopt;
    }
    try {
        return openModel(path.toStdString());
    } catch (const OnnxError& e) {
        fail("cannot load '" + shown + "': " + e.what());
    } catch (const std::bad_alloc&) {
        fail("cannot load '" + shown + "': not enough memory");
    } catch (const std::exception& e) {
        fail("cannot load '" + shown + "': " + e.what());
    }
    return std::nullopt;
}

QJsonObject valueToJson(const Value& value) {
    QJsonArray shape;
    for (const Dim& d : value.shape.dims()) {
        if (d.isStatic()) shape.append(qint64(d.size()));
        else if (d.isSymbolic()) shape.append(QString::fromStdString(d.symbol()));
        else shape.append(QJsonValue());
    }
    QJsonObject o{{"name", QString::fromStdString(value.name)},
                  {"type", QString::fromUtf8(dtypeName(value.dtype).data())}};
    o["shape"] = value.shape.rankKnown() ? QJsonValue(shape) : QJsonValue();
    return o;
}

namespace {

std::vector<const Value*> realInputs(const Graph& g) {
    std::vector<const Value*> out;
    for (ValueId v : g.inputs())
        if (!g.value(v).initializer) out.push_back(&g.value(v));
    return out;
}

QString opsetText(const Model& model) {
    QStringList parts;
    for (const OpsetImport& o : model.opsets)
        parts << QString("%1 %2").arg(o.domain.empty() ? "ai.onnx" : QString::fromStdString(o.domain))
                     .arg(o.version);
    return parts.join(", ");
}

} // namespace

QJsonObject modelInfoJson(const Model& model, const ModelSummary& summary) {
    const Graph& g = model.graph;
    QJsonArray inputs, outputs, opsets, warnings;
    for (const Value* v : realInputs(g)) inputs.append(valueToJson(*v));
    for (ValueId v : g.outputs()) outputs.append(valueToJson(g.value(v)));
    for (const OpsetImport& o : model.opsets)
        opsets.append(QJsonObject{{"domain", QString::fromStdString(o.domain)}, {"version", qint64(o.version)}});
    for (const std::string& w : model.warnings) warnings.append(QString::fromStdString(w));
    QJsonObject ops;
    for (const auto& [op, count] : summary.ops) ops[QString::fromStdString(op)] = count;
    return QJsonObject{
        {"graph", QString::fromStdString(g.name)},
        {"producer", QString::fromStdString(model.producerName)},
        {"producer_version", QString::fromStdString(model.producerVersion)},
        {"ir_version", qint64(model.irVersion)},
        {"opsets", opsets},
        {"inputs", inputs},
        {"outputs", outputs},
        {"nodes", qint64(summary.nodes)},
        {"ops", ops},
        {"initializers", qint64(summary.initializers)},
        {"parameters", qint64(summary.parameters)},
        {"parameter_bytes", qint64(summary.parameterBytes)},
        {"flops", qint64(summary.flops)},
        {"warnings", warnings},
    };
}

QString humanCount(double value, const QString& unit) {
    static const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
    int i = 0;
    while (std::fabs(value) >= 1000 && i < 5) {
        value /= 1000;
        ++i;
    }
    return i == 0 ? QString("%1 %2").arg(value).arg(unit)
                  : QString("%1 %2%3").arg(value, 0, 'f', 2).arg(prefixes[i]).arg(unit);
}

QString modelInfoText(const Model& model, const ModelSummary& summary) {
    const Graph& g = model.graph;
    QString out;
    QTextStream s(&out);
    auto valueLine = [](const Value& v) {
        return QString("  %1: %2 %3\n").arg(QString::fromStdString(v.name),
                                            QString::fromUtf8(dtypeName(v.dtype).data()),
                                            QString::fromStdString(v.shape.toString()));
    };
    s << "producer:    " << QString::fromStdString(model.producerName + " " + model.producerVersion).trimmed() << "\n";
    s << "ir version:  " << model.irVersion << "\n";
    s << "opsets:      " << opsetText(model) << "\n";
    s << "inputs:\n";
    for (const Value* v : realInputs(g)) s << valueLine(*v);
    s << "outputs:\n";
    for (ValueId v : g.outputs()) s << valueLine(g.value(v));
    s << "nodes:       " << summary.nodes << "\n";
    s << "parameters:  " << QString("%L1").arg(summary.parameters) << " ("
      << humanCount(double(summary.parameterBytes), "B") << ") in " << summary.initializers
      << " initializers\n";
    s << "flops:       " << humanCount(double(summary.flops), "FLOPs") << " (estimated over "
      << summary.nodesWithFlops << " Conv/ConvTranspose/Gemm/MatMul nodes"
      << QString::fromStdString(summary.unitDims.empty() ? "" : ", " + unitDimsNote(summary.unitDims)) << ")\n";
    s << "ops:\n";
    std::vector<std::pair<int, std::string>> byCount;
    for (const auto& [op, count] : summary.ops) byCount.emplace_back(-count, op);
    std::sort(byCount.begin(), byCount.end());
    for (const auto& [negCount, op] : byCount)
        s << QString("  %1 %2\n").arg(-negCount, 6).arg(QString::fromStdString(op));
    for (const std::string& w : model.warnings) s << "warning: " << QString::fromStdString(w) << "\n";
    return out;
}

} // namespace graphlens::cli
