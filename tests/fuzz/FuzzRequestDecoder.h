#pragma once

#include "ServiceMessages.h"

#include <QByteArray>
#include <QList>

// Turns fuzz input into service requests. The format is text, so the seed corpus stays readable:
//
//   METHOD PATH[?QUERY]\n
//   header-name: value\n
//   \n
//   body bytes
//
// with several requests separated by "\n%%\n". In a path, "@ID" stands for the id of the last
// upload created in the same input; in a header, "@XXH3" for the body's chunk hash. Without them a
// fuzzer could never guess an id or a hash, and would only see the refusals.
struct FuzzRequest {
    QByteArray method;
    QByteArray path;
    QHash<QByteArray, QByteArray> query;
    QHash<QByteArray, QByteArray> headers;
    QByteArray body;
    bool hasBody = false;
};

namespace FuzzRequestDecoder {

inline constexpr int MaxRequests = 8;

QList<FuzzRequest> decode(const QByteArray &input);
// The request with "@ID" and "@XXH3" filled in, and a body reader that hands the body out in
// pieces of `pieceSize` bytes (as the HTTP layer does).
multilane::ServiceRequest toServiceRequest(const FuzzRequest &request, const QByteArray &lastId,
                                           std::size_t pieceSize);

} // namespace FuzzRequestDecoder
