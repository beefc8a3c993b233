#pragma once

#include "ProtocolOutcome.h"
#include "S3Failure.h"
#include "S3Reply.h"
#include "S3Request.h"

#include <QDateTime>

namespace multilane {

// Between the toolkit's plain values and the engine's: a signed S3Request becomes the
// WireRequest the transport sends (a file range read from the source file as it goes), a
// WireReply the S3Reply the readers take, and an S3Failure the ProtocolFailure the engine acts on.
namespace S3Wire {

WireRequest toWire(const S3Request &request, const QString &localPath = {});
// receivedAt: when the answer came (with its Date header it measures the clock skew).
S3Reply fromWire(const WireReply &reply, const QDateTime &receivedAt);
ProtocolFailure toProtocolFailure(const S3Failure &failure);
// A failure of our own making (a conflict, an ETag that does not match), never retried.
ProtocolFailure fatal(const QString &code, const QString &message);

} // namespace S3Wire
} // namespace multilane
