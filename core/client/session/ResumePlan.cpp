#include "ResumePlan.h"

#include "LocalFileStat.h"
#include "ResumeJournal.h"

namespace multilane {

UploadPlan ResumePlan::planFor(const JournalBatch &batch, const Options &options)
{
    UploadPlan plan;
    plan.endpoints = batch.endpoints;
    plan.s3 = batch.s3;
    plan.s3Credentials = options.s3Credentials;
    for (Endpoint &endpoint : plan.endpoints) {
        // S3 gateways take signed requests, never a bearer token.
        if (endpoint.token.isEmpty() && !plan.s3.isSet())
            endpoint.token = options.tokenOverride;
    }
    // The file was readable when the options were parsed; an error here is a race at worst, and
    // leaves the endpoint on the system CAs, where the TLS error says what to do.
    EndpointParser::applyTlsDefaults(plan.endpoints, options.caFile, options.pinSha256);
    plan.destination = batch.destination;
    plan.transfer = options.transfer;
    plan.transfer.onConflict = batch.onConflict;
    // A chunk size or connection count the user fixed holds for the resume; automatic ones are
    // found again.
    plan.autoChunkSize = batch.chunkSize <= 0;
    if (batch.chunkSize > 0)
        plan.transfer.chunkSize = batch.chunkSize;
    plan.connectionsFixed = batch.connections > 0;
    if (plan.connectionsFixed)
        plan.transfer.connections = batch.connections;
    plan.unreachableAtStart = options.unreachableAtStart;
    return plan;
}

ResumePlan::ResumePlan(ResumeJournal &journal, const Options &options)
{
    const ResumeJournal::Snapshot snapshot = journal.state();
    for (const JournalBatch &journaled : snapshot.batches) {
        Batch batch{journaled.id, planFor(journaled, options), {}};
        for (const JournalFile &file : snapshot.files) {
            if (file.batchId != journaled.id)
                continue;
            const std::optional<LocalFileStat> now = LocalFileStat::of(file.source.localPath());
            if (!now || !now->isRegular) {
                m_problems.append(
                    QStringLiteral("%1 is gone; its upload is dropped").arg(file.source.localPath()));
                journal.endFile(file.key);
                continue;
            }
            if (now->size == file.source.size && now->mtimeMs == file.source.mtimeMs) {
                batch.files.append(file);
                continue;
            }
            if (!options.restartChangedFiles) {
                m_problems.append(QStringLiteral("%1 changed since its upload started; not resumed "
                                                 "(--on-change restart sends it again from zero)")
                                      .arg(file.source.localPath()));
                journal.endFile(file.key);
                continue;
            }
            m_notices.append(QStringLiteral("%1 changed since its upload started; sending it again from zero")
                                 .arg(file.source.localPath()));
            JournalFile restarted;
            restarted.batchId = journaled.id;
            restarted.source = file.source;
            restarted.source.size = now->size;
            restarted.source.mtimeMs = now->mtimeMs;
            // A new record: the server sees another key (size, mtime), so a fresh upload.
            restarted.key = journal.addFile(journaled.id, restarted.source).value_or(file.key);
            batch.files.append(restarted);
        }
        if (!batch.files.isEmpty())
            m_batches.append(batch);
    }
}

} // namespace multilane
