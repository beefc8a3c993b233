#pragma once

#include "ChaosProfile.h"

#include <QMap>
#include <QString>
#include <QStringList>

// The files a chaos run sends, drawn from its seed: one big file, a folder of medium files, a
// folder of small ones (with names that hold a backslash, a newline and a '%', and a FIFO that
// must be named as skipped), and the storage they must end up in, byte for byte, nothing more.
class ChaosData {
public:
    // Writes the files below `folder`; false if the disk refused.
    bool write(const QString &folder, const ChaosProfile &profile);
    // The paths to give `multilane upload`.
    QStringList sources() const { return m_sources; }
    qint64 totalBytes() const { return m_totalBytes; }
    int fileCount() const { return int(m_expected.size()); }
    QString fifoPath() const { return m_fifo; }
    // What is wrong with `storage` (missing, different or extra files), empty when nothing.
    QStringList problemsIn(const QString &storage) const;

private:
    bool add(const QString &local, const QString &destination, qint64 size, quint32 seed);

    QStringList m_sources;
    QMap<QString, QString> m_expected; // destination (as stored) -> local file
    QString m_fifo;
    qint64 m_totalBytes = 0;
};
