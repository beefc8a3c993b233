#include "ServiceHarness.h"

#include "ChunkHash.h"
#include "Sha256.h"

#include <QFile>
#include <QJsonDocument>

using namespace multilane;

ServiceHarness::ServiceHarness()
    : ServiceHarness(ProtocolService::Options())
{}

ServiceHarness::ServiceHarness(ProtocolService::Options options)
{
    if (!m_root.isValid())
        return;
    m_store = std::make_unique<LocalFolderStore>(storage());
    // Unless a test hands in its own figures, the service hears "cannot tell" and checks no disk
    // reserve, so no test depends on how full the machine's disk happens to be.
    if (!options.freeSpace)
        options.freeSpace = [] { return std::optional<qint64>(); };
    m_service = std::make_unique<ProtocolService>(*m_store, std::move(options));
    m_ok = !m_store->prepare().has_value();
}

QString ServiceHarness::Reply::errorMessage() const
{
    return json.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString();
}

QByteArray ServiceHarness::Reply::errorCode() const
{
    return json.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString().toLatin1();
}

ServiceHarness::Reply ServiceHarness::call(const QByteArray &method, const QByteArray &path,
                                           const QByteArray &body, QHash<QByteArray, QByteArray> headers)
{
    ServiceRequest request;
    request.method = method;
    const qsizetype question = path.indexOf('?');
    request.path = question < 0 ? path : path.left(question);
    if (question >= 0) {
        for (const QByteArray &pair : path.mid(question + 1).split('&')) {
            const qsizetype equals = pair.indexOf('=');
            request.query.insert(pair.left(equals), pair.mid(equals + 1));
        }
    }
    if (!body.isNull()) {
        if (!headers.contains("content-length"))
            headers.insert("content-length", QByteArray::number(body.size()));
        request.body = bodyOf(body);
    }
    if (!m_token.isEmpty() && !headers.contains("authorization"))
        headers.insert("authorization", "Bearer " + m_token);
    request.headers = headers;
    const ServiceResponse response = m_service->handle(request);
    return {response.status, QJsonDocument::fromJson(response.body).object(), response.headers};
}

ServiceHarness::Reply ServiceHarness::create(const QString &path, qint64 size, qint64 chunkSize,
                                             const QByteArray &onConflict, qint64 mtime)
{
    const QJsonObject body{{QStringLiteral("path"), path},
                           {QStringLiteral("size"), size},
                           {QStringLiteral("mtime"), mtime},
                           {QStringLiteral("chunkSize"), chunkSize},
                           {QStringLiteral("onConflict"), QString::fromLatin1(onConflict)}};
    return call("POST", "/v1/uploads", QJsonDocument(body).toJson());
}

ServiceHarness::Reply ServiceHarness::putChunk(const QByteArray &id, qint64 index, const QByteArray &data)
{
    const quint64 hash = ChunkHash::of(data.constData(), std::size_t(data.size()));
    return call("PUT", "/v1/uploads/" + id + "/chunks/" + QByteArray::number(index), data,
                {{"x-chunk-hash", ChunkHash::toHeader(hash)}});
}

ServiceHarness::Reply ServiceHarness::complete(const QByteArray &id, const QByteArray &sha256)
{
    return call("POST", "/v1/uploads/" + id + "/complete",
                QJsonDocument(QJsonObject{{QStringLiteral("sha256"), QString::fromLatin1(sha256)}}).toJson());
}

ServiceHarness::Reply ServiceHarness::upload(const QString &path, const QByteArray &data, qint64 chunkSize,
                                             const QByteArray &onConflict, qint64 mtime)
{
    const Reply created = create(path, data.size(), chunkSize, onConflict, mtime);
    if (created.status != 201 && created.status != 200)
        return created;
    const QByteArray id = created.json.value(QStringLiteral("id")).toString().toLatin1();
    for (qint64 index = 0; index * chunkSize < data.size(); ++index) {
        const Reply sent = putChunk(id, index, data.mid(index * chunkSize, chunkSize));
        if (sent.status != 200)
            return sent;
    }
    return complete(id, sha256(data));
}

QByteArray ServiceHarness::readStored(const QString &path) const
{
    QFile file(storage() + QLatin1Char('/') + path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray ServiceHarness::testData(qint64 size, int seed)
{
    QByteArray data(size, Qt::Uninitialized);
    quint32 state = quint32(seed) * 2654435761u + 1;
    for (qint64 i = 0; i < size; ++i) {
        state = state * 1664525u + 1013904223u;
        data[i] = char(state >> 24);
    }
    return data;
}

BodyReader ServiceHarness::bodyOf(const QByteArray &data)
{
    return [data](const BodySink &sink) {
        for (qsizetype done = 0; done < data.size(); done += 4096) {
            if (!sink(data.constData() + done, std::size_t(qMin<qsizetype>(4096, data.size() - done))))
                return false;
        }
        return true;
    };
}

QByteArray ServiceHarness::sha256(const QByteArray &data)
{
    Sha256 hash;
    hash.addData(data);
    return hash.hexDigest();
}
