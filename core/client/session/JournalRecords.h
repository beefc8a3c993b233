#pragma once

#include "ResumeJournalTypes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <optional>

namespace multilane {

// The journal's on-disk form: one JSON object per line behind its CRC-32 in hex
// ("1a2b3c4d {…}\n"), and the JSON of each record type. Nothing here touches a file.
namespace JournalRecords {

// CRC-32 (IEEE 802.3, as zlib) of the bytes.
quint32 checksum(QByteArrayView bytes);
// One line: CRC, space, JSON, newline.
QByteArray frame(const QByteArray &json);
// The JSON object of one complete line (without its '\n'), or nullopt if the CRC or JSON is bad.
std::optional<QJsonObject> decode(QByteArrayView line);
QByteArray compact(const QJsonObject &object);

// Keys and receipts go into the hand-built ack record unescaped, so only what needs no escaping
// is accepted (hex digits, letters, '-' and '_').
bool isPlainToken(const QString &text);

QJsonObject batch(const JournalBatch &batch);
QJsonObject file(const QString &batchId, const QString &key, const SourceFile &source);
// The upload a server accepted, with (after compaction) the acknowledged chunks folded into
// [first, last] ranges and their receipts.
QJsonObject upload(const JournalFile &file, bool withAcknowledged);
QByteArray ack(const QString &key, int chunk, const QByteArray &receipt);
QJsonObject end(const QString &key);

std::optional<JournalBatch> readBatch(const QJsonObject &record);

QJsonObject link(const LinkMemory &memory);
std::optional<LinkMemory> readLink(const QJsonObject &record);

} // namespace JournalRecords
} // namespace multilane
