#include "ResumeJournal.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace multilane {

namespace {

const QLatin1String LogName("journal.log");
const QLatin1String CompactName("journal.log.new");
const QLatin1String LockName("journal.lock");

// A sanity bound for acknowledged-chunk ranges read from disk, so a bad record cannot make us
// allocate gigabytes (8 MiB chunks × 16M chunks is 128 TiB).
constexpr qint64 MaxChunks = qint64(1) << 24;

constexpr std::array<quint32, 256> CrcTable = [] {
    std::array<quint32, 256> table{};
    for (quint32 i = 0; i < 256; ++i) {
        quint32 c = i;
        for (int bit = 0; bit < 8; ++bit)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    return table;
}();

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

QByteArray encodedPath(const QString &path)
{
    return QFile::encodeName(path);
}

// Keys go into the hand-built ack record unescaped, so only accept what needs no escaping.
bool isPlainKey(const QString &key)
{
    if (key.isEmpty() || key.size() > 128)
        return false;
    return std::all_of(key.begin(), key.end(), [](QChar c) {
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') ||
               c == u'-' || c == u'_';
    });
}

QByteArray frame(const QByteArray &json)
{
    QByteArray line;
    line.reserve(json.size() + 10);
    line += QByteArray::number(ResumeJournal::checksum(json), 16).rightJustified(8, '0');
    line += ' ';
    line += json;
    line += '\n';
    return line;
}

// The JSON object of one complete line (without its '\n'), or nullopt if the CRC or JSON is bad.
std::optional<QJsonObject> decode(QByteArrayView line)
{
    if (line.size() < 11 || line.at(8) != ' ')
        return std::nullopt;
    quint32 crc = 0;
    for (int i = 0; i < 8; ++i) {
        const char c = line.at(i);
        const int digit = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
        if (digit < 0)
            return std::nullopt;
        crc = (crc << 4) | quint32(digit);
    }
    const QByteArrayView json = line.sliced(9);
    if (ResumeJournal::checksum(json) != crc)
        return std::nullopt;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    return document.object();
}

QByteArray compactJson(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject batchRecord(const JournalBatch &batch)
{
    QJsonArray endpoints;
    for (const Endpoint &endpoint : batch.endpoints) {
        QJsonObject object{{QStringLiteral("url"), endpoint.url.toString(QUrl::FullyEncoded)},
                           {QStringLiteral("token"), QString::fromUtf8(endpoint.token)},
                           {QStringLiteral("weight"), endpoint.weight},
                           {QStringLiteral("maxConnections"), endpoint.maxConnections}};
        if (!endpoint.caFile.isEmpty())
            object.insert(QStringLiteral("caFile"), endpoint.caFile);
        if (!endpoint.pinSha256.isEmpty())
            object.insert(QStringLiteral("pinSha256"), QString::fromLatin1(endpoint.pinSha256.toHex()));
        endpoints.append(object);
    }
    return {{QStringLiteral("t"), QStringLiteral("batch")},
            {QStringLiteral("id"), batch.id},
            {QStringLiteral("created"), batch.createdMs},
            {QStringLiteral("endpoints"), endpoints},
            {QStringLiteral("connections"), batch.connections},
            {QStringLiteral("chunkSize"), batch.chunkSize},
            {QStringLiteral("onConflict"), onConflictName(batch.onConflict)},
            {QStringLiteral("destination"), batch.destination}};
}

QJsonObject fileRecord(const QString &batchId, const QString &key, const SourceFile &source)
{
    return {{QStringLiteral("t"), QStringLiteral("file")},
            {QStringLiteral("batch"), batchId},
            {QStringLiteral("key"), key},
            {QStringLiteral("path"), source.localPath},
            {QStringLiteral("dest"), source.destinationPath},
            {QStringLiteral("size"), source.size},
            {QStringLiteral("mtime"), source.mtimeMs}};
}

QJsonObject uploadRecord(const QString &key, const QString &uploadId, qint64 chunkSize)
{
    return {{QStringLiteral("t"), QStringLiteral("upload")},
            {QStringLiteral("key"), key},
            {QStringLiteral("id"), uploadId},
            {QStringLiteral("chunkSize"), chunkSize}};
}

QByteArray ackJson(const QString &key, int chunk)
{
    // Built by hand because it is written once per chunk; isPlainKey() makes escaping unnecessary.
    return "{\"t\":\"ack\",\"key\":\"" + key.toLatin1() + "\",\"chunk\":" + QByteArray::number(chunk) + '}';
}

// Creates `path` and its missing parents with 0700, as the XDG spec asks for state folders.
std::optional<QString> makeDirectory(const QString &path)
{
    if (QFileInfo(path).isDir())
        return std::nullopt;
    const QString parent = QFileInfo(path).absolutePath();
    if (parent != path) {
        if (auto error = makeDirectory(parent))
            return error;
    }
    if (::mkdir(encodedPath(path).constData(), 0700) != 0 && errno != EEXIST) {
        return QStringLiteral("cannot create the resume journal folder %1: %2 — check its permissions or "
                              "pass another --state-dir")
            .arg(path, systemError(errno));
    }
    return std::nullopt;
}

bool writeAll(int fd, const QByteArray &bytes)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t written = ::write(fd, bytes.constData() + done, std::size_t(bytes.size() - done));
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        done += written;
    }
    return true;
}

} // namespace

// The state the records describe, kept in hashes so every record applies in O(1).
struct ResumeJournal::Model {
    struct BatchEntry {
        JournalBatch batch;
        quint64 order = 0;
    };
    struct FileEntry {
        JournalFile file;
        quint64 order = 0;
    };
    QHash<QString, BatchEntry> batches;
    QHash<QString, FileEntry> files;
    quint64 nextOrder = 0;
    QStringList warnings;
    mutable Snapshot snapshot;
    mutable bool dirty = true;

    void addBatch(const JournalBatch &batch)
    {
        batches.insert(batch.id, {batch, nextOrder++});
        dirty = true;
    }
    void addFile(const QString &batchId, const QString &key, const SourceFile &source)
    {
        JournalFile file;
        file.batchId = batchId;
        file.key = key;
        file.source = source;
        files.insert(key, {file, nextOrder++});
        dirty = true;
    }
    void setUpload(JournalFile &file, const QString &uploadId, qint64 chunkSize)
    {
        if (file.uploadId != uploadId || file.chunkSize != chunkSize)
            file.acknowledgedChunks.clear();
        file.uploadId = uploadId;
        file.chunkSize = chunkSize;
        dirty = true;
    }
    // False when the chunk was already acknowledged.
    bool acknowledge(JournalFile &file, int chunk)
    {
        QList<int> &chunks = file.acknowledgedChunks;
        dirty = true;
        if (chunks.isEmpty() || chunks.constLast() < chunk) {
            chunks.append(chunk);
            return true;
        }
        const auto at = std::lower_bound(chunks.begin(), chunks.end(), chunk);
        if (*at == chunk)
            return false;
        chunks.insert(at, chunk);
        return true;
    }
    JournalFile *find(const QString &key)
    {
        const auto it = files.find(key);
        return it == files.end() ? nullptr : &it->file;
    }

    bool apply(const QJsonObject &record);
    const Snapshot &view() const;
    QByteArray compacted() const;
};

// Applies one record read from disk; false when it is not one this version understands.
bool ResumeJournal::Model::apply(const QJsonObject &record)
{
    const QString type = record.value(QLatin1String("t")).toString();
    const QString key = record.value(QLatin1String("key")).toString();
    if (type == QLatin1String("batch")) {
        JournalBatch batch;
        batch.id = record.value(QLatin1String("id")).toString();
        batch.createdMs = record.value(QLatin1String("created")).toInteger();
        batch.connections = record.value(QLatin1String("connections")).toInt();
        batch.chunkSize = record.value(QLatin1String("chunkSize")).toInteger();
        batch.destination = record.value(QLatin1String("destination")).toString();
        const auto onConflict = onConflictFromName(record.value(QLatin1String("onConflict")).toString());
        if (batch.id.isEmpty() || !onConflict)
            return false;
        batch.onConflict = *onConflict;
        for (const QJsonValue &value : record.value(QLatin1String("endpoints")).toArray()) {
            const QJsonObject object = value.toObject();
            Endpoint endpoint;
            endpoint.url = QUrl(object.value(QLatin1String("url")).toString());
            endpoint.token = object.value(QLatin1String("token")).toString().toUtf8();
            endpoint.weight = object.value(QLatin1String("weight")).toInt(1);
            endpoint.maxConnections = object.value(QLatin1String("maxConnections")).toInt(6);
            endpoint.pinSha256 =
                QByteArray::fromHex(object.value(QLatin1String("pinSha256")).toString().toLatin1());
            // A CA file that is gone leaves the system CAs; the TLS error then says what to do.
            if (const QString caFile = object.value(QLatin1String("caFile")).toString(); !caFile.isEmpty())
                EndpointParser::loadCaFile(endpoint, caFile);
            batch.endpoints.append(endpoint);
        }
        addBatch(batch);
        return true;
    }
    if (type == QLatin1String("file")) {
        const QString batchId = record.value(QLatin1String("batch")).toString();
        SourceFile source;
        source.localPath = record.value(QLatin1String("path")).toString();
        source.destinationPath = record.value(QLatin1String("dest")).toString();
        source.size = record.value(QLatin1String("size")).toInteger();
        source.mtimeMs = record.value(QLatin1String("mtime")).toInteger();
        if (!batches.contains(batchId) || !isPlainKey(key) || source.localPath.isEmpty())
            return false;
        addFile(batchId, key, source);
        return true;
    }
    // The records below may name a file that ended since; that is not damage.
    JournalFile *file = find(key);
    if (type == QLatin1String("upload")) {
        const QJsonValue acked = record.value(QLatin1String("acked"));
        if (!file)
            return true;
        setUpload(*file, record.value(QLatin1String("id")).toString(),
                  record.value(QLatin1String("chunkSize")).toInteger());
        // Compaction folds the acks into [first, last] ranges on the upload record.
        qint64 total = 0;
        for (const QJsonValue &range : acked.toArray()) {
            const qint64 first = range.toArray().at(0).toInteger(-1);
            const qint64 last = range.toArray().at(1).toInteger(-1);
            total += last - first + 1;
            if (first < 0 || last < first || last > INT_MAX || total > MaxChunks)
                return false;
            for (qint64 chunk = first; chunk <= last; ++chunk)
                acknowledge(*file, int(chunk));
        }
        return true;
    }
    if (type == QLatin1String("ack")) {
        const qint64 chunk = record.value(QLatin1String("chunk")).toInteger(-1);
        if (chunk < 0 || chunk > INT_MAX)
            return false;
        if (file)
            acknowledge(*file, int(chunk));
        return true;
    }
    if (type == QLatin1String("end")) {
        files.remove(key);
        dirty = true;
        return true;
    }
    return false;
}

const ResumeJournal::Snapshot &ResumeJournal::Model::view() const
{
    if (!dirty)
        return snapshot;
    QList<const FileEntry *> liveFiles;
    QSet<QString> liveBatches;
    for (const FileEntry &entry : files) {
        liveFiles.append(&entry);
        liveBatches.insert(entry.file.batchId);
    }
    QList<const BatchEntry *> liveBatchEntries;
    for (const BatchEntry &entry : batches) {
        if (liveBatches.contains(entry.batch.id))
            liveBatchEntries.append(&entry);
    }
    const auto byOrder = [](const auto *a, const auto *b) { return a->order < b->order; };
    std::sort(liveFiles.begin(), liveFiles.end(), byOrder);
    std::sort(liveBatchEntries.begin(), liveBatchEntries.end(), byOrder);
    snapshot = {};
    for (const BatchEntry *entry : liveBatchEntries)
        snapshot.batches.append(entry->batch);
    for (const FileEntry *entry : liveFiles)
        snapshot.files.append(entry->file);
    snapshot.warnings = warnings;
    dirty = false;
    return snapshot;
}

QByteArray ResumeJournal::Model::compacted() const
{
    const Snapshot &live = view();
    QByteArray log;
    for (const JournalBatch &batch : live.batches)
        log += frame(compactJson(batchRecord(batch)));
    for (const JournalFile &file : live.files) {
        log += frame(compactJson(fileRecord(file.batchId, file.key, file.source)));
        if (file.uploadId.isEmpty() && file.acknowledgedChunks.isEmpty())
            continue;
        QJsonArray ranges;
        const QList<int> &chunks = file.acknowledgedChunks;
        for (qsizetype i = 0; i < chunks.size();) {
            qsizetype j = i;
            while (j + 1 < chunks.size() && chunks.at(j + 1) == chunks.at(j) + 1)
                ++j;
            ranges.append(QJsonArray{chunks.at(i), chunks.at(j)});
            i = j + 1;
        }
        QJsonObject record = uploadRecord(file.key, file.uploadId, file.chunkSize);
        record.insert(QLatin1String("acked"), ranges);
        log += frame(compactJson(record));
    }
    return log;
}

ResumeJournal::ResumeJournal(const QString &directory)
    : m_directory(QDir::cleanPath(QDir(directory).absolutePath()))
    , m_model(std::make_unique<Model>())
{}

ResumeJournal::~ResumeJournal()
{
    close();
}

void ResumeJournal::close()
{
    if (m_fd >= 0) {
        ::fdatasync(m_fd);
        ::close(m_fd);
        m_fd = -1;
    }
    if (m_lockFd >= 0) {
        ::close(m_lockFd); // releases the flock
        m_lockFd = -1;
    }
}

QString ResumeJournal::defaultDirectory()
{
    // QStandardPaths::GenericStateLocation is Qt 6.7+. The XDG spec says to ignore relative values.
    const QString state = qEnvironmentVariable("XDG_STATE_HOME");
    if (!state.isEmpty() && QDir::isAbsolutePath(state))
        return QDir::cleanPath(state + QLatin1String("/multilane"));
    return QDir::homePath() + QLatin1String("/.local/state/multilane");
}

QString ResumeJournal::keyFor(const SourceFile &file)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(file.localPath.toUtf8());
    hash.addData(QByteArrayView("\0", 1)); // so ("ab","c") and ("a","bc") differ
    hash.addData(file.destinationPath.toUtf8());
    // 64 bits: collisions are out of reach for any number of files one client has unfinished.
    return QString::fromLatin1(hash.result().left(8).toHex());
}

quint32 ResumeJournal::checksum(QByteArrayView bytes)
{
    quint32 crc = 0xFFFFFFFFu;
    for (const char byte : bytes)
        crc = CrcTable[(crc ^ quint8(byte)) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

QString ResumeJournal::logPath() const
{
    return m_directory + u'/' + LogName;
}

ResumeJournal::Snapshot ResumeJournal::load() const
{
    Model model;
    QFile file(logPath());
    if (!file.exists())
        return {};
    if (!file.open(QIODevice::ReadOnly)) {
        Snapshot snapshot;
        snapshot.warnings.append(QStringLiteral("cannot read %1: %2; unfinished uploads cannot be listed or "
                                                "resumed until it is readable")
                                     .arg(logPath(), file.errorString()));
        return snapshot;
    }
    const QByteArray bytes = file.readAll();
    qsizetype position = 0;
    qsizetype firstUnknown = -1;
    int unknown = 0;
    while (position < bytes.size()) {
        const qsizetype newline = bytes.indexOf('\n', position);
        const qsizetype end = newline < 0 ? bytes.size() : newline + 1;
        // A line without its '\n' is a write that a kill cut short, even if it happens to parse.
        const std::optional<QJsonObject> record =
            newline < 0 ? std::nullopt : decode(QByteArrayView(bytes).sliced(position, newline - position));
        if (!record) {
            // Everything after a damaged record is ignored: it may depend on what was lost.
            const qsizetype after = bytes.size() - end;
            model.warnings.append(
                QStringLiteral(
                    "journal.log: ignored a damaged record at byte %1%2; the uploads it described will "
                    "be checked with the receivers")
                    .arg(position)
                    .arg(after > 0 ? QStringLiteral(" (and %1 bytes after it)").arg(after) : QString()));
            break;
        }
        if (!model.apply(*record)) {
            if (unknown++ == 0)
                firstUnknown = position;
        }
        position = end;
    }
    if (unknown > 0) {
        model.warnings.append(
            QStringLiteral("journal.log: skipped %1 record(s) this version does not understand, "
                           "the first at byte %2")
                .arg(unknown)
                .arg(firstUnknown));
    }
    return model.view();
}

std::optional<QString> ResumeJournal::open()
{
    close();
    m_writeError.reset();
    if (auto error = makeDirectory(m_directory))
        return error;

    // Two processes compacting and appending to one log would lose each other's records.
    const QString lockPath = m_directory + u'/' + LockName;
    m_lockFd = ::open(encodedPath(lockPath).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (m_lockFd < 0)
        return QStringLiteral("cannot open %1: %2").arg(lockPath, systemError(errno));
    if (::flock(m_lockFd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        close();
        if (error == EWOULDBLOCK) {
            return QStringLiteral(
                       "another multilane process is using the resume journal in %1 — let it finish "
                       "or pass another --state-dir")
                .arg(m_directory);
        }
        return QStringLiteral("cannot lock %1: %2").arg(lockPath, systemError(error));
    }

    const Snapshot loaded = load();
    auto model = std::make_unique<Model>();
    model->warnings = loaded.warnings;
    for (const JournalBatch &batch : loaded.batches)
        model->addBatch(batch);
    for (const JournalFile &file : loaded.files)
        model->files.insert(file.key, {file, model->nextOrder++});

    // Write the live state to a new file and rename it over the old one, so a crash at any point
    // leaves either the old log or the new one, never a mix.
    const QString compactPath = m_directory + u'/' + CompactName;
    const QByteArray compacted = model->compacted();
    const int fd = ::open(encodedPath(compactPath).constData(),
                          O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        const int error = errno;
        close();
        return QStringLiteral("cannot write %1: %2").arg(compactPath, systemError(error));
    }
    // The log holds endpoint tokens: 0600 even if an older file had wider permissions.
    if (::fchmod(fd, 0600) != 0 || !writeAll(fd, compacted) || ::fsync(fd) != 0 ||
        ::rename(encodedPath(compactPath).constData(), encodedPath(logPath()).constData()) != 0) {
        const int error = errno;
        ::close(fd);
        ::unlink(encodedPath(compactPath).constData());
        close();
        return QStringLiteral("cannot write %1: %2").arg(compactPath, systemError(error));
    }
    // Make the rename itself durable.
    const int directoryFd = ::open(encodedPath(m_directory).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directoryFd >= 0) {
        ::fsync(directoryFd);
        ::close(directoryFd);
    }
    m_fd = fd;
    m_size = compacted.size();
    m_model = std::move(model);
    return std::nullopt;
}

const ResumeJournal::Snapshot &ResumeJournal::state() const
{
    return m_model->view();
}

const JournalFile *ResumeJournal::file(const QString &key) const
{
    return m_model->find(key);
}

void ResumeJournal::appendRecord(const QByteArray &json)
{
    if (m_fd < 0)
        return;
    // One write() per record: a kill leaves a record either wholly in the kernel or absent.
    const QByteArray line = frame(json);
    if (writeAll(m_fd, line)) {
        m_size += line.size();
        return;
    }
    // Cut off a partial record so that later ones would not sit behind damage, then stop: the
    // state in memory stays right, and resume re-checks with the receivers what the log lacks.
    const int error = errno;
    if (!m_writeError)
        m_writeError = QStringLiteral("cannot write %1: %2").arg(logPath(), systemError(error));
    ::ftruncate(m_fd, m_size);
    ::close(m_fd);
    m_fd = -1;
}

QString ResumeJournal::addBatch(JournalBatch batch)
{
    if (batch.createdMs <= 0)
        batch.createdMs = QDateTime::currentMSecsSinceEpoch();
    const QString stamp =
        QDateTime::fromMSecsSinceEpoch(batch.createdMs, Qt::UTC).toString(QStringLiteral("yyyyMMdd-HHmmss"));
    do {
        batch.id = stamp + u'-' +
                   QString::number(QRandomGenerator::global()->generate(), 16).rightJustified(8, u'0');
    } while (m_model->batches.contains(batch.id));
    m_model->addBatch(batch);
    appendRecord(compactJson(batchRecord(batch)));
    return batch.id;
}

std::optional<QString> ResumeJournal::addFile(const QString &batchId, const SourceFile &file)
{
    if (!m_model->batches.contains(batchId))
        return std::nullopt;
    const QString key = keyFor(file);
    m_model->addFile(batchId, key, file);
    appendRecord(compactJson(fileRecord(batchId, key, file)));
    return key;
}

void ResumeJournal::setUpload(const QString &key, const QString &uploadId, qint64 chunkSize)
{
    JournalFile *file = m_model->find(key);
    if (!file)
        return;
    m_model->setUpload(*file, uploadId, chunkSize);
    appendRecord(compactJson(uploadRecord(key, uploadId, chunkSize)));
}

void ResumeJournal::acknowledgeChunk(const QString &key, int chunk)
{
    JournalFile *file = m_model->find(key);
    if (!file || chunk < 0)
        return;
    if (m_model->acknowledge(*file, chunk))
        appendRecord(ackJson(key, chunk));
}

void ResumeJournal::endFile(const QString &key)
{
    if (!m_model->files.remove(key))
        return;
    m_model->dirty = true;
    appendRecord(
        compactJson(QJsonObject{{QStringLiteral("t"), QStringLiteral("end")}, {QStringLiteral("key"), key}}));
}

std::optional<QString> ResumeJournal::flush()
{
    if (m_fd >= 0 && ::fdatasync(m_fd) != 0 && !m_writeError)
        m_writeError = QStringLiteral("cannot write %1: %2").arg(logPath(), systemError(errno));
    return m_writeError;
}

} // namespace multilane
