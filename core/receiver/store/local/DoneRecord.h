#pragma once

#include "UploadTypes.h"

#include <QByteArray>
#include <optional>

// The `<id>.done` record: where a completed upload went, so a repeated complete or create (from a
// client that crashed before reading the answer) gets the same answer again.
namespace multilane::DoneRecord {

QByteArray encode(const FinishedFile &file, qint64 size);
struct Decoded {
    FinishedFile file;
    qint64 size = 0;
};
std::optional<Decoded> decode(const QByteArray &json);

} // namespace multilane::DoneRecord
