#include "TransferTableModel.h"

#include "ByteSize.h"
#include "TransferController.h"
#include "UploadSession.h"

#include <QFileInfo>
#include <algorithm>

namespace multilane {

TransferTableModel::TransferTableModel(TransferController &controller, QObject *parent)
    : QAbstractTableModel(parent)
    , m_controller(controller)
{
    m_clock.start();
    connect(&controller, &TransferController::jobsAdded, this, &TransferTableModel::onJobsAdded);
    connect(&controller, &TransferController::jobsChanged, this,
            [this](UploadSession *session, const QList<int> &jobs) {
                refresh(session, jobs, m_clock.elapsed());
            });
    // Pause all and the network coming and going change every row's state text at once.
    auto everyRow = [this] {
        if (!m_rows.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    };
    connect(&controller, &TransferController::pausedChanged, this, everyRow);
    connect(&controller, &TransferController::onlineChanged, this, everyRow);
}

int TransferTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int TransferTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const TransferJob &TransferTableModel::job(int row) const
{
    const Row &r = m_rows.at(std::size_t(row));
    return r.session->scheduler().job(r.job);
}

qint64 TransferTableModel::bytesDone(const Row &row) const
{
    const TransferJob &j = row.session->scheduler().job(row.job);
    if (j.state() == TransferState::Done || j.state() == TransferState::Skipped)
        return j.source().size;
    return std::min(j.source().size, row.session->scheduler().jobBytesDone(row.job));
}

QString TransferTableModel::stateText(const Row &row) const
{
    const TransferScheduler &scheduler = row.session->scheduler();
    const TransferJob &j = scheduler.job(row.job);
    switch (j.state()) {
    case TransferState::Done:
        return tr("done");
    case TransferState::Skipped:
        return tr("skipped (already there)");
    case TransferState::Failed:
        return tr("failed: %1").arg(j.error());
    case TransferState::Cancelled:
        return tr("cancelled");
    default:
        break;
    }
    if (j.paused || scheduler.isPaused())
        return tr("paused");
    if (!scheduler.isOnline())
        return tr("waiting for network");
    switch (j.state()) {
    case TransferState::Queued:
        return tr("queued");
    case TransferState::Preparing:
        return tr("preparing");
    case TransferState::Uploading:
        // Every byte is out and the answer not yet in: the receiver is checking what it got.
        return bytesDone(row) >= j.source().size ? tr("verifying") : tr("uploading");
    case TransferState::Completing:
        return tr("verifying");
    default:
        return {};
    }
}

QVariant TransferTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &row = m_rows.at(std::size_t(index.row()));
    const TransferJob &j = row.session->scheduler().job(row.job);
    const qint64 size = j.source().size;
    const qint64 done = bytesDone(row);
    const bool running = !isTerminal(j.state()) && !j.paused && !row.session->scheduler().isPaused();

    switch (role) {
    case ProgressRole:
        return size > 0 ? int(1000 * done / size) : (j.state() == TransferState::Done ? 1000 : 0);
    case LocalPathRole:
        return j.source().localPath;
    case StateRole:
        return int(j.state());
    case PausedRole:
        return j.paused;
    case Qt::ToolTipRole:
        if (index.column() == State && !j.error().isEmpty())
            return j.error();
        if (index.column() == Endpoints)
            return row.session->endpointList();
        return QStringLiteral("%1 → %2").arg(j.source().localPath, j.source().destinationPath);
    case Qt::TextAlignmentRole:
        if (index.column() == Size || index.column() == Speed || index.column() == Eta)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case Name:
        return j.source().destinationPath;
    case Size:
        return ByteSize::format(size);
    case Progress:
        return size > 0 ? QStringLiteral("%1%").arg(100 * done / size) : QString();
    case Speed:
        return running && row.bytesPerSecond > 0 ? ByteSize::formatRate(row.bytesPerSecond) : QString();
    case Eta: {
        if (!running || row.bytesPerSecond < 1)
            return QString();
        const qint64 seconds = qint64(double(size - done) / row.bytesPerSecond);
        return seconds >= 3600
                   ? QStringLiteral("%1:%2:%3")
                         .arg(seconds / 3600)
                         .arg(seconds / 60 % 60, 2, 10, QLatin1Char('0'))
                         .arg(seconds % 60, 2, 10, QLatin1Char('0'))
                   : QStringLiteral("%1:%2").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
    }
    case State:
        return stateText(row);
    case Endpoints:
        return row.session->endpointSummary();
    default:
        return {};
    }
}

QVariant TransferTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Name");
    case Size:
        return tr("Size");
    case Progress:
        return tr("Progress");
    case Speed:
        return tr("Speed");
    case Eta:
        return tr("ETA");
    case State:
        return tr("State");
    case Endpoints:
        return tr("Endpoints");
    default:
        return {};
    }
}

void TransferTableModel::onJobsAdded(UploadSession *session, int first, int count)
{
    if (count <= 0)
        return;
    const int firstRow = rowCount();
    beginInsertRows({}, firstRow, firstRow + count - 1);
    for (int i = 0; i < count; ++i) {
        m_rows.push_back(Row{session, first + i, RateMeter(), 0});
        m_rowOf.insert({session, first + i}, firstRow + i);
    }
    endInsertRows();
}

void TransferTableModel::refresh(UploadSession *session, const QList<int> &jobs, qint64 nowMs)
{
    QList<int> rows;
    rows.reserve(jobs.size());
    for (int jobId : jobs) {
        const auto it = m_rowOf.constFind({session, jobId});
        if (it != m_rowOf.constEnd())
            rows.append(*it);
    }
    // Rows that showed a speed but did not change this tick: their speed falls to zero.
    for (int r = 0; r < rowCount(); ++r) {
        if (m_rows[std::size_t(r)].session == session && m_rows[std::size_t(r)].bytesPerSecond > 0)
            rows.append(r);
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    for (int r : std::as_const(rows)) {
        Row &row = m_rows[std::size_t(r)];
        row.rate.addSample(nowMs, bytesDone(row));
        row.bytesPerSecond = row.rate.bytesPerSecond(nowMs);
    }
    // One dataChanged per contiguous run: a view repaints a block, not row after row.
    for (qsizetype i = 0; i < rows.size();) {
        qsizetype end = i;
        while (end + 1 < rows.size() && rows.at(end + 1) == rows.at(end) + 1)
            ++end;
        Q_EMIT dataChanged(index(rows.at(i), 0), index(rows.at(end), ColumnCount - 1));
        i = end + 1;
    }
}

void TransferTableModel::setPaused(const QList<int> &rows, bool paused)
{
    for (int r : rows) {
        const Row &row = m_rows.at(std::size_t(r));
        row.session->scheduler().setJobPaused(row.job, paused);
        Q_EMIT dataChanged(index(r, 0), index(r, ColumnCount - 1));
    }
}

void TransferTableModel::cancel(const QList<int> &rows)
{
    for (int r : rows) {
        const Row &row = m_rows.at(std::size_t(r));
        if (!isTerminal(job(r).state()))
            row.session->scheduler().cancelJob(row.job);
    }
}

void TransferTableModel::retry(const QList<int> &rows)
{
    for (int r : rows) {
        const TransferState state = job(r).state();
        if (state == TransferState::Failed || state == TransferState::Cancelled)
            m_rows.at(std::size_t(r)).session->retry(m_rows.at(std::size_t(r)).job);
    }
}

void TransferTableModel::remove(QList<int> rows)
{
    std::sort(rows.begin(), rows.end(), std::greater<>());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    for (int r : std::as_const(rows)) {
        const Row &row = m_rows.at(std::size_t(r));
        row.session->forget(row.job);
        beginRemoveRows({}, r, r);
        m_rows.erase(m_rows.begin() + r);
        endRemoveRows();
    }
    rebuildIndex();
}

void TransferTableModel::clearFinished()
{
    QList<int> finished;
    for (int r = 0; r < rowCount(); ++r) {
        const TransferState state = job(r).state();
        if (state == TransferState::Done || state == TransferState::Skipped)
            finished.append(r);
    }
    remove(finished);
}

void TransferTableModel::rebuildIndex()
{
    m_rowOf.clear();
    for (std::size_t r = 0; r < m_rows.size(); ++r)
        m_rowOf.insert({m_rows[r].session, m_rows[r].job}, int(r));
}

} // namespace multilane
