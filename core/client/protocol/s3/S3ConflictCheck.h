#pragma once

#include "ConflictPolicy.h"
#include "S3Replies.h"
#include "SourceFile.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace multilane {

// What to do about the object a HEAD found where a file is about to be written. S3 has no
// "create unless it exists", so the check is made before the upload starts: an object written
// by someone else between the check and the end of the upload is replaced (docs/s3.md).
struct S3ConflictDecision {
    enum class Action {
        Write,       // nothing there, or it may be replaced
        Skip,        // the very file is there (same size and x-amz-meta-sha256), or the policy says skip
        TryNextName, // rename: HEAD "name (N).ext" next
        Refuse,      // the policy is fail
    };
    Action action = Action::Write;
    // Write/TryNextName over an object of the same size whose SHA-256 is known while the file's
    // own is not yet: the engine compares the two once it has hashed the file.
    QByteArray existingSha256;
    QString message; // Refuse: for people
};

namespace S3ConflictCheck {

// How many numbered names rename tries (one HEAD each) before it gives up.
inline constexpr int MaxNumberedNames = 100;

// "photos/a.jpg", 2 -> "photos/a (2).jpg"; a leading dot is no extension (".bashrc (2)"), as
// the receiver names its copies.
QString numberedPath(const QString &path, int number);
// object: what the HEAD found (nullopt: no such object); sha256Hex: the file's, empty while it
// is not known yet; where: the object as people name it, for the refusal.
S3ConflictDecision decide(const std::optional<S3ObjectHead> &object, const SourceFile &source,
                          const QByteArray &sha256Hex, ConflictPolicy policy, const QString &where);

} // namespace S3ConflictCheck
} // namespace multilane
