// `graphlens conformance DIR [--backend cpu|vulkan] [--device N] [--filter REGEX] [--expect FILE]
// [--write-passing FILE]`: runs ONNX backend test cases (DIR/<case>/model.onnx +
// test_data_set_*/input_K.pb, output_K.pb). Each case runs in a child process with a time limit, so
// a crash or a hang is one failed case. On vulkan, cases with an op that has no shader are skipped,
// and without a Vulkan device the whole run prints "skipped: no Vulkan device" and exits with 77.
#include "app/cli/cli.h"
#include "app/cli/conformance_case.h"
#include "core/runtime/backend_registry.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSaveFile>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <set>

namespace graphlens::cli {
namespace {

/// Runs `caseDir` in a child process; returns its verdict (a crash or time-out becomes a failure).
CaseResult runIsolated(const QString& caseDir, int timeoutSeconds, const CaseOptions& options) {
    int fds[2];
    if (pipe(fds) != 0) return {CaseVerdict::Failed, "cannot create a pipe"};
    const pid_t child = fork();
    if (child < 0) return {CaseVerdict::Failed, "cannot fork"};
    if (child == 0) {
        ::close(fds[0]);
        const CaseResult r = runConformanceCase(caseDir.toStdString(), options);
        const std::string message = std::to_string(int(r.verdict)) + " " + r.message;
        [[maybe_unused]] ssize_t n = ::write(fds[1], message.data(), message.size());
        ::close(fds[1]);
        _exit(0);
    }
    ::close(fds[1]);
    std::string reply;
    pollfd pfd{fds[0], POLLIN, 0};
    int waitedMs = 0;
    bool timedOut = false;
    while (true) {
        const int ready = poll(&pfd, 1, 100);
        if (ready > 0) {
            char buffer[4096];
            const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
            if (n <= 0) break;
            reply.append(buffer, size_t(n));
        } else if ((waitedMs += 100) > timeoutSeconds * 1000) {
            timedOut = true;
            kill(child, SIGKILL);
            break;
        }
    }
    ::close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (timedOut) return {CaseVerdict::Failed, "did not finish within " + std::to_string(timeoutSeconds) + " s"};
    if (WIFSIGNALED(status)) return {CaseVerdict::Failed, "crashed with signal " + std::to_string(WTERMSIG(status))};
    if (reply.size() < 2) return {CaseVerdict::Failed, "the case runner reported nothing"};
    return {CaseVerdict(reply[0] - '0'), reply.substr(2)};
}

QStringList readCaseList(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
    QStringList names;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (!line.trimmed().isEmpty() && !line.startsWith('#')) names << QString::fromUtf8(line.trimmed());
    return names;
}

/// The exit status of a run skipped as a whole (ctest's SKIP_RETURN_CODE).
constexpr int kSkippedStatus = 77;

bool writeCaseList(const QString& path, const QStringList& names, const std::string& backend) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
    const std::string header = "# ONNX backend node cases that pass on the " + backend + " backend; written by\n"
                               "# graphlens conformance DIR --backend " + backend +
                               " --write-passing FILE. A listed case that stops passing fails ctest.\n";
    f.write(header.c_str());
    for (const QString& n : names) f.write(n.toUtf8() + "\n");
    return f.commit();
}

} // namespace

int runConformance(const QStringList& args) {
    QCommandLineParser parser;
    parser.setApplicationDescription("Run ONNX backend test cases.");
    parser.addPositionalArgument("DIR", "folder of cases (<case>/model.onnx, model.json or model.pb + test_data_set_*)");
    parser.addOption({"backend", "cpu or vulkan", "BACKEND", "cpu"});
    addDeviceOption(parser);
    parser.addOption({"filter", "run only cases whose name matches REGEX", "REGEX"});
    parser.addOption({"expect", "fail when a case listed in FILE does not pass", "FILE"});
    parser.addOption({"write-passing", "write the names of the passing cases to FILE", "FILE"});
    parser.addOption({"timeout", "seconds per case (default 60)", "S", "60"});
    parser.addOption({"verbose", "also list skipped cases"});
    parser.addOption({"reference", "run every node with its reference kernel"});
    parser.addOption({"rtol", "relative tolerance (default 1e-3, ONNX's)", "R", "1e-3"});
    parser.addOption({"atol", "absolute tolerance (default 1e-7, ONNX's)", "A", "1e-7"});
    if (auto status = parseArguments(parser, args)) return *status;
    if (parser.positionalArguments().size() != 1) return fail("conformance takes exactly one DIR argument");
    CaseOptions caseOptions;
    caseOptions.backend = parser.value("backend").toStdString();
    if (caseOptions.backend != "cpu" && caseOptions.backend != "vulkan")
        return fail("the backend '" + caseOptions.backend + "' is not known; use cpu or vulkan");
    bool deviceOk = false;
    caseOptions.device = parser.value("device").toInt(&deviceOk);
    if (!deviceOk || caseOptions.device < -1) return fail("--device takes a device index from `graphlens devices`");
    if (caseOptions.backend == "vulkan") {
        // Listed in this process, opened only in the children (no Vulkan state crosses fork()).
        const DeviceListing listing = listVulkanDevices();
        if (listing.devices.empty()) {
            std::cout << "skipped: no Vulkan device: " << listing.problem << std::endl;
            return kSkippedStatus;
        }
        if (caseOptions.device >= int(listing.devices.size()))
            return fail("there is no Vulkan device " + std::to_string(caseOptions.device) + " (see `graphlens devices`)");
    }
    const QDir dir(parser.positionalArguments()[0]);
    if (!dir.exists()) return fail("the folder '" + dir.path().toStdString() + "' does not exist");
    const QRegularExpression filter(parser.value("filter"));
    if (!filter.isValid()) return fail("the filter is not a valid regular expression: " + filter.errorString().toStdString());
    const int timeout = std::max(1, parser.value("timeout").toInt());
    caseOptions.referenceOnly = parser.isSet("reference");
    bool rtolOk = false, atolOk = false;
    caseOptions.rtol = parser.value("rtol").toDouble(&rtolOk);
    caseOptions.atol = parser.value("atol").toDouble(&atolOk);
    if (!rtolOk || !atolOk || caseOptions.rtol < 0 || caseOptions.atol < 0)
        return fail("--rtol and --atol take non-negative numbers");

    int passed = 0, failed = 0, skipped = 0;
    QStringList passing;
    std::map<std::string, int> skippedOps;
    for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        if (!filter.pattern().isEmpty() && !filter.match(name).hasMatch()) continue;
        if (!QFile::exists(dir.filePath(name + "/model.onnx")) && !QFile::exists(dir.filePath(name + "/model.json")) &&
            !QFile::exists(dir.filePath(name + "/model.pb")))
            continue;
        const CaseResult r = runIsolated(dir.filePath(name), timeout, caseOptions);
        switch (r.verdict) {
        case CaseVerdict::Passed: ++passed; passing << name; break;
        case CaseVerdict::Skipped:
            ++skipped;
            ++skippedOps[r.message];
            if (parser.isSet("verbose")) std::cout << "SKIP " << name.toStdString() << ": " << r.message << "\n";
            break;
        case CaseVerdict::Failed:
            ++failed;
            std::cout << "FAIL " << name.toStdString() << ": " << r.message << "\n";
            break;
        }
        std::cout.flush();
    }
    if (!skippedOps.empty()) {
        std::cout << "skipped, by reason:";
        for (const auto& [reason, count] : skippedOps) std::cout << "\n  " << count << "  " << reason;
        std::cout << "\n";
    }
    if (parser.isSet("write-passing") && !writeCaseList(parser.value("write-passing"), passing, caseOptions.backend))
        return fail("cannot write '" + parser.value("write-passing").toStdString() + "'");
    std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped" << std::endl;
    if (!parser.isSet("expect")) return failed ? 1 : 0;
    const QStringList expected = readCaseList(parser.value("expect"));
    if (expected.isEmpty()) return fail("the expectation list '" + parser.value("expect").toStdString() + "' is empty or missing");
    const std::set<QString> passedSet(passing.begin(), passing.end());
    int regressions = 0;
    for (const QString& name : expected)
        if ((filter.pattern().isEmpty() || filter.match(name).hasMatch()) && !passedSet.count(name)) {
            std::cout << "REGRESSION " << name.toStdString() << " is expected to pass\n";
            ++regressions;
        }
    if (regressions) return fail(std::to_string(regressions) + " expected cases no longer pass");
    return 0;
}

} // namespace graphlens::cli
