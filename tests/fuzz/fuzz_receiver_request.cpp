// libFuzzer target: decoded requests (FuzzRequestDecoder) through RequestRouter and
// ProtocolService over a LocalFolderStore in a temporary folder, as the HTTP layer would send
// them. Crashes, sanitizer reports, and these properties are findings:
//  - every answer is a status between 100 and 599, and every error has a JSON error code;
//  - nothing is ever created outside the storage folder (checked after each input).
#include "FuzzRequestDecoder.h"

#include "LocalFolderStore.h"
#include "ProtocolService.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <sys/resource.h>

using namespace multilane;

namespace {

struct Fixture {
    QTemporaryDir root;
    QString storage;
    std::unique_ptr<LocalFolderStore> store;
    std::unique_ptr<ProtocolService> service;

    Fixture()
    {
        // A create of a huge file pre-sizes it; the file size limit turns that into an error
        // (EFBIG) instead of filling the disk.
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit{64 << 20, 64 << 20};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        storage = root.path() + QStringLiteral("/storage");
        store = std::make_unique<LocalFolderStore>(storage);
        // Free space "cannot tell", as before the service asked the store: runs do not depend on
        // how full the disk is (a full one would turn every create into 507).
        ProtocolService::Options options;
        options.freeSpace = [] { return std::optional<qint64>(); };
        service = std::make_unique<ProtocolService>(*store, std::move(options));
        if (!root.isValid() || store->prepare())
            std::abort();
    }

    // Each input starts from an empty storage folder, so runs are reproducible.
    void reset()
    {
        QDir(storage).removeRecursively();
        if (store->prepare())
            std::abort();
    }
};

void checkResponse(const ServiceResponse &response)
{
    if (response.status < 100 || response.status > 599)
        std::abort();
    if (response.status >= 400) {
        const QJsonObject error =
            QJsonDocument::fromJson(response.body).object().value(QStringLiteral("error")).toObject();
        if (error.value(QStringLiteral("code")).toString().isEmpty() ||
            error.value(QStringLiteral("message")).toString().isEmpty())
            std::abort();
    }
    if (response.streamLength >= 0 && response.stream) {
        char buffer[4096];
        response.stream(buffer, sizeof buffer); // the probe's generator
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static Fixture fixture;
    const QByteArray input = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    QByteArray lastId;
    // The piece size the body is handed out in varies with the input, as TCP reads do.
    const std::size_t pieceSize = size == 0 ? 1 : 1 + data[0] % 97 * 43;
    for (const FuzzRequest &request : FuzzRequestDecoder::decode(input)) {
        const ServiceResponse response =
            fixture.service->handle(FuzzRequestDecoder::toServiceRequest(request, lastId, pieceSize));
        checkResponse(response);
        const QJsonObject answer = QJsonDocument::fromJson(response.body).object();
        if (request.path == "/v1/uploads" && answer.contains(QStringLiteral("id")))
            lastId = answer.value(QStringLiteral("id")).toString().toLatin1();
    }
    const QStringList outside =
        QDir(fixture.root.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    if (outside != QStringList{QStringLiteral("storage")})
        std::abort();
    fixture.reset();
    return 0;
}
