#pragma once

#include "SourceFile.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace multilane {

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
