#pragma once

#include "UploadTypes.h"

#include <QByteArray>
#include <optional>

// The `<id>.json` record: what the first create fixed about an upload. Written once, never changed.
namespace multilane::UploadRecord {

QByteArray encode(const UploadSpec &spec);
// nullopt for a record that is not ours or is damaged.
std::optional<UploadSpec> decode(const QByteArray &json);

} // namespace multilane::UploadRecord
