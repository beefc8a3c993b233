#include "ProbeUploadBody.h"

#include <QRandomGenerator>
#include <algorithm>
#include <cstring>

namespace multilane {

ProbeUploadBody::ProbeUploadBody(qint64 length, const QByteArray &pattern, QObject *parent)
    : QIODevice(parent)
    , m_length(length)
    , m_pattern(pattern)
{
    Q_ASSERT(!m_pattern.isEmpty());
}

QByteArray ProbeUploadBody::randomPattern(int bytes)
{
    // Whole words are drawn; the last partial one is cut off.
    QByteArray pattern((bytes + int(sizeof(quint32)) - 1) / int(sizeof(quint32)) * int(sizeof(quint32)),
                       Qt::Uninitialized);
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(pattern.data()),
                                          pattern.size() / int(sizeof(quint32)));
    pattern.truncate(bytes);
    return pattern;
}

qint64 ProbeUploadBody::readData(char *data, qint64 maxSize)
{
    qint64 done = 0;
    const qint64 wanted = std::min(maxSize, m_length - pos());
    while (done < wanted) {
        const qint64 offset = (pos() + done) % m_pattern.size();
        const qint64 take = std::min(wanted - done, qint64(m_pattern.size()) - offset);
        std::memcpy(data + done, m_pattern.constData() + offset, std::size_t(take));
        done += take;
    }
    return done;
}

} // namespace multilane
