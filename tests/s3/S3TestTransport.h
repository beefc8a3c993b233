#pragma once

#include "S3Reply.h"
#include "S3Request.h"

#include <QNetworkAccessManager>
#include <QString>

namespace multilane {

// Sends S3Request values the plainest way: one QNetworkAccessManager, the headers as built, a
// file range read into memory (test files are small). Redirects are not followed: a signature
// is only good for the host it was made for.
class S3TestTransport {
public:
    // Blocks (running the event loop) until the answer is in, or 60 s passed.
    S3Reply send(const S3Request &request, const QString &sourceFile = {});

private:
    QNetworkAccessManager m_manager;
};

} // namespace multilane
