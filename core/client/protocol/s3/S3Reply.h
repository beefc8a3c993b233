#pragma once

#include "S3Request.h"

#include <QDateTime>
#include <QNetworkReply>

namespace multilane {

// A finished answer as plain data, filled by whatever transport sent the request.
struct S3Reply {
    int httpStatus = 0; // 0: no HTTP answer came
    HttpHeaders headers;
    QByteArray body;
    QNetworkReply::NetworkError networkError = QNetworkReply::NoError;
    QString networkErrorText; // Qt's words for it
    QDateTime receivedAt;     // local time the answer came; with the Date header it gives the clock skew

    QByteArray header(const QByteArray &name) const { return headerValue(headers, name); }
};

} // namespace multilane
