#include "Translations.h"

#include <QCoreApplication>
#include <QLocale>
#include <QTranslator>

namespace multilane::Translations {

void install()
{
    static bool installed = false;
    if (installed || !QCoreApplication::instance())
        return;
    installed = true;
    // Translations are resources of the ui library (qt_add_translations), made by lrelease.
    auto *english = new QTranslator(QCoreApplication::instance());
    if (english->load(QStringLiteral(":/i18n/multilane_en.qm")))
        QCoreApplication::installTranslator(english);
    auto *local = new QTranslator(QCoreApplication::instance());
    if (QLocale().language() != QLocale::English &&
        local->load(QLocale(), QStringLiteral("multilane"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        QCoreApplication::installTranslator(local);
}

} // namespace multilane::Translations
