#pragma once

#include "S3PartPlan.h"
#include "S3Replies.h"
#include "S3Requests.h"

#include <QMap>

namespace multilane {

// Where a resumed multipart upload stands after ListParts.
struct S3Reconciliation {
    QList<int> toSend;              // missing on the server, or held with another size or ETag
    QList<S3CompletedPart> present; // held as planned and as sent, in part order (for Complete)
    QList<int> toVerify;            // held with the planned size, but no local ETag is known
                                    // (journal lost): hash those ranges and reconcile again
};

// Compares the parts a server holds with the plan and the ETags known locally (the journal's,
// or MD5s computed again), so a resume sends only what is missing and completes with parts
// proven to hold the file's bytes.
namespace S3PartReconciler {

// knownEtags: part number -> ETag of the bytes of that range (quoted or not).
S3Reconciliation reconcile(const S3PartPlan &plan, const QMap<int, QByteArray> &knownEtags,
                           const QList<S3PartInfo> &serverParts);

} // namespace S3PartReconciler
} // namespace multilane
