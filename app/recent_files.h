// The list behind File > Open Recent: the last models opened, newest first, kept in QSettings.
#pragma once

#include <QStringList>

namespace graphlens {

class RecentFiles {
public:
    static constexpr int kMaxFiles = 10;

    /// Absolute paths, newest first.
    QStringList paths() const;
    /// Puts `path` (made absolute) first, dropping an older entry for it and any beyond kMaxFiles.
    void add(const QString& path);
    void remove(const QString& path);

private:
    void store(const QStringList& paths);
};

} // namespace graphlens
