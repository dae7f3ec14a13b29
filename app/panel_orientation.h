// How the panels of the Profile dock arrange their controls and their table or chart: beside each
// other in a wide and short area (the dock as a tab strip below the graphs), one above the other
// in a narrow column (the dock at a side of the window), so neither is squeezed to nothing.
#pragma once

#include <QSize>

class QBoxLayout;
class QWidget;

namespace graphlens {

/// Whether an area of `size` is wide and short enough for the controls to sit beside the content.
bool sideBySide(QSize size);

/// The least size a panel asks for, whatever its orientation: set explicitly, so the minimum of
/// the stacked arrangement does not force a short dock taller and keep the panel from turning.
constexpr QSize kPanelMinimumSize(240, 160);

/// Lays `panel` out as `controls` then `content` (which takes the space left), stacked until
/// orientControls() turns them, and gives the panel kPanelMinimumSize. Returns the layout.
QBoxLayout* arrangeControlsAndContent(QWidget& panel, QWidget& controls, QWidget& content);

/// Turns `box` (the controls, then the content) to suit an area of `size`: side by side, the
/// controls take a column `columnWidth` wide; stacked, they take the full width.
void orientControls(QBoxLayout& box, QWidget& controls, QSize size, int columnWidth);

} // namespace graphlens
