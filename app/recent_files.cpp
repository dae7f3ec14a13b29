// RecentFiles: one string list under the key "recentFiles" of the application's QSettings.
#include "app/recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace graphlens {
namespace {

constexpr auto kKey = "recentFiles";

} // namespace

QStringList RecentFiles::paths() const { return QSettings().value(kKey).toStringList(); }

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = paths();
    list.removeAll(absolute);
    list.prepend(absolute);
    store(list.mid(0, kMaxFiles));
}

void RecentFiles::remove(const QString& path) {
    QStringList list = paths();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    store(list);
}

void RecentFiles::store(const QStringList& paths) { QSettings().setValue(kKey, paths); }

} // namespace graphlens
