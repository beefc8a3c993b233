#include "FileRangeDevice.h"

#include <algorithm>

namespace multilane {

FileRangeDevice::FileRangeDevice(const QString &path, qint64 offset, qint64 length, QObject *parent)
    : QIODevice(parent)
    , m_file(path)
    , m_offset(offset)
    , m_length(length)
{}

bool FileRangeDevice::open(OpenMode mode)
{
    if ((mode & QIODevice::WriteOnly) || !m_file.open(QIODevice::ReadOnly | QIODevice::Unbuffered)) {
        setErrorString(m_file.errorString());
        return false;
    }
    if (!m_file.seek(m_offset)) {
        setErrorString(m_file.errorString());
        m_file.close();
        return false;
    }
    // Unbuffered: QIODevice's own buffer would only add a copy; reads go straight to the file.
    return QIODevice::open(mode | QIODevice::Unbuffered);
}

void FileRangeDevice::close()
{
    m_file.close();
    QIODevice::close();
}

bool FileRangeDevice::seek(qint64 position)
{
    if (position < 0 || position > m_length || !m_file.seek(m_offset + position))
        return false;
    return QIODevice::seek(position);
}

qint64 FileRangeDevice::readData(char *data, qint64 maxSize)
{
    const qint64 remaining = m_length - pos();
    if (remaining <= 0)
        return 0;
    const qint64 got = m_file.read(data, std::min(maxSize, remaining));
    if (got < 0)
        setErrorString(m_file.errorString());
    // A file truncated under us reads short; report it as an error rather than a short body.
    if (got == 0)
        return -1;
    return got;
}

} // namespace multilane
