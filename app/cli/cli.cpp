// Subcommand dispatch and the top-level help.
#include "app/cli/cli.h"
#include "core/runtime/backend_registry.h"
#include "core/runtime/errors.h"

#include <QTextStream>

#include <array>
#include <iostream>

namespace graphlens::cli {
namespace {

struct Command {
    const char* name;
    int (*run)(const QStringList&);
    const char* summary;
};

constexpr std::array kCommands{
    Command{"info", runInfo, "info MODEL [--json]             inputs, outputs, ops, parameters, FLOPs"},
    Command{"optimize", runOptimize,
            "optimize MODEL -o OUT [--passes default|all|none|ID,...] [--verify] [--portable] [--json]   optimize"},
    Command{"passes", runPasses, "passes [ID] [--json]            the pass library; with ID, its explanation"},
    Command{"run", runRun,
            "run MODEL [--input NAME=FILE.pb] [--seed N] [--dim NAME=VALUE] [--passes ...] [--output-dir DIR]   run once"},
    Command{"bench", runBench,
            "bench MODEL [--runs N] [--warmup W] [--threads T] [--passes ...] [--json]   min/median/max latency"},
    Command{"profile", runProfile,
            "profile MODEL [--runs N] [--warmup W] [--passes ...] [--trace FILE.json] [--csv FILE] [--json]   per-node times"},
    Command{"compare", runCompare,
            "compare A [B] [--backend-a cpu|vulkan] [--backend-b cpu|vulkan] [--passes-b ...] [--bisect] [--json] [--heatmap OUT.svg|png]   node-by-node diff"},
    Command{"render", runRender,
            "render MODEL -o FILE.svg|png [--passes ...] [--collapse-depth N] [--heatmap time|memory [--profile FILE]]   draw the graph"},
    Command{"conformance", runConformance,
            "conformance DIR [--filter REGEX] [--expect FILE] [--write-passing FILE]   run ONNX backend test cases"},
    Command{"devices", runDevices, "devices [--json]                the Vulkan devices (--device N picks one)"},
};

void printUsage(std::ostream& out) {
    out << "usage: graphlens [MODEL] [--apply-all]   open the window (--apply-all: every lossless pass)\n";
    out << "       graphlens MODEL --screenshot FILE.png [--apply-all] [--profile] [--size WxH]   the window after its first paint, as a PNG (default 1600x1000; --profile: with the time heatmap)\n";
    for (const Command& c : kCommands) out << "       graphlens " << c.summary << "\n";
    out << "       graphlens --version\n"
        << "Each command takes --help.\n";
}

} // namespace

bool isCommand(const QString& word) {
    if (word == "help" || word == "--help" || word == "-h" || word == "--version") return true;
    for (const Command& c : kCommands)
        if (word == QLatin1String(c.name)) return true;
    return false;
}

bool commandNeedsGui(const QString& word) { return word == "render" || word == "compare"; }

int fail(const std::string& message) {
    // Names from a file may hold control characters; the error stays one line.
    std::string line;
    for (unsigned char c : message) {
        if (c == '\n') line += "\\n";
        else if (c < 0x20 || c == 0x7f) line += "\\x" + std::string(1, "0123456789abcdef"[c >> 4]) + "0123456789abcdef"[c & 15];
        else line += char(c);
    }
    std::cerr << "graphlens: " << line << std::endl;
    return 1;
}

std::optional<int> parseArguments(QCommandLineParser& parser, const QStringList& args) {
    const QCommandLineOption help({"h", "help"}, "show this help");
    parser.addOption(help);
    if (!parser.parse(args)) return fail(parser.errorText().toStdString());
    if (parser.isSet(help)) {
        QString text = parser.helpText();  // "Usage: <argv0> [options] ...": name the subcommand
        const qsizetype start = text.indexOf("Usage: ") + 7, end = text.indexOf(' ', start);
        if (start >= 7 && end > start) text.replace(start, end - start, "graphlens " + args.value(0));
        std::cout << text.toStdString();
        return 0;
    }
    return std::nullopt;
}

void addDeviceOption(QCommandLineParser& parser) {
    parser.addOption({"device", "Vulkan device index (see `graphlens devices`; default: the preferred one)", "N", "-1"});
}

std::unique_ptr<Backend> openBackendOrThrow(const QCommandLineParser& parser, bool fallBackToCpu) {
    const std::string name = parser.value("backend").toStdString();
    bool ok = false;
    const int device = parser.value("device").toInt(&ok);
    if (!ok || device < -1) throw std::runtime_error("--device takes a device index from `graphlens devices`");
    if (name != "cpu" && name != "vulkan") throw std::runtime_error("the backend '" + name + "' is not known; use cpu or vulkan");
    try {
        return makeBackend(name, device);
    } catch (const ExecutionError& e) {
        // Only a missing device falls back; a device index the machine does not have is a mistake.
        if (!fallBackToCpu || e.kind() != ErrorKind::NoDevice) throw std::runtime_error(e.what());
        std::cerr << "graphlens: " << e.what() << "; running on the CPU backend" << std::endl;
    }
    return makeBackend("cpu");
}

std::unique_ptr<Backend> openBackend(const QCommandLineParser& parser, bool fallBackToCpu) {
    try {
        return openBackendOrThrow(parser, fallBackToCpu);
    } catch (const std::runtime_error& e) {
        fail(e.what());
        return nullptr;
    }
}

int run(const QStringList& args) {
    const QString name = args.value(0);
    if (name == "--version") {
        std::cout << "graphlens " << GRAPHLENS_VERSION << std::endl;
        return 0;
    }
    if (name == "help" || name == "--help" || name == "-h") {
        printUsage(std::cout);
        return 0;
    }
    for (const Command& c : kCommands)
        if (name == QLatin1String(c.name)) return c.run(args);
    printUsage(std::cerr);
    return 2;
}

} // namespace graphlens::cli
