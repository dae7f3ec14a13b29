// StartPage: a centered column of title, Open button, recent files and the drop hint.
#include "app/start_page.h"

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace graphlens {
namespace {

QLabel* scaledLabel(const QString& text, double scale, bool bold, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    QFont font = label->font();
    font.setPointSizeF(font.pointSizeF() * scale);
    font.setBold(bold);
    label->setFont(font);
    label->setWordWrap(true);
    return label;
}

} // namespace

StartPage::StartPage(QWidget* parent) : QWidget(parent) {
    setObjectName("startPage");
    auto* column = new QWidget(this);
    column->setMaximumWidth(560);
    auto* layout = new QVBoxLayout(column);
    layout->setSpacing(12);
    layout->addWidget(scaledLabel(tr("GraphLens"), 2.0, true, column));
    layout->addWidget(scaledLabel(tr("Open an ONNX model to see its graph, optimize it pass by pass with the "
                                     "graph before and after each step, and profile it."),
                                  1.1, false, column));
    open_ = new QPushButton(tr("Open model…"), column);
    open_->setObjectName("startOpenButton");
    open_->setDefault(true);
    layout->addWidget(open_, 0, Qt::AlignLeft);
    layout->addWidget(scaledLabel(tr("or drop an .onnx, TF.js model.json or TensorFlow .pb file anywhere on this window"), 1.0, false, column));
    layout->addSpacing(12);
    recentTitle_ = scaledLabel(tr("Recent models"), 1.1, true, column);
    layout->addWidget(recentTitle_);
    recent_ = new QListWidget(column);
    recent_->setObjectName("startRecentList");
    recent_->setCursor(Qt::PointingHandCursor);
    recent_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);  // as tall as its rows
    recent_->setMaximumHeight(360);
    recent_->setSpacing(2);
    layout->addWidget(recent_);

    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(column, 3);
    row->addStretch(1);
    auto* outer = new QVBoxLayout(this);
    outer->addStretch(1);
    outer->addLayout(row);
    outer->addStretch(3);
    connect(open_, &QPushButton::clicked, this, &StartPage::openRequested);
    connect(recent_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) { emit recentRequested(item->data(Qt::UserRole).toString()); });
    connect(recent_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) { emit recentRequested(item->data(Qt::UserRole).toString()); });
    setRecentFiles({});
}

void StartPage::setRecentFiles(const QStringList& paths) {
    recent_->clear();
    for (const QString& path : paths) {
        const QFileInfo info(path);
        auto* item = new QListWidgetItem(QStringLiteral("%1\n%2").arg(info.fileName(), QDir::toNativeSeparators(info.path())), recent_);
        item->setData(Qt::UserRole, path);
        item->setToolTip(path);
    }
    recentTitle_->setVisible(!paths.isEmpty());
    recent_->setVisible(!paths.isEmpty());
}

} // namespace graphlens
