#pragma once

class QNetworkReply;

namespace multilane {

// How a QNetworkReply is let go of without Qt complaining on the user's stderr. When the peer
// dies mid-request, Qt 6.4's HTTP thread may report the failure twice (the reset, then the end of
// the stream); the second report, queued to the reply after its finished(), makes Qt print
// "QNetworkReplyImplPrivate::error: Internal problem, this method must only be called once.".
// Aborting a reply whose failure is in but whose finished() is still queued does the same.
namespace ReplyEnd {
// After finished(): drops what the HTTP thread still queued to the reply, and deletes it later.
void release(QNetworkReply *reply);
// Aborts the reply only while it runs without a failure; a failed one finishes by itself.
void abortIfRunning(QNetworkReply &reply);
} // namespace ReplyEnd

} // namespace multilane
