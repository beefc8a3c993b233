#pragma once

#include "FileTokenStore.h"
#include "MainWindow.h"
#include "SettingsStore.h"
#include "TransferController.h"
#include "TransferTableModel.h"

#include <QList>
#include <QUrl>

// One main window with its collaborators over temporary settings (1 MiB chunks, no link probe),
// and a journal when the test gives one. Shared by the window tests.
struct WindowHarness {
    WindowHarness(const QString &dir, const QList<QUrl> &endpoints, bool startOnDrop,
                  multilane::ResumeJournal *journal = nullptr,
                  multilane::ReachabilityHint *reachability = nullptr)
        : settings(dir + QStringLiteral("/settings.json"), dir + QStringLiteral("/managed.json"))
        , tokens(dir + QStringLiteral("/tokens.json"))
        , controller(settings, journal, reachability)
        , window(settings, tokens, controller, {})
    {
        settings.load();
        multilane::UserSettings values = settings.values();
        for (const QUrl &url : endpoints) {
            multilane::EndpointEntry entry;
            entry.endpoint.url = url;
            values.endpoints.append(entry);
        }
        values.startOnDrop = startOnDrop;
        values.chunkSizeAuto = false;
        values.chunkSize = 1024 * 1024;
        settings.update(values);
    }
    QString cell(int row, int column)
    {
        return window.model().data(window.model().index(row, column)).toString();
    }
    int progress(int row)
    {
        return window.model()
            .data(window.model().index(row, 0), multilane::TransferTableModel::ProgressRole)
            .toInt();
    }

    multilane::SettingsStore settings;
    multilane::FileTokenStore tokens;
    multilane::TransferController controller;
    multilane::MainWindow window;
};
