#include "FuzzRequestDecoder.h"

#include "ChunkHash.h"

namespace FuzzRequestDecoder {

namespace {

FuzzRequest decodeOne(const QByteArray &text)
{
    FuzzRequest request;
    qsizetype headEnd = text.indexOf("\n\n");
    const QByteArray head = headEnd < 0 ? text : text.left(headEnd);
    if (headEnd >= 0) {
        request.body = text.mid(headEnd + 2);
        request.hasBody = true;
    }
    const QList<QByteArray> lines = head.split('\n');
    const QByteArray &first = lines.constFirst();
    const qsizetype space = first.indexOf(' ');
    request.method = space < 0 ? first : first.left(space);
    const QByteArray target = space < 0 ? QByteArray() : first.mid(space + 1);
    const qsizetype question = target.indexOf('?');
    request.path = question < 0 ? target : target.left(question);
    if (question >= 0) {
        for (const QByteArray &pair : target.mid(question + 1).split('&')) {
            const qsizetype equals = pair.indexOf('=');
            request.query.insert(equals < 0 ? pair : pair.left(equals),
                                 equals < 0 ? QByteArray() : pair.mid(equals + 1));
        }
    }
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines.at(i).indexOf(':');
        if (colon > 0)
            request.headers.insert(lines.at(i).left(colon).trimmed().toLower(),
                                   lines.at(i).mid(colon + 1).trimmed());
    }
    return request;
}

} // namespace

QList<FuzzRequest> decode(const QByteArray &input)
{
    QList<FuzzRequest> requests;
    qsizetype start = 0;
    while (start <= input.size() && requests.size() < MaxRequests) {
        qsizetype end = input.indexOf("\n%%\n", start);
        if (end < 0)
            end = input.size();
        requests.append(decodeOne(input.mid(start, end - start)));
        start = end + 4;
    }
    return requests;
}

multilane::ServiceRequest toServiceRequest(const FuzzRequest &request, const QByteArray &lastId,
                                           std::size_t pieceSize)
{
    multilane::ServiceRequest converted;
    converted.method = request.method;
    converted.path = QByteArray(request.path).replace("@ID", lastId);
    converted.query = request.query;
    const QByteArray hash = multilane::ChunkHash::toHeader(
        multilane::ChunkHash::of(request.body.constData(), std::size_t(request.body.size())));
    for (auto it = request.headers.cbegin(); it != request.headers.cend(); ++it)
        converted.headers.insert(it.key(), QByteArray(it.value()).replace("@XXH3", hash));
    if (request.hasBody) {
        const QByteArray body = request.body;
        converted.body = [body, pieceSize](const multilane::BodySink &sink) {
            for (qsizetype done = 0; done < body.size(); done += qsizetype(pieceSize)) {
                const auto length = std::min<std::size_t>(pieceSize, std::size_t(body.size() - done));
                if (!sink(body.constData() + done, length))
                    return false;
            }
            return true;
        };
    }
    return converted;
}

} // namespace FuzzRequestDecoder
