#pragma once

#include "AccessToken.h"

#include <QList>
#include <QString>

// Reads the --token-file (format in docs/admin.md): one token per line with optional
// `id=`, `folder=` and `quota=` settings; `#` comments and blank lines are ignored.
namespace multilane::TokenFile {

inline constexpr int MinTokenLength = 16;
inline constexpr int MaxTokenLength = 512;

struct Result {
    QList<AccessToken> tokens;
    QString error; // "FILE:LINE: what is wrong and what to do"; empty when the file is good
};

Result parse(const QByteArray &content, const QString &fileName);
Result load(const QString &fileName);
// The id a token gets without `id=`: the first 8 hex digits of its SHA-256 (not reversible).
QString defaultId(const QByteArray &sha256Hex);

} // namespace multilane::TokenFile
