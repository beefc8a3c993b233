#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace multilane {

// The rules a destination path must follow (docs/protocol.md, "Conventions"). The receiver
// enforces them so nothing lands outside its storage folder; the client checks them first so
// the user hears about a bad name before any byte is sent.
namespace UploadPath {

inline constexpr int MaxComponentBytes = 255;
inline constexpr int MaxPathBytes = 4096;
inline constexpr char PrivateFolder[] = ".multilane";

// nullopt when the UTF-8 path is acceptable; otherwise why it is not.
std::optional<QString> problem(const QByteArray &utf8Path);

// Joins destination parts with '/', dropping empty parts and surrounding slashes.
QString join(const QString &left, const QString &right);

} // namespace UploadPath
} // namespace multilane
