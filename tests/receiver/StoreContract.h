#pragma once

#include "UploadStore.h"

#include <QObject>
#include <QTemporaryDir>
#include <functional>
#include <memory>

// One UploadStore implementation, as the contract suite makes and inspects it.
struct StoreBackend {
    QString name;
    // A store that keeps its uploads in (or configures itself from) `scratch`, a new empty folder.
    // The suite calls prepare() itself.
    std::function<std::unique_ptr<multilane::UploadStore>(const QString &scratch)> make;
    // The bytes of the finished file at destination `path`, nullopt when there is none: the
    // interface has no read call, and the suite must see what complete and putFile stored.
    std::function<std::optional<QByteArray>(const QString &scratch, const QString &path)> readFinished;
};

// What every UploadStore must do, through the interface alone (docs/protocol.md gives the
// semantics): the same tests for each implementation, so a new store is done when this passes on
// it. tst_storecontract runs it against every backend it knows.
class StoreContract : public QObject {
    Q_OBJECT

public:
    explicit StoreContract(StoreBackend backend);

private Q_SLOTS:
    void init();
    void cleanup();

    void describesItself();
    void createAndFindByKey();
    void firstChunkSizeStays();
    void chunkWriteAndDuplicate();
    void wrongHashIsRefused();
    void wrongLengthOrIndexIsRefused();
    void completeWithTheRightSha256();
    void completeWithAWrongSha256ResetsEveryChunk();
    void completeBeforeEveryChunkNamesTheMissing();
    void completeAgainAndCreateAfterDone();
    void completeIfWholeWaitsForEveryChunkWritten();
    void abort();
    void putWholeFile();
    void conflictPolicies();
    void emptyFile();
    void sameChunkFromTwoThreads();
    void usage();
    void expiry();

private:
    std::optional<QByteArray> stored(const QString &path) const;
    // Creates, writes every chunk and completes; the complete's result.
    multilane::Result<multilane::FinishedFile>
    upload(const QString &path, const QByteArray &data, qint64 chunkSize,
           multilane::ConflictPolicy onConflict = multilane::ConflictPolicy::Rename, qint64 mtime = 1);

    StoreBackend m_backend;
    std::unique_ptr<QTemporaryDir> m_scratch;
    std::unique_ptr<multilane::UploadStore> m_store;
};
