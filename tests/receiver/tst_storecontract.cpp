#include "StoreContract.h"

#include "LocalFolderStore.h"

#include <QFile>
#include <QTest>

using namespace multilane;

// The store contract (StoreContract) run against every UploadStore there is. A new store adds its
// backend here: how to make one, and how to read a finished file back.
int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QList<StoreBackend> backends{
        {QStringLiteral("local folder"),
         [](const QString &scratch) {
             return std::make_unique<LocalFolderStore>(scratch + QStringLiteral("/storage"));
         },
         [](const QString &scratch, const QString &path) -> std::optional<QByteArray> {
             QFile file(scratch + QStringLiteral("/storage/") + path);
             if (!file.open(QIODevice::ReadOnly))
                 return std::nullopt;
             return file.readAll();
         }},
    };
    int failed = 0;
    for (const StoreBackend &backend : backends) {
        StoreContract contract(backend);
        failed += QTest::qExec(&contract, argc, argv);
    }
    return failed;
}
