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

// The client's destination name for a local name (one component, no '/'): every byte the rules
// above refuse inside a name (a control character, DEL, a backslash) becomes "%HH" (uppercase
// hex), and so does a '%' that is followed by two hex digits, so that unescapeName() gives the
// local name back exactly; any other name, '%' included, is unchanged. Being reversible, two
// different local names never get the same destination name.
QString escapeName(const QString &localName);
// The inverse: every "%HH" (either case) becomes its byte; anything else is kept.
QString unescapeName(const QString &destinationName);
// escapeName() of every '/'-separated component of a relative local path.
QString escapeComponents(const QString &relativePath);

} // namespace UploadPath
} // namespace multilane
