#include "ProtocolJson.h"

#include "ChunkLayout.h"
#include "Sha256.h"
#include "UploadPath.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

namespace multilane::ProtocolJson {

namespace {

// JSON numbers are doubles: integers are exact up to 2^53, far beyond any file we will see.
constexpr double MaxExactInteger = 9007199254740992.0;

ProtocolError badRequest(const QString &message)
{
    return ProtocolError::make(ProtocolErrorCode::BadRequest, message);
}

Result<QJsonObject> parseObject(const QByteArray &body)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return badRequest(QStringLiteral("the body is not a JSON object (%1)").arg(error.errorString()));
    return document.object();
}

// Reads an integral number field; `allowNegative` for timestamps.
std::optional<qint64> integerField(const QJsonObject &object, const QString &name, bool allowNegative)
{
    const QJsonValue value = object.value(name);
    if (!value.isDouble())
        return std::nullopt;
    const double number = value.toDouble();
    if (std::floor(number) != number || std::fabs(number) > MaxExactInteger || (!allowNegative && number < 0))
        return std::nullopt;
    return qint64(number);
}

} // namespace

Result<UploadSpec> parseCreate(const QByteArray &body)
{
    const auto parsed = parseObject(body);
    if (!parsed)
        return parsed.error();
    const QJsonObject &object = parsed.value();
    UploadSpec spec;
    const QByteArray path = object.value(QStringLiteral("path")).toString().toUtf8();
    if (!object.value(QStringLiteral("path")).isString())
        return badRequest(QStringLiteral("\"path\" is missing or not a string"));
    if (const auto problem = UploadPath::problem(path))
        return ProtocolError::make(ProtocolErrorCode::BadPath,
                                   QStringLiteral("refusing the destination path: %1; send a "
                                                  "relative path below the storage folder")
                                       .arg(*problem));
    spec.path = QString::fromUtf8(path);
    const auto size = integerField(object, QStringLiteral("size"), false);
    const auto mtime = integerField(object, QStringLiteral("mtime"), true);
    const auto chunkSize = integerField(object, QStringLiteral("chunkSize"), false);
    if (!size || !mtime || !chunkSize)
        return badRequest(
            QStringLiteral("\"size\", \"mtime\" and \"chunkSize\" must be whole numbers (size and "
                           "chunkSize not negative)"));
    if (const auto problem = ChunkLayout::problem(*size, *chunkSize))
        return badRequest(*problem);
    spec.size = *size;
    spec.mtime = *mtime;
    spec.chunkSize = *chunkSize;
    const QJsonValue policy = object.value(QStringLiteral("onConflict"));
    if (!policy.isUndefined()) {
        const auto parsedPolicy = conflictPolicyFromName(policy.toString().toUtf8());
        if (!parsedPolicy)
            return badRequest(QStringLiteral("\"onConflict\" must be rename, overwrite, skip or fail"));
        spec.onConflict = *parsedPolicy;
    }
    const QJsonValue sha = object.value(QStringLiteral("sha256"));
    if (!sha.isUndefined() && !sha.isNull()) {
        spec.sha256 = sha.toString().toLatin1().toLower();
        if (!Sha256::isHexDigest(spec.sha256))
            return badRequest(QStringLiteral("\"sha256\" must be 64 hex digits"));
    }
    return spec;
}

Result<QByteArray> parseComplete(const QByteArray &body)
{
    const auto parsed = parseObject(body);
    if (!parsed)
        return parsed.error();
    const QByteArray sha = parsed.value().value(QStringLiteral("sha256")).toString().toLatin1().toLower();
    if (!Sha256::isHexDigest(sha))
        return badRequest(QStringLiteral("\"sha256\" (the whole file's SHA-256, 64 hex digits) is missing or "
                                         "malformed"));
    return sha;
}

QJsonObject uploadState(const UploadState &state)
{
    QJsonArray received;
    for (const qint64 index : state.received)
        received.append(index);
    QJsonArray receivedHashes;
    for (const quint64 hash : state.receivedHashes)
        receivedHashes.append(QString::number(hash, 16).rightJustified(16, u'0'));
    return QJsonObject{
        {QStringLiteral("id"), QString::fromLatin1(state.id)},
        {QStringLiteral("path"), state.path},
        {QStringLiteral("size"), state.size},
        {QStringLiteral("chunkSize"), state.chunkSize},
        {QStringLiteral("chunkCount"), state.chunkCount},
        {QStringLiteral("received"), received},
        {QStringLiteral("receivedHashes"), receivedHashes},
    };
}

QJsonObject createOutcome(const CreateOutcome &outcome)
{
    if (outcome.kind == CreateOutcome::Kind::AlreadyDone)
        return QJsonObject{{QStringLiteral("status"), QStringLiteral("done")},
                           {QStringLiteral("path"), outcome.finished.path},
                           {QStringLiteral("sha256"), QString::fromLatin1(outcome.finished.sha256)}};
    if (outcome.kind == CreateOutcome::Kind::Skipped)
        return finishedFile(outcome.finished);
    QJsonObject object = uploadState(outcome.upload);
    if (outcome.existing) {
        QJsonObject existing{{QStringLiteral("size"), outcome.existing->size}};
        if (!outcome.existing->sha256.isEmpty())
            existing.insert(QStringLiteral("sha256"), QString::fromLatin1(outcome.existing->sha256));
        object.insert(QStringLiteral("existing"), existing);
    }
    return object;
}

QJsonObject finishedFile(const FinishedFile &file)
{
    const bool stored = file.status == FinishedFile::Status::Stored;
    QJsonObject object{
        {QStringLiteral("status"), stored ? QStringLiteral("stored") : QStringLiteral("skipped")},
        {QStringLiteral("path"), file.path}};
    if (!file.sha256.isEmpty())
        object.insert(QStringLiteral("sha256"), QString::fromLatin1(file.sha256));
    return object;
}

} // namespace multilane::ProtocolJson
