// The --passes option shared by optimize, run and bench, and the pass table/JSON they print.
#pragma once

#include "core/graph/model.h"
#include "core/passes/pass_manager.h"

#include <QCommandLineParser>
#include <QJsonObject>

namespace graphlens::cli {

/// Adds --passes with `defaultPipeline` as its default, and --calibration DIR (quantize-int8).
void addPassOption(QCommandLineParser& parser, const QString& defaultPipeline);

/// Reads the --calibration input sets into `context` (quantize-int8's activation ranges); throws
/// std::runtime_error with one sentence naming the folder or file that does not fit `model`.
void applyCalibrationOption(PassContext& context, const Model& model, const QCommandLineParser& parser);

/// Runs the --passes pipeline on `model` without verification. Throws PassError for an unknown
/// pass id.
PipelineReport applyPassOption(Model& model, const QCommandLineParser& parser);

/// One JSON object per pass run: id, rewrites, nodes_before, nodes_after, ms, counters, and
/// with verification max_abs_error, max_rel_error, verified; with `log` the rewrites and the
/// reasons patterns declined.
QJsonObject passRunJson(const PassRun& run, bool log);

/// The table optimize prints: pass, rewrites, nodes before -> after, ms, max error.
std::string passTable(const PipelineReport& report, bool verified);

} // namespace graphlens::cli
