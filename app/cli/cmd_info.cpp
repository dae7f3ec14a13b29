// `graphlens info MODEL [--json]`.
#include "app/cli/cli.h"
#include "app/cli/model_report.h"

#include <QCommandLineParser>
#include <QJsonDocument>

#include <iostream>

namespace graphlens::cli {

int runInfo(const QStringList& args) {
    QCommandLineParser parser;
    parser.setApplicationDescription("Describe an ONNX model.");
    parser.addPositionalArgument("MODEL", "the .onnx file");
    parser.addOption({"json", "print JSON instead of text"});
    if (auto status = parseArguments(parser, args)) return *status;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) return fail("info takes exactly one MODEL argument");
    auto model = loadOrReport(positional[0]);
    if (!model) return 1;
    const ModelSummary summary = summarize(*model);
    if (parser.isSet("json")) {
        QJsonObject json = modelInfoJson(*model, summary);
        json["model"] = positional[0];
        std::cout << QJsonDocument(json).toJson(QJsonDocument::Indented).toStdString();
    } else {
        std::cout << "model:       " << positional[0].toStdString() << "\n"
                  << modelInfoText(*model, summary).toStdString();
    }
    return 0;
}

} // namespace graphlens::cli
