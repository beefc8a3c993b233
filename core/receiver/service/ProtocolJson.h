#pragma once

#include "Result.h"
#include "UploadTypes.h"

#include <QByteArray>
#include <QJsonObject>

// JSON bodies of protocol v1 (docs/protocol.md), both directions.
namespace multilane::ProtocolJson {

// POST /v1/uploads; the path is checked with UploadPath::problem().
Result<UploadSpec> parseCreate(const QByteArray &body);
// POST /v1/uploads/{id}/complete: the lowercase SHA-256.
Result<QByteArray> parseComplete(const QByteArray &body);

QJsonObject uploadState(const UploadState &state);
QJsonObject createOutcome(const CreateOutcome &outcome);
// {"status":"stored"|"skipped","path":…,"sha256":…}
QJsonObject finishedFile(const FinishedFile &file);

} // namespace multilane::ProtocolJson
