#pragma once

#include "ResumeJournalTypes.h"
#include "UploadPlan.h"

#include <QList>
#include <QStringList>

namespace multilane {

class ResumeJournal;

// What `multilane resume` and the window's "resume" both do with the journal: every unfinished
// batch with the files still to send, each with the plan it started with. A source that is gone
// leaves the journal; one that changed since (size or mtime) is sent again from zero, or, with
// restartChangedFiles off, left out; either way the user is told.
class ResumePlan {
public:
    struct Options {
        TransferOptions transfer; // retries, timeouts, limits: the resuming side's own
        QByteArray tokenOverride; // for endpoints whose token was not journaled
        QString caFile;           // for https endpoints that set no CA of their own
        QByteArray pinSha256;     // likewise
        // Keys for S3 batches (the window's keyring); none: found as aws-cli finds them, with
        // the profile the batch was started with.
        std::optional<S3Credentials> s3Credentials;
        bool restartChangedFiles = true; // false: a changed source is not resumed (--on-change fail)
        UploadPlan::Unreachable unreachableAtStart = UploadPlan::Unreachable::Exclude;
    };
    struct Batch {
        QString id;
        UploadPlan plan;
        QList<JournalFile> files; // as journaled: upload ids and receipts for the protocol
    };

    // Reads the journal's live state and applies to it what the sources say (ends gone files,
    // records restarted ones as new uploads).
    ResumePlan(ResumeJournal &journal, const Options &options);

    const QList<Batch> &batches() const { return m_batches; }
    // Files that cannot be resumed, in words (gone, changed with restart off).
    const QStringList &problems() const { return m_problems; }
    // Worth telling, not failures (a changed file sent again from zero).
    const QStringList &notices() const { return m_notices; }

    static UploadPlan planFor(const JournalBatch &batch, const Options &options);

private:
    QList<Batch> m_batches;
    QStringList m_problems;
    QStringList m_notices;
};

} // namespace multilane
