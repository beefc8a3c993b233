#pragma once

#include <QByteArray>
#include <QString>
#include <algorithm>

namespace multilane {

// A local file to send and where it goes below the receiver's storage folder.
// A batch keeps one for every file from the scan to the end (in its job and in the journal's
// model), so both paths share one UTF-8 allocation: "local\0destination". UTF-8 takes half the
// bytes of QString's UTF-16 for most paths, and one array instead of two saves a header and an
// allocation a file. Neither path can hold a NUL: the file system's cannot, and a destination
// with a control character is refused before it gets here (UploadPath::problem).
class SourceFile {
public:
    SourceFile() = default;
    SourceFile(const QString &localPath, const QString &destinationPath, qint64 size, qint64 mtimeMs)
        : size(size)
        , mtimeMs(mtimeMs)
        , m_paths(joined(localPath, destinationPath))
    {}

    QString localPath() const { return QString::fromUtf8(localPathUtf8()); }             // absolute
    QString destinationPath() const { return QString::fromUtf8(destinationPathUtf8()); } // '/'-separated
    QByteArrayView localPathUtf8() const { return QByteArrayView(m_paths.constData()); }
    QByteArrayView destinationPathUtf8() const
    {
        const qsizetype separator = m_paths.indexOf('\0');
        return separator < 0 ? QByteArrayView() : QByteArrayView(m_paths).sliced(separator + 1);
    }
    void setLocalPath(const QString &path) { m_paths = joined(path, destinationPath()); }
    void setDestinationPath(const QString &path) { m_paths = joined(localPath(), path); }

    qint64 size = 0;
    qint64 mtimeMs = 0;

private:
    // Exactly the bytes needed: toUtf8() reserves three a character, and squeezing that in place
    // leaves a hole behind every path that the next, larger reservation cannot use.
    static QByteArray joined(const QString &localPath, const QString &destinationPath)
    {
        const QByteArray local = localPath.toUtf8();
        const QByteArray destination = destinationPath.toUtf8();
        QByteArray both(local.size() + 1 + destination.size(), Qt::Uninitialized);
        char *out = both.data();
        std::copy(local.cbegin(), local.cend(), out);
        out[local.size()] = '\0';
        std::copy(destination.cbegin(), destination.cend(), out + local.size() + 1);
        return both;
    }

    QByteArray m_paths;
};

} // namespace multilane
