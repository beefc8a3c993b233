#pragma once

#include "SpeedHistory.h"

#include <QWidget>

namespace multilane {

// A small live graph of the total upload speed over the last minutes, with the peak labelled.
class SpeedGraph : public QWidget {
    Q_OBJECT
public:
    explicit SpeedGraph(QWidget *parent = nullptr);

    void addSample(qint64 nowMs, double bytesPerSecond);
    const SpeedHistory &history() const { return m_history; }
    QSize sizeHint() const override { return {260, 56}; }
    QSize minimumSizeHint() const override { return {120, 40}; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    SpeedHistory m_history;
    qint64 m_nowMs = 0;
};

} // namespace multilane
