// The default dock arrangement, one table of (dock, area) in tab order.
#include "app/dock_layout.h"

#include <QDockWidget>
#include <QMainWindow>

#include <algorithm>
#include <map>
#include <vector>

namespace graphlens {
namespace {

struct DockPlace {
    const char* name;
    Qt::DockWidgetArea area;
};

/// In tab order within each area; the first of an area is the tab raised.
constexpr DockPlace kPlaces[] = {
    {kPassesDock, Qt::LeftDockWidgetArea},       {kSearchDock, Qt::LeftDockWidgetArea},
    {kOutlineDock, Qt::LeftDockWidgetArea},      {kInspectorDock, Qt::RightDockWidgetArea},
    {kModelDock, Qt::RightDockWidgetArea},       {kRewriteLogDock, Qt::BottomDockWidgetArea},
    {kProfileDock, Qt::BottomDockWidgetArea},    {kComparisonDock, Qt::BottomDockWidgetArea},
};

QDockWidget* dockNamed(QMainWindow& window, const char* name) {
    return window.findChild<QDockWidget*>(QLatin1String(name), Qt::FindDirectChildrenOnly);
}

/// The first dock of `area` that `window` has.
QDockWidget* firstDockOf(QMainWindow& window, Qt::DockWidgetArea area) {
    for (const DockPlace& place : kPlaces)
        if (place.area == area)
            if (QDockWidget* dock = dockNamed(window, place.name)) return dock;
    return nullptr;
}

int clampedShare(int total, double share, int low, int high) { return std::clamp(int(total * share), low, high); }

} // namespace

void arrangeDefaultDocks(QMainWindow& window) {
    window.setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
    window.setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    window.setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    window.setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    std::map<Qt::DockWidgetArea, std::vector<QDockWidget*>> byArea;
    for (const DockPlace& place : kPlaces) {
        QDockWidget* dock = dockNamed(window, place.name);
        if (!dock) continue;
        dock->setFloating(false);
        window.removeDockWidget(dock);
        byArea[place.area].push_back(dock);
    }
    for (auto& [area, docks] : byArea) {
        for (size_t i = 0; i < docks.size(); ++i) {
            if (i == 0) window.addDockWidget(area, docks[i]);
            else window.tabifyDockWidget(docks.front(), docks[i]);
            docks[i]->setFloating(false);
            docks[i]->show();
        }
        docks.front()->raise();
    }
}

void sizeDefaultDocks(QMainWindow& window) {
    const QSize size = window.size();
    const auto resize = [&window](Qt::DockWidgetArea area, int extent, Qt::Orientation orientation) {
        if (QDockWidget* dock = firstDockOf(window, area)) window.resizeDocks({dock}, {extent}, orientation);
    };
    resize(Qt::LeftDockWidgetArea, clampedShare(size.width(), 0.16, 220, 300), Qt::Horizontal);
    resize(Qt::RightDockWidgetArea, clampedShare(size.width(), 0.21, 280, 400), Qt::Horizontal);
    resize(Qt::BottomDockWidgetArea, clampedShare(size.height(), 0.26, 190, 320), Qt::Vertical);
}

} // namespace graphlens
