#pragma once

#include "LiveFigures.h"
#include "TransferJob.h"

#include <QAbstractTableModel>
#include <QHash>
#include <vector>

namespace multilane {

class TransferController;
class UploadSession;

// The transfer list: one row per file, across every session. State changes come from the
// engine's batched jobsChanged (at most ~10 Hz), with one dataChanged per contiguous run of
// changed rows; progress, speed and time left from updateFigures() (LiveFigures), which the
// window calls on a steady tick.
class TransferTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Size, Progress, Speed, Eta, State, Endpoints, ColumnCount };
    enum Role {
        ProgressRole = Qt::UserRole + 1, // 0..1000
        LocalPathRole,
        StateRole, // TransferState as int
        PausedRole,
    };

    explicit TransferTableModel(TransferController &controller, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Row actions; rows that the action does not fit are left alone.
    void setPaused(const QList<int> &rows, bool paused);
    void cancel(const QList<int> &rows);
    void retry(const QList<int> &rows);
    void remove(QList<int> rows); // cancels what still runs, drops the rows
    void clearFinished();

    const TransferJob &job(int row) const;

    // The engine says these jobs changed: their rows are repainted.
    void refresh(UploadSession *session, const QList<int> &jobs);
    // Progress, speeds and times left at nowMs (a parameter, so tests control the clock), from
    // what the kernel says was delivered.
    void updateFigures(qint64 nowMs, const LiveFigures::Delivery &delivery);

    // What the list holds, for the status bar, the title and the tray: rows that left the list
    // are not counted.
    struct Totals {
        int files = 0;
        int finished = 0; // done or skipped
        int failed = 0;
        qint64 bytesTotal = 0;
        qint64 bytesDone = 0;
        std::optional<double> bytesPerSecond; // nothing moving, or not measured yet: nullopt
        std::optional<qint64> secondsLeft;
    };
    Totals totals() const;

private:
    struct Row {
        UploadSession *session;
        int job;
        quint64 key;
        LiveFigures::RowFigures figures;
    };
    void onJobsAdded(UploadSession *session, int first, int count);
    void rebuildIndex();
    void emitChanged(QList<int> rows, int firstColumn = 0, int lastColumn = ColumnCount - 1);
    LiveFigures::Activity activityOf(const Row &row) const;
    QString stateText(const Row &row) const;
    QString waitingText() const;
    qint64 bytesDone(const Row &row) const;
    QVariant display(const Row &row, int column) const;

    TransferController &m_controller;
    std::vector<Row> m_rows;
    QHash<QPair<UploadSession *, int>, int> m_rowOf;
    quint64 m_nextKey = 1;
    LiveFigures m_figures;
};

} // namespace multilane
