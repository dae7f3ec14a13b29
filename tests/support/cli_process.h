// Running the `graphlens` binary from a test: its exit status and both streams, and the check
// every bad-input case shares (status 1, one line on stderr starting "graphlens: ", no stdout).
#pragma once

#include <QProcess>
#include <QStringList>
#include <QtTest>

namespace graphlens::testing {

struct CliResult {
    int status = -1;  ///< -1 when the process crashed or did not finish
    QByteArray out;
    QByteArray err;
};

inline CliResult runGraphlens(const QStringList& args,
                              const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                              int timeoutMs = 120000) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(GRAPHLENS_BINARY), args);
    p.waitForFinished(timeoutMs);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

/// `r` is a bad-input failure whose one-line message contains `fragment`.
inline void verifyOneLineError(const CliResult& r, const QByteArray& fragment) {
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.startsWith("graphlens: "), r.err.constData());
    QVERIFY2(r.err.contains(fragment), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY(r.out.isEmpty());
}

} // namespace graphlens::testing
