#include "S3UriEncoding.h"

namespace multilane::S3UriEncoding {

namespace {

bool isUnreserved(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

} // namespace

QByteArray encode(const QByteArray &utf8, bool keepSlashes)
{
    static constexpr char hexDigits[] = "0123456789ABCDEF";
    QByteArray encoded;
    encoded.reserve(utf8.size() * 3);
    for (const char c : utf8) {
        if (isUnreserved(c) || (keepSlashes && c == '/')) {
            encoded.append(c);
            continue;
        }
        const auto byte = static_cast<unsigned char>(c);
        encoded.append('%');
        encoded.append(hexDigits[byte >> 4]);
        encoded.append(hexDigits[byte & 0x0f]);
    }
    return encoded;
}

} // namespace multilane::S3UriEncoding
