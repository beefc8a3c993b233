#pragma once

#include "BodyReader.h"
#include "ProtocolError.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <functional>
#include <utility>

namespace multilane {

// One HTTP request as the service sees it, without sockets: tests build these directly.
struct ServiceRequest {
    QByteArray method;                     // "GET", "PUT", …
    QByteArray path;                       // percent-decoded, without the query
    QHash<QByteArray, QByteArray> query;   // decoded
    QHash<QByteArray, QByteArray> headers; // names in lower case
    BodyReader body;                       // unset when the request has no body

    // `name` in any case, as Protocol spells it ("X-Chunk-Hash"); empty when absent.
    QByteArray header(QByteArrayView name) const { return headers.value(name.toByteArray().toLower()); }
};

// The service's answer: a JSON body, or a generated stream (the probe).
struct ServiceResponse {
    // Fills up to `capacity` bytes of the stream; returns how many.
    using StreamProducer = std::function<std::size_t(char *buffer, std::size_t capacity)>;

    int status = 200;
    QByteArray contentType = QByteArrayLiteral("application/json");
    QByteArray body;
    QList<std::pair<QByteArray, QByteArray>> headers;
    qint64 streamLength = -1; // >= 0: the body comes from `stream`
    StreamProducer stream;
    bool completedUpload = false; // a chunk's answer that completed its upload (for the metrics)

    static ServiceResponse json(int status, const QJsonObject &object);
    // {"error":{"code":…,"message":…}}, with "missing":[…] in it for incomplete uploads.
    static ServiceResponse error(const ProtocolError &error);
};

} // namespace multilane
