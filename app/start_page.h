// What the central area shows while no model is open: an Open button, the recent files (a click
// opens one) and a hint that a model can be dropped on the window.
#pragma once

#include <QWidget>

class QListWidget;
class QPushButton;

namespace graphlens {

class StartPage : public QWidget {
    Q_OBJECT
public:
    explicit StartPage(QWidget* parent = nullptr);

    /// Lists `paths` (absolute, newest first) under "Recent models"; the list hides when empty.
    void setRecentFiles(const QStringList& paths);

    QPushButton* openButton() const { return open_; }
    /// One row per recent file: the file name, its folder below; Qt::UserRole holds the path.
    QListWidget* recentList() const { return recent_; }

signals:
    void openRequested();
    void recentRequested(const QString& path);

private:
    QPushButton* open_ = nullptr;
    QWidget* recentTitle_ = nullptr;
    QListWidget* recent_ = nullptr;
};

} // namespace graphlens
