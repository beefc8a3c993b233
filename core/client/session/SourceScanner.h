#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace multilane {

// A local file to send and where it goes below the receiver's storage folder.
struct SourceFile {
    QString localPath;       // absolute
    QString destinationPath; // relative, '/'-separated
    qint64 size = 0;
    qint64 mtimeMs = 0;
};

// Expands the user's paths into files like `cp -r` would: a file lands under its own name, a
// folder under its name with its tree kept. Hidden files are included; symlinked folders are
// not followed (no loops); sockets and fifos are skipped.
class SourceScanner {
public:
    struct Result {
        QList<SourceFile> files;
        QStringList errors; // one line each, e.g. "no such file: /tmp/x"
    };

    static Result scan(const QStringList &paths, const QString &destinationPrefix);
};

} // namespace multilane
