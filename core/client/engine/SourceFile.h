#pragma once

#include <QString>

namespace multilane {

// A local file to send and where it goes below the receiver's storage folder.
struct SourceFile {
    QString localPath;       // absolute
    QString destinationPath; // relative, '/'-separated
    qint64 size = 0;
    qint64 mtimeMs = 0;
};

} // namespace multilane
