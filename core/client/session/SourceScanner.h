#pragma once

#include "SourceFile.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace multilane {

// Expands the user's paths into files like `cp -r` would: a file lands under its own name, a
// folder under its name with its tree kept. Hidden files are included. Every entry found is
// either sent or named: a name the protocol refuses is sent under its escaped form
// (UploadPath::escapeName), what is not a regular file (a FIFO, a socket, a device, a symbolic
// link to a folder, which is not followed, a dangling link or a loop) is listed in `skipped` with
// the reason, and what cannot be read is an error.
class SourceScanner {
public:
    struct Skipped {
        QString path;
        QString reason; // "a FIFO (named pipe)", "a dangling symbolic link to /x", …
    };
    struct Result {
        QList<SourceFile> files;
        QStringList errors; // one line each, e.g. "no such file: /tmp/x"
        QList<Skipped> skipped;
    };

    static Result scan(const QStringList &paths, const QString &destinationPrefix);
    // Why the entry at `path` is not sent, when it is neither a regular file (nor a link to
    // one) nor a folder; nullopt for those. Looks at the entry itself (lstat), then its target.
    static std::optional<QString> notSendable(const QString &path);
};

} // namespace multilane
