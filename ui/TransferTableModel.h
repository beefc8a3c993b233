#pragma once

#include "RateMeter.h"
#include "TransferJob.h"

#include <QAbstractTableModel>
#include <QElapsedTimer>
#include <QHash>
#include <vector>

namespace multilane {

class TransferController;
class UploadSession;

// The transfer list: one row per file, across every session. Updated from the engine's batched
// jobsChanged (at most ~10 Hz), with one dataChanged per contiguous run of changed rows.
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

    // Applies a batch of changes at time nowMs (a parameter, so tests control the clock).
    void refresh(UploadSession *session, const QList<int> &jobs, qint64 nowMs);

private:
    struct Row {
        UploadSession *session;
        int job;
        RateMeter rate;
        double bytesPerSecond = 0;
    };
    void onJobsAdded(UploadSession *session, int first, int count);
    void rebuildIndex();
    QString stateText(const Row &row) const;
    qint64 bytesDone(const Row &row) const;

    TransferController &m_controller;
    std::vector<Row> m_rows;
    QHash<QPair<UploadSession *, int>, int> m_rowOf;
    QElapsedTimer m_clock;
};

} // namespace multilane
