// The `graphlens` subcommands: one function each, looked up by name. Every command prints errors
// as one sentence on stderr and returns the process exit status.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

#include <memory>
#include <optional>

#include <cstdio>
#include <string>

namespace graphlens {
class Backend;
}

namespace graphlens::cli {

/// True when `word` names a subcommand (so main() runs headless).
bool isCommand(const QString& word);

/// True when subcommand `word` paints (render): main() starts an offscreen QApplication for it.
bool commandNeedsGui(const QString& word);

/// Runs `args` (args[0] is the subcommand) and returns the exit status.
int run(const QStringList& args);

/// Prints "graphlens: <message>" on stderr; returns 1, the status for bad input.
int fail(const std::string& message);

/// Parses `args` with --help added: returns the exit status when the command should stop (help
/// printed: 0; bad option: 1 after one error line), nullopt when it should go on.
std::optional<int> parseArguments(QCommandLineParser& parser, const QStringList& args);

/// Adds --device N (the Vulkan device, as `graphlens devices` numbers them).
void addDeviceOption(QCommandLineParser& parser);

/// The backend named by --backend on the device of --device. With `fallBackToCpu`, a vulkan
/// request on a machine without a Vulkan device prints "no Vulkan device: ...; running on the CPU
/// backend" on stderr and returns the CPU backend. Prints the error and returns nullptr for an
/// unknown backend, a bad --device, or (without the fallback) a missing device.
std::unique_ptr<Backend> openBackend(const QCommandLineParser& parser, bool fallBackToCpu);
/// openBackend for code that reports errors by exception: throws std::runtime_error with the
/// sentence instead of printing it.
std::unique_ptr<Backend> openBackendOrThrow(const QCommandLineParser& parser, bool fallBackToCpu);

int runInfo(const QStringList& args);
int runOptimize(const QStringList& args);
int runConformance(const QStringList& args);
int runRun(const QStringList& args);
int runBench(const QStringList& args);
int runProfile(const QStringList& args);
int runPasses(const QStringList& args);
int runRender(const QStringList& args);
int runDevices(const QStringList& args);
int runCompare(const QStringList& args);

} // namespace graphlens::cli
