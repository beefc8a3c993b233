#pragma once

#include "UploadStore.h"

// An UploadStore that hands every call to another one, except the limits and the space, which a
// test sets: to check that the service asks the store for them instead of assuming.
class ForwardingStore final : public multilane::UploadStore {
public:
    explicit ForwardingStore(multilane::UploadStore &inner)
        : storeLimits(inner.limits())
        , m_inner(inner)
    {}

    multilane::StoreLimits storeLimits;
    std::optional<multilane::StorageSpace> storageSpace; // unset: the inner store's

    std::optional<multilane::ProtocolError> prepare() override { return m_inner.prepare(); }
    QString location() const override { return m_inner.location(); }
    multilane::StoreLimits limits() const override { return storeLimits; }
    multilane::Result<multilane::CreateOutcome> createUpload(const multilane::UploadSpec &spec) override
    {
        return m_inner.createUpload(spec);
    }
    multilane::Result<multilane::UploadState> findUpload(const QByteArray &id) override
    {
        return m_inner.findUpload(id);
    }
    multilane::Result<multilane::UploadState> findUploadByKey(const multilane::UploadKey &key) override
    {
        return m_inner.findUploadByKey(key);
    }
    multilane::Result<multilane::ChunkOutcome> writeChunk(const QByteArray &id, qint64 index, qint64 length,
                                                          quint64 expectedHash,
                                                          const multilane::BodyReader &body) override
    {
        return m_inner.writeChunk(id, index, length, expectedHash, body);
    }
    multilane::Result<multilane::FinishedFile> completeUpload(const QByteArray &id,
                                                              const QByteArray &expectedSha256) override
    {
        return m_inner.completeUpload(id, expectedSha256);
    }
    std::optional<multilane::Result<multilane::FinishedFile>> completeIfWhole(const QByteArray &id,
                                                                              const QByteArray &sha) override
    {
        return m_inner.completeIfWhole(id, sha);
    }
    multilane::Result<multilane::Done> abortUpload(const QByteArray &id) override
    {
        return m_inner.abortUpload(id);
    }
    multilane::Result<multilane::FinishedFile> putFile(const QString &path, qint64 size,
                                                       multilane::ConflictPolicy onConflict,
                                                       const QByteArray &expectedSha256,
                                                       const multilane::BodyReader &body) override
    {
        return m_inner.putFile(path, size, onConflict, expectedSha256, body);
    }
    std::optional<QString> uploadPath(const QByteArray &id) override { return m_inner.uploadPath(id); }
    multilane::FolderUsage usage(const QString &folder, bool withFinishedBytes) override
    {
        return m_inner.usage(folder, withFinishedBytes);
    }
    multilane::StorageSpace space() override { return storageSpace ? *storageSpace : m_inner.space(); }
    multilane::SweepReport sweepExpired(std::chrono::seconds expireAfter,
                                        std::chrono::system_clock::time_point now) override
    {
        return m_inner.sweepExpired(expireAfter, now);
    }

private:
    multilane::UploadStore &m_inner;
};
