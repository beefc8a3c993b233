#include "JournalRecords.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <array>

namespace multilane::JournalRecords {

namespace {

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

} // namespace

quint32 checksum(QByteArrayView bytes)
{
    quint32 crc = 0xFFFFFFFFu;
    for (const char byte : bytes)
        crc = CrcTable[(crc ^ quint8(byte)) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

QByteArray frame(const QByteArray &json)
{
    QByteArray line;
    line.reserve(json.size() + 10);
    line += QByteArray::number(checksum(json), 16).rightJustified(8, '0');
    line += ' ';
    line += json;
    line += '\n';
    return line;
}

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
    if (checksum(json) != crc)
        return std::nullopt;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    return document.object();
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

bool isPlainToken(const QString &text)
{
    if (text.isEmpty() || text.size() > 128)
        return false;
    return std::all_of(text.begin(), text.end(), [](QChar c) {
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') ||
               c == u'-' || c == u'_';
    });
}

QJsonObject batch(const JournalBatch &batch)
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
    QJsonObject record{
        {QStringLiteral("t"), QStringLiteral("batch")},
        {QStringLiteral("id"), batch.id},
        {QStringLiteral("created"), batch.createdMs},
        {QStringLiteral("endpoints"), endpoints},
        {QStringLiteral("connections"), batch.connections},
        {QStringLiteral("chunkSize"), batch.chunkSize},
        {QStringLiteral("onConflict"), QString::fromLatin1(conflictPolicyName(batch.onConflict))},
        {QStringLiteral("destination"), batch.destination}};
    if (batch.s3.isSet()) {
        record.insert(QLatin1String("s3"),
                      QJsonObject{{QStringLiteral("url"), batch.s3.url},
                                  {QStringLiteral("region"), batch.s3.region},
                                  {QStringLiteral("addressing"), s3AddressingName(batch.s3.addressing)},
                                  {QStringLiteral("profile"), batch.s3.profile}});
    }
    return record;
}

static std::optional<S3TargetSpec> readS3(const QJsonValue &value)
{
    if (value.isUndefined())
        return S3TargetSpec{};
    const QJsonObject object = value.toObject();
    const std::optional<S3Addressing> addressing =
        s3AddressingFromName(object.value(QLatin1String("addressing")).toString());
    S3TargetSpec spec{
        object.value(QLatin1String("url")).toString(), object.value(QLatin1String("region")).toString(),
        addressing.value_or(S3Addressing::Auto), object.value(QLatin1String("profile")).toString()};
    if (!spec.isSet() || !addressing)
        return std::nullopt;
    return spec;
}

std::optional<JournalBatch> readBatch(const QJsonObject &record)
{
    JournalBatch batch;
    batch.id = record.value(QLatin1String("id")).toString();
    batch.createdMs = record.value(QLatin1String("created")).toInteger();
    batch.connections = record.value(QLatin1String("connections")).toInt();
    batch.chunkSize = record.value(QLatin1String("chunkSize")).toInteger();
    batch.destination = record.value(QLatin1String("destination")).toString();
    const auto onConflict =
        conflictPolicyFromName(record.value(QLatin1String("onConflict")).toString().toLatin1());
    const std::optional<S3TargetSpec> s3 = readS3(record.value(QLatin1String("s3")));
    // An S3 batch this version cannot read must not go to its gateways as if they were receivers.
    if (batch.id.isEmpty() || !onConflict || !s3)
        return std::nullopt;
    batch.onConflict = *onConflict;
    batch.s3 = *s3;
    for (const QJsonValue &value : record.value(QLatin1String("endpoints")).toArray()) {
        const QJsonObject object = value.toObject();
        Endpoint endpoint;
        endpoint.url = QUrl(object.value(QLatin1String("url")).toString());
        endpoint.token = object.value(QLatin1String("token")).toString().toUtf8();
        endpoint.weight = object.value(QLatin1String("weight")).toInt(1);
        endpoint.maxConnections = object.value(QLatin1String("maxConnections")).toInt(0);
        endpoint.pinSha256 =
            QByteArray::fromHex(object.value(QLatin1String("pinSha256")).toString().toLatin1());
        // A CA file that is gone leaves the system CAs; the TLS error then says what to do.
        if (const QString caFile = object.value(QLatin1String("caFile")).toString(); !caFile.isEmpty())
            EndpointParser::loadCaFile(endpoint, caFile);
        batch.endpoints.append(endpoint);
    }
    return batch;
}

QJsonObject file(const QString &batchId, const QString &key, const SourceFile &source)
{
    return {{QStringLiteral("t"), QStringLiteral("file")},
            {QStringLiteral("batch"), batchId},
            {QStringLiteral("key"), key},
            {QStringLiteral("path"), source.localPath()},
            {QStringLiteral("dest"), source.destinationPath()},
            {QStringLiteral("size"), source.size},
            {QStringLiteral("mtime"), source.mtimeMs}};
}

QJsonObject upload(const JournalFile &file, bool withAcknowledged)
{
    QJsonObject record{{QStringLiteral("t"), QStringLiteral("upload")},
                       {QStringLiteral("key"), file.key},
                       {QStringLiteral("id"), file.uploadId},
                       {QStringLiteral("chunkSize"), file.chunkSize}};
    if (!withAcknowledged)
        return record;
    QJsonArray ranges;
    const QList<int> &chunks = file.acknowledgedChunks;
    for (qsizetype i = 0; i < chunks.size();) {
        qsizetype j = i;
        while (j + 1 < chunks.size() && chunks.at(j + 1) == chunks.at(j) + 1)
            ++j;
        ranges.append(QJsonArray{chunks.at(i), chunks.at(j)});
        i = j + 1;
    }
    record.insert(QLatin1String("acked"), ranges);
    QJsonArray receipts; // [index, receipt] for the acknowledged chunks that have one
    for (int chunk : chunks) {
        if (const QByteArray receipt = file.receipts.value(chunk); !receipt.isEmpty())
            receipts.append(QJsonArray{chunk, QString::fromLatin1(receipt)});
    }
    if (!receipts.isEmpty())
        record.insert(QLatin1String("receipts"), receipts);
    return record;
}

QByteArray ack(const QString &key, int chunk, const QByteArray &receipt)
{
    // Built by hand because it is written once per chunk; the caller checked with isPlainToken()
    // that nothing needs escaping.
    QByteArray json =
        "{\"t\":\"ack\",\"key\":\"" + key.toLatin1() + "\",\"chunk\":" + QByteArray::number(chunk);
    if (!receipt.isEmpty())
        json += ",\"r\":\"" + receipt + '"';
    return json + '}';
}

QJsonObject end(const QString &key)
{
    return {{QStringLiteral("t"), QStringLiteral("end")}, {QStringLiteral("key"), key}};
}

QJsonObject link(const LinkMemory &memory)
{
    return {{QStringLiteral("t"), QStringLiteral("link")},
            {QStringLiteral("network"), memory.network},
            {QStringLiteral("taken"), memory.takenMs},
            {QStringLiteral("connections"), memory.connections},
            {QStringLiteral("bytesPerSecond"), memory.bytesPerSecond},
            {QStringLiteral("rttMs"), memory.rttMs},
            {QStringLiteral("chunkSize"), memory.chunkSize}};
}

std::optional<LinkMemory> readLink(const QJsonObject &record)
{
    LinkMemory memory;
    memory.network = record.value(QLatin1String("network")).toString();
    memory.takenMs = record.value(QLatin1String("taken")).toInteger();
    memory.connections = record.value(QLatin1String("connections")).toInt();
    memory.bytesPerSecond = record.value(QLatin1String("bytesPerSecond")).toDouble();
    memory.rttMs = record.value(QLatin1String("rttMs")).toDouble();
    memory.chunkSize = record.value(QLatin1String("chunkSize")).toInteger();
    if (memory.network.isEmpty() || memory.takenMs <= 0 || memory.connections <= 0)
        return std::nullopt;
    return memory;
}

} // namespace multilane::JournalRecords
