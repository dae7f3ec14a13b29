// Panel orientation: one rule for every panel of the Profile dock.
#include "app/panel_orientation.h"

#include <QBoxLayout>
#include <QWidget>

namespace graphlens {

bool sideBySide(QSize size) { return size.width() >= 640 && size.width() >= 2 * size.height(); }

QBoxLayout* arrangeControlsAndContent(QWidget& panel, QWidget& controls, QWidget& content) {
    auto* box = new QBoxLayout(QBoxLayout::TopToBottom, &panel);
    box->setContentsMargins(4, 4, 4, 4);
    box->addWidget(&controls);
    box->addWidget(&content, 1);
    panel.setMinimumSize(kPanelMinimumSize);
    return box;
}

void orientControls(QBoxLayout& box, QWidget& controls, QSize size, int columnWidth) {
    const bool beside = sideBySide(size);
    const QBoxLayout::Direction direction = beside ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (box.direction() != direction) box.setDirection(direction);
    if (beside) controls.setFixedWidth(columnWidth);
    else {
        controls.setMinimumWidth(0);
        controls.setMaximumWidth(QWIDGETSIZE_MAX);
    }
}

} // namespace graphlens
