#pragma once

#include <QByteArray>
#include <QIODevice>

namespace multilane {

// The body of an upload probe (PUT /v1/discard): `length` bytes made on the fly by repeating a
// random pattern, so a probe of any length costs no memory and no disk. Random, so nothing on the
// way can compress it into a flattering number; random access, so Qt can rewind it for a resend.
class ProbeUploadBody : public QIODevice {
    Q_OBJECT
public:
    ProbeUploadBody(qint64 length, const QByteArray &pattern, QObject *parent = nullptr);

    bool isSequential() const override { return false; }
    qint64 size() const override { return m_length; }

    // `bytes` random bytes: a probe's pattern (one per probe, shared by its streams), the speed
    // test's payload.
    static QByteArray randomPattern(int bytes = 1024 * 1024);

protected:
    qint64 readData(char *data, qint64 maxSize) override;
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    qint64 m_length;
    QByteArray m_pattern;
};

} // namespace multilane
