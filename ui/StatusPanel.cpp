#include "StatusPanel.h"

#include "TransferController.h"
#include "TransferTableModel.h"
#include "Units.h"

#include <QLabel>
#include <QStatusBar>

namespace multilane {

static QString badgeStyle(const char *colour)
{
    return QStringLiteral("QLabel { background: %1; color: white; border-radius: 3px; padding: 0 4px; }")
        .arg(QLatin1String(colour));
}

StatusPanel::StatusPanel(TransferController &controller, TransferTableModel &model, QStatusBar *bar)
    : QObject(bar)
    , m_controller(controller)
    , m_model(model)
    , m_speed(new QLabel(bar))
    , m_total(new QLabel(bar))
    , m_connections(new QLabel(bar))
    , m_link(new QLabel(bar))
    , m_badge(new QLabel(bar))
{
    m_speed->setAccessibleName(tr("Total speed and time left"));
    m_total->setAccessibleName(tr("Overall progress"));
    m_connections->setAccessibleName(tr("Connections"));
    m_link->setAccessibleName(tr("Measured link and chunk size"));
    m_badge->setAccessibleName(tr("Network state"));
    m_badge->setMargin(2);
    bar->addWidget(m_speed);
    bar->addWidget(m_total, 1);
    bar->addPermanentWidget(m_connections);
    bar->addPermanentWidget(m_link);
    bar->addPermanentWidget(m_badge);
}

void StatusPanel::refresh()
{
    const TransferTableModel::Totals totals = m_model.totals();
    m_percent = totals.bytesTotal > 0 ? int(100 * totals.bytesDone / totals.bytesTotal) : 0;
    if (totals.finished + totals.failed < totals.files)
        m_percent = std::min(m_percent, 99);
    QString text = tr("Drop files to start");
    if (totals.files > 0) {
        text = tr("%1 of %2 · %3 of %n file(s)", nullptr, totals.files)
                   .arg(Units::size(totals.bytesDone), Units::size(totals.bytesTotal))
                   .arg(totals.finished);
        if (totals.failed > 0)
            text += tr(" · %n failed", nullptr, totals.failed);
    }
    m_total->setText(text);
    refreshSpeed();
    refreshConnections();
    refreshLink();
    refreshBadge();
}

void StatusPanel::refreshSpeed()
{
    const TransferTableModel::Totals totals = m_model.totals();
    QString text;
    if (!m_controller.isBusy())
        text = tr("↑ idle");
    else if (m_controller.isPaused())
        text = tr("↑ paused");
    else if (!m_controller.isOnline())
        text = tr("↑ waiting");
    else if (!totals.bytesPerSecond)
        text = tr("↑ —"); // nothing moving yet, or less than a second of it measured
    else if (totals.secondsLeft)
        text = tr("↑ %1 · %2 left")
                   .arg(Units::rate(*totals.bytesPerSecond), Units::duration(totals.secondsLeft));
    else
        text = tr("↑ %1").arg(Units::rate(*totals.bytesPerSecond));
    m_speed->setText(text);
    m_speed->setToolTip(tr("What the receivers acknowledged, averaged over the last few seconds; the "
                           "time left follows it."));
}

void StatusPanel::refreshConnections()
{
    const TransferProgress p = m_controller.totals();
    // Only while bytes may move: paused or waiting, the level is no connection open.
    const bool shown =
        m_controller.isBusy() && !m_controller.isPaused() && m_controller.isOnline() && p.connections > 0;
    m_connections->setVisible(shown);
    m_connections->setText(shown ? tr("%n connection(s)", nullptr, p.connections) : QString());
    QStringList open;
    for (const auto &[name, count] : m_controller.connectionsPerEndpoint())
        open.append(tr("%1: %n open", nullptr, count).arg(name));
    QString tip = p.connectionsReason;
    if (!open.isEmpty())
        tip += QLatin1Char('\n') + tr("Open now: %1").arg(open.join(QStringLiteral(", ")));
    m_connections->setToolTip(tip);
}

void StatusPanel::refreshLink()
{
    const std::optional<LinkEstimate> &link = m_controller.link();
    QString text = m_controller.isMeasuringLink() ? tr("Uplink: measuring…")
                   : link                         ? tr("Uplink %1, round trip %2 ms")
                                .arg(Units::rate(link->bytesPerSecond))
                                .arg(link->rttMs, 0, 'f', link->rttMs < 10 ? 1 : 0)
                   : m_controller.measuresLinkWhenIdle() ? tr("Uplink: measured when the uploads are done")
                                                         : tr("Uplink not measured");
    // The chunks really sent, not a setting: each file's are sized for the link and the connections.
    const auto [smallest, biggest] = m_controller.chunkSizesInUse();
    if (biggest > 0)
        text += smallest == biggest ? tr(" · chunks %1").arg(Units::size(biggest))
                                    : tr(" · chunks %1–%2").arg(Units::size(smallest), Units::size(biggest));
    m_link->setText(text);
    m_link->setToolTip(
        tr("The uplink is measured when the window opens, when the endpoints change and when the network "
           "comes back, never while an upload runs (it would measure what the upload leaves). Chunks: the "
           "pieces the files being sent now are cut into; with the automatic "
           "chunk size each file's are sized for the link and the number of connections, and small files "
           "go whole."));
}

void StatusPanel::refreshBadge()
{
    const bool busy = m_controller.isBusy();
    const QStringList down = m_controller.downEndpoints();
    QString text, tip;
    const char *colour = "#2e8b57";
    if (m_controller.isPaused()) {
        text = tr("Paused");
        tip = tr("Everything is paused; Resume all (Ctrl+Shift+P) goes on where it stopped.");
        colour = "#8a8f96";
    } else if (m_controller.systemSaysOffline()) {
        text = tr("Offline");
        tip = tr("The system reports no network connection. Uploads wait and go on by themselves when it "
                 "is back.");
        colour = "#c0392b";
    } else if (busy && !m_controller.isOnline()) {
        text = tr("Waiting for receivers");
        tip = tr("No endpoint answers:\n%1\nMultilane checks again by itself and goes on when one answers.")
                  .arg(down.join(QLatin1Char('\n')));
        colour = "#c0392b";
    } else if (busy && !down.isEmpty()) {
        text = tr("Online · %n not answering", nullptr, int(down.size()));
        tip = tr("Sending to the others. Not answering:\n%1").arg(down.join(QLatin1Char('\n')));
        colour = "#b9770e";
    } else {
        text = busy ? tr("Online") : tr("Ready");
        tip = busy ? tr("Every endpoint answers.") : tr("Nothing to send.");
    }
    m_badge->setText(text);
    m_badge->setToolTip(tip);
    m_badge->setStyleSheet(badgeStyle(colour));
}

QString StatusPanel::speedText() const
{
    return m_speed->text();
}

QString StatusPanel::totalText() const
{
    return m_total->text();
}

QString StatusPanel::connectionsText() const
{
    return m_connections->text();
}

QString StatusPanel::connectionsToolTip() const
{
    return m_connections->toolTip();
}

QString StatusPanel::linkText() const
{
    return m_link->text();
}

QString StatusPanel::badgeText() const
{
    return m_badge->text();
}

QString StatusPanel::badgeToolTip() const
{
    return m_badge->toolTip();
}

} // namespace multilane
