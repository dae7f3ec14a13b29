// A one-line label that never asks for the width of its text: it takes the width its layout
// gives it and elides the text at the right end, with the whole text as its tooltip. Captions
// over side-by-side panes use it so a longer caption never moves the splitter between them.
#pragma once

#include <QLabel>
#include <QPainter>
#include <QStyle>

namespace graphlens {

class ElidedLabel : public QLabel {
public:
    using QLabel::QLabel;

    QSize minimumSizeHint() const override { return {0, QLabel::minimumSizeHint().height()}; }
    QSize sizeHint() const override { return {0, QLabel::sizeHint().height()}; }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        const QRect area = contentsRect();
        const QString shown = fontMetrics().elidedText(text(), Qt::ElideRight, area.width());
        setToolTip(shown == text() ? QString() : text());
        style()->drawItemText(&painter, area, int(alignment()) | Qt::TextSingleLine, palette(), isEnabled(), shown,
                              foregroundRole());
    }
};

} // namespace graphlens
