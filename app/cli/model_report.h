// Shared pieces of the model commands: loading with a user-facing error, and the JSON/text
// description of values and summaries.
#pragma once

#include "core/graph/model.h"
#include "core/graph/model_summary.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace graphlens::cli {

/// Loads `path`; on failure prints "graphlens: cannot load 'PATH': <reason>" and returns nullopt.
std::optional<Model> loadOrReport(const QString& path);

QJsonObject valueToJson(const Value& value);
QJsonObject modelInfoJson(const Model& model, const ModelSummary& summary);
QString modelInfoText(const Model& model, const ModelSummary& summary);

/// "1.23 GFLOPs", "456 kB", ... with SI prefixes.
QString humanCount(double value, const QString& unit);

} // namespace graphlens::cli
