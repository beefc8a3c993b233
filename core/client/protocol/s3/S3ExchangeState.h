#pragma once

#include "ProtocolOutcome.h"
#include "S3Replies.h"

#include <QMetaType>
#include <optional>

namespace multilane {

// What an S3 operation carries from one of its requests to the next (S3Protocol keeps nothing
// between calls: this travels in Exchange::state).
struct S3ExchangeState {
    enum class Stage {
        Unset,
        Refused, // nothing could be asked (a key S3 cannot take): the answer is `pending`
        Health,
        CheckObjects, // the destination check: is there any key under the prefix?
        CheckUploads, // the destination check: is any upload under the prefix unfinished?
        ConflictHead, // HEAD of the destination (or a numbered name) before anything is written
        Diagnose,     // that HEAD was refused without a body: a listing says why
        ListUploads,  // an unfinished upload a lost journal left, for this key
        ListParts,
        Create,
        UploadPart,
        Complete,
        HeadAfterComplete, // the object's ETag (Ceph's Complete has none) and metadata
        CopyMetadata,      // x-amz-meta-sha256 attached after the upload
        Put,
        Abort,
    };
    Stage stage = Stage::Unset;
    S3RequestContext request; // of the request sent, to read and explain its answer
    QString path;             // the destination path written (numbered when renamed)
    QString key;              // its object key
    int renameNumber = 0;     // 0: the path as given
    QString uploadId;         // S3's
    QByteArray existingSha256;
    QByteArray expectedEtag;            // UploadPart, Put: the MD5 sent; complete: the multipart ETag
    QList<S3PartInfo> parts;            // ListParts: the pages read so far
    std::optional<S3OpenUpload> newest; // ListUploads: the newest upload of exactly this key so far
    bool onlyIfAbsent = false;          // Put: nothing was there, and nothing may be when it lands
    bool noUnfinishedUploads = false;   // find-or-create: UploadContext::noUnfinishedUploads
    int conditionRefusedFor = -1;       // the renameNumber whose conditional Put was answered 412
    // Diagnose, HeadAfterComplete: what the operation fails with unless this answer shows better.
    std::optional<ProtocolFailure> pending;
};

} // namespace multilane

Q_DECLARE_METATYPE(multilane::S3ExchangeState)
