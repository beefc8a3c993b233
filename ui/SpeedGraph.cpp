#include "SpeedGraph.h"

#include "Units.h"

#include <QPainter>
#include <QPainterPath>

namespace multilane {

SpeedGraph::SpeedGraph(QWidget *parent)
    : QWidget(parent)
{
    setAccessibleName(tr("Upload speed graph"));
    setToolTip(tr("Total upload speed over the last three minutes"));
}

void SpeedGraph::addSample(qint64 nowMs, double bytesPerSecond)
{
    m_nowMs = nowMs;
    m_history.add(nowMs, bytesPerSecond);
    update();
}

void SpeedGraph::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF area = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    painter.setPen(palette().color(QPalette::Mid));
    painter.setBrush(palette().color(QPalette::Base));
    painter.drawRoundedRect(area, 3, 3);

    const QList<SpeedHistory::Sample> &samples = m_history.samples();
    // Headroom above the peak so the line never touches the top edge.
    const double top = std::max(1.0, m_history.peak() * 1.15);
    if (samples.size() >= 2) {
        // The time axis grows with the history (at least 30 s, at most the whole span), so a
        // fresh transfer fills the graph instead of hugging its right edge.
        const qint64 span = std::clamp(m_nowMs - samples.first().timeMs, qint64(30000), m_history.spanMs());
        const qint64 start = m_nowMs - span;
        auto pointAt = [&](const SpeedHistory::Sample &s) {
            const double x = area.left() + area.width() * double(s.timeMs - start) / double(span);
            const double y = area.bottom() - (area.height() - 2) * s.bytesPerSecond / top;
            return QPointF(x, y);
        };
        QPainterPath line;
        line.moveTo(pointAt(samples.first()));
        for (qsizetype i = 1; i < samples.size(); ++i)
            line.lineTo(pointAt(samples.at(i)));
        QPainterPath fill = line;
        fill.lineTo(pointAt(samples.last()).x(), area.bottom());
        fill.lineTo(pointAt(samples.first()).x(), area.bottom());
        fill.closeSubpath();
        QColor highlight = palette().color(QPalette::Highlight);
        QColor translucent = highlight;
        translucent.setAlpha(60);
        painter.fillPath(fill, translucent);
        painter.setPen(QPen(highlight, 1.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(line);
    }
    painter.setPen(palette().color(QPalette::Text));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    painter.setFont(small);
    const QString label =
        m_history.peak() <= 0 ? tr("upload speed") : tr("peak %1").arg(Units::rate(m_history.peak()));
    painter.drawText(area.adjusted(4, 2, -4, -2), Qt::AlignTop | Qt::AlignLeft, label);
}

} // namespace multilane
