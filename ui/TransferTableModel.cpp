#include "TransferTableModel.h"

#include "TransferController.h"
#include "Units.h"
#include "UploadSession.h"

#include <algorithm>

namespace multilane {

TransferTableModel::TransferTableModel(TransferController &controller, QObject *parent)
    : QAbstractTableModel(parent)
    , m_controller(controller)
{
    connect(&controller, &TransferController::jobsAdded, this, &TransferTableModel::onJobsAdded);
    connect(&controller, &TransferController::jobsChanged, this, &TransferTableModel::refresh);
    // Pause all and the receivers or the network coming and going change every row's state at once.
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
    return row.figures.done;
}

LiveFigures::Activity TransferTableModel::activityOf(const Row &row) const
{
    const TransferScheduler &scheduler = row.session->scheduler();
    const TransferJob &j = scheduler.job(row.job);
    if (isTerminal(j.state()))
        return LiveFigures::Activity::Finished;
    if (j.paused || scheduler.isPaused() || !scheduler.isOnline())
        return LiveFigures::Activity::Held;
    return j.state() == TransferState::Uploading ? LiveFigures::Activity::Moving
                                                 : LiveFigures::Activity::Pending;
}

QString TransferTableModel::waitingText() const
{
    // The system's word first: with no network at all, no receiver is to blame.
    return m_controller.systemSaysOffline() ? tr("offline") : tr("waiting for receivers");
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
        return waitingText();
    switch (j.state()) {
    case TransferState::Queued:
        return tr("queued");
    case TransferState::Preparing:
        return tr("preparing");
    case TransferState::Uploading:
        // Every byte has arrived and the answer is not in yet: the receiver checks what it got.
        return bytesDone(row) >= j.source().size ? tr("verifying") : tr("uploading");
    case TransferState::Completing:
        return tr("verifying");
    default:
        return {};
    }
}

QVariant TransferTableModel::display(const Row &row, int column) const
{
    const TransferJob &j = row.session->scheduler().job(row.job);
    const qint64 size = j.source().size;
    switch (column) {
    case Name:
        return j.source().destinationPath();
    case Size:
        return Units::size(size);
    case Progress:
        return size > 0 ? QStringLiteral("%1%").arg(100 * bytesDone(row) / size) : QString();
    case Speed:
        // Only a file whose bytes move has a speed; paused, waiting, queued or verifying ones show none.
        return row.figures.bytesPerSecond && activityOf(row) == LiveFigures::Activity::Moving &&
                       bytesDone(row) < size
                   ? Units::rate(*row.figures.bytesPerSecond)
                   : QString();
    case Eta:
        if (activityOf(row) != LiveFigures::Activity::Moving || bytesDone(row) >= size)
            return QString();
        return Units::duration(row.figures.secondsLeft);
    case State:
        return stateText(row);
    case Endpoints:
        return row.session->endpointSummary(j.endpointsUsed());
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
    switch (role) {
    case Qt::DisplayRole:
        return display(row, index.column());
    case ProgressRole:
        return size > 0 ? int(1000 * bytesDone(row) / size) : (j.state() == TransferState::Done ? 1000 : 0);
    case LocalPathRole:
        return j.source().localPath();
    case StateRole:
        return int(j.state());
    case PausedRole:
        return j.paused;
    case Qt::ToolTipRole:
        if (index.column() == State && !j.error().isEmpty())
            return j.error();
        if (index.column() == State && !row.session->scheduler().isOnline())
            return tr("Not answering:\n%1").arg(row.session->downEndpoints().join(QLatin1Char('\n')));
        if (index.column() == Endpoints)
            return row.session->endpointList(j.endpointsUsed());
        return QStringLiteral("%1 → %2").arg(j.source().localPath(), j.source().destinationPath());
    case Qt::TextAlignmentRole:
        if (index.column() == Size || index.column() == Speed || index.column() == Eta)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
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
        return tr("Time left");
    case State:
        return tr("State");
    case Endpoints:
        return tr("Sent to");
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
        Row row{session, first + i, m_nextKey++, {}};
        row.figures.done = session->scheduler().jobBytesDone(first + i);
        m_rows.push_back(row);
        m_rowOf.insert({session, first + i}, firstRow + i);
    }
    endInsertRows();
}

void TransferTableModel::emitChanged(QList<int> rows, int firstColumn, int lastColumn)
{
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    // One dataChanged per contiguous run: a view repaints a block, not row after row.
    for (qsizetype i = 0; i < rows.size();) {
        qsizetype end = i;
        while (end + 1 < rows.size() && rows.at(end + 1) == rows.at(end) + 1)
            ++end;
        Q_EMIT dataChanged(index(rows.at(i), firstColumn), index(rows.at(end), lastColumn));
        i = end + 1;
    }
}

void TransferTableModel::refresh(UploadSession *session, const QList<int> &jobs)
{
    QList<int> rows;
    rows.reserve(jobs.size());
    for (int jobId : jobs) {
        const auto it = m_rowOf.constFind({session, jobId});
        if (it != m_rowOf.constEnd())
            rows.append(*it);
    }
    emitChanged(rows);
}

void TransferTableModel::updateFigures(qint64 nowMs, const LiveFigures::Delivery &delivery)
{
    QList<LiveFigures::RowInput> inputs;
    inputs.reserve(qsizetype(m_rows.size()));
    for (const Row &row : m_rows) {
        const TransferJob &j = row.session->scheduler().job(row.job);
        inputs.append(
            {row.key, j.source().size, j.acknowledgedBytes(),
             std::max<qint64>(0, row.session->scheduler().jobBytesDone(row.job) - j.acknowledgedBytes()),
             activityOf(row)});
    }
    m_figures.update(nowMs, delivery, inputs);
    QList<int> changed;
    for (std::size_t r = 0; r < m_rows.size(); ++r) {
        Row &row = m_rows[r];
        const LiveFigures::RowFigures &next = m_figures.rows().at(qsizetype(r));
        if (next.done != row.figures.done || next.bytesPerSecond != row.figures.bytesPerSecond ||
            next.secondsLeft != row.figures.secondsLeft) {
            row.figures = next;
            changed.append(int(r));
        }
    }
    // The state column too: "uploading" turns to "verifying" once every byte has arrived.
    emitChanged(changed, Progress, State);
}

TransferTableModel::Totals TransferTableModel::totals() const
{
    Totals totals;
    for (const Row &row : m_rows) {
        const TransferJob &j = row.session->scheduler().job(row.job);
        ++totals.files;
        totals.finished += j.state() == TransferState::Done || j.state() == TransferState::Skipped;
        totals.failed += j.state() == TransferState::Failed;
        totals.bytesTotal += j.source().size;
        totals.bytesDone += bytesDone(row);
    }
    totals.bytesPerSecond = m_figures.totals().bytesPerSecond;
    totals.secondsLeft = m_figures.totals().secondsLeft;
    return totals;
}

void TransferTableModel::setPaused(const QList<int> &rows, bool paused)
{
    for (int r : rows) {
        const Row &row = m_rows.at(std::size_t(r));
        row.session->scheduler().setJobPaused(row.job, paused);
    }
    emitChanged(rows);
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
