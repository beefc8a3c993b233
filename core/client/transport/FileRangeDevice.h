#pragma once

#include <QFile>
#include <QIODevice>

namespace multilane {

// A read-only view of [offset, offset + length) of a file, so a chunk's request body streams
// from disk instead of sitting in memory (12 connections x 64 MiB chunks would be 768 MiB).
// Random access and a known size let QNetworkAccessManager rewind it for a resend.
class FileRangeDevice : public QIODevice {
    Q_OBJECT
public:
    FileRangeDevice(const QString &path, qint64 offset, qint64 length, QObject *parent = nullptr);

    bool open(OpenMode mode) override;
    void close() override;
    bool isSequential() const override { return false; }
    qint64 size() const override { return m_length; }
    bool seek(qint64 position) override;

protected:
    qint64 readData(char *data, qint64 maxSize) override;
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    QFile m_file;
    qint64 m_offset;
    qint64 m_length;
};

} // namespace multilane
