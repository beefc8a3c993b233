#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QStatusBar;

namespace multilane {

class TransferController;
class TransferTableModel;

// The status bar's lasting part: the total speed and time left, how much of the list is done,
// the connections and why that many, the link and the chunk sizes in use, and a badge that says
// whether uploads move, wait for receivers (naming them) or find no network at all.
class StatusPanel : public QObject {
    Q_OBJECT
public:
    StatusPanel(TransferController &controller, TransferTableModel &model, QStatusBar *bar);

    void refresh();

    // What each part says now, for the title, the tray and tests.
    QString speedText() const;
    QString totalText() const;
    QString connectionsText() const;
    QString connectionsToolTip() const;
    QString linkText() const;
    QString badgeText() const;
    QString badgeToolTip() const;
    // The list's progress in whole percent (never 100 before every file is through).
    int percent() const { return m_percent; }

private:
    void refreshSpeed();
    void refreshConnections();
    void refreshLink();
    void refreshBadge();

    TransferController &m_controller;
    TransferTableModel &m_model;
    QLabel *m_speed;
    QLabel *m_total;
    QLabel *m_connections;
    QLabel *m_link;
    QLabel *m_badge;
    int m_percent = 0;
};

} // namespace multilane
