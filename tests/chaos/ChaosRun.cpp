#include "ChaosRun.h"

#include "LedgerProxy.h"
#include "QtMessages.h"

#include <QFile>

namespace {

// A receiver kill at a request's moment waits this long after it, so the request is in the
// receiver's hands (a create being stored, a complete hashing) rather than still in ours.
constexpr int ReceiverKillDelayMs = 3;

int chunkIndexOf(const WireLedger::Request &request)
{
    return request.target.split('?').value(0).split('/').constLast().toInt();
}

} // namespace

ChaosRun::ChaosRun(const ChaosProfile &profile, QObject *parent)
    : QObject(parent)
    , m_profile(profile)
    , m_plan(profile.rounds, profile.seed, profile.roundMinMs, profile.roundMaxMs)
{
    m_fallback.setSingleShot(true);
    connect(&m_fallback, &QTimer::timeout, this, [this] { fire(true); });
    connect(&m_moment, &QTimer::timeout, this, [this] {
        const KillPlan::Round *round = armedRound();
        if (!round)
            return;
        const qint64 wanted = qint64(round->dataShare * double(m_data.totalBytes()));
        if (round->moment == KillPlan::Moment::Time || m_ledger.dataBytes() - m_roundData >= wanted)
            fire(false);
    });
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        endWith(QStringLiteral("the run did not end within %1 s").arg(m_profile.timeoutMs / 1000));
    });
    connect(&m_ledger, &WireLedger::requestStarted, this, &ChaosRun::onRequestStarted);
    connect(&m_ledger, &WireLedger::requestSent, this, &ChaosRun::onRequestSent);
    connect(&m_ledger, &WireLedger::answerStarted, this, &ChaosRun::onAnswerStarted);
}

ChaosRun::~ChaosRun()
{
    if (m_client && m_client->state() != QProcess::NotRunning) {
        m_client->kill();
        m_client->waitForFinished(10000);
    }
}

QString ChaosRun::prepare()
{
    if (!m_work.isValid() || !m_storage.isValid() ||
        !m_data.write(m_work.filePath(QStringLiteral("source")), m_profile))
        return QStringLiteral("cannot write the data set");
    m_receiver = std::make_unique<ReceiverProcess>(m_storage.path());
    m_receiver->process().setProcessEnvironment(QtMessages::marked());
    if (!m_receiver->start(3))
        return QStringLiteral("the receiver did not start: ") + m_receiver->errorText();
    QList<quint16> proxyPorts;
    for (const QUrl &url : m_receiver->urls()) {
        m_proxies.push_back(
            std::make_unique<LedgerProxy>(m_ledger, int(m_proxies.size()), quint16(url.port())));
        if (!m_proxies.back()->isListening())
            return QStringLiteral("a proxy could not listen");
        proxyPorts.append(m_proxies.back()->port());
    }
    if (m_profile.linkBytesPerSecond <= 0)
        return {};
    m_link = std::make_unique<LinksimProcess>();
    m_linkReport = m_work.filePath(QStringLiteral("link.report"));
    const QStringList shaping{QStringLiteral("--total-rate"),
                              QString::number(qint64(m_profile.linkBytesPerSecond)), QStringLiteral("--rtt"),
                              QString::number(m_profile.rttMs), QStringLiteral("--report"), m_linkReport,
                              // About the path's bandwidth-delay product: a router's queue, not 4 MiB
                              // per connection for a kill to catch in flight.
                              QStringLiteral("--buffer"),
                              QString::number(std::max<qint64>(
                                  65536, qint64(m_profile.linkBytesPerSecond * m_profile.rttMs / 1000))),
                              QStringLiteral("--quiet")};
    if (!m_link->start(proxyPorts, shaping))
        return QStringLiteral("linksim did not start: ") + m_link->errorText();
    return {};
}

QStringList ChaosRun::clientArguments() const
{
    const QStringList common{QStringLiteral("--state-dir"), stateDir(), QStringLiteral("--json")};
    if (m_clientRuns > 1)
        return QStringList{QStringLiteral("resume")} + common;
    QStringList arguments{QStringLiteral("upload")};
    for (std::size_t i = 0; i < m_proxies.size(); ++i) {
        QUrl url = m_proxies.at(i)->url();
        if (m_link)
            url.setPort(m_link->ports().at(qsizetype(i)));
        arguments << QStringLiteral("--endpoint") << url.toString();
    }
    return arguments + common + m_data.sources();
}

QString ChaosRun::run()
{
    m_deadline.start(m_profile.timeoutMs);
    beginRound();
    startClient();
    if (!m_finished)
        m_loop.exec();
    m_deadline.stop();
    disarm();
    if (m_link) {
        // linksim writes its count every 100 ms: wait for one written after the last byte.
        QTimer::singleShot(250, &m_loop, &QEventLoop::quit);
        m_loop.exec();
    }
    // Each restart's first data byte, within its own round.
    for (qsizetype i = 0; i < m_kills.size(); ++i) {
        Kill &kill = m_kills[i];
        const qint64 first = kill.backMs < 0 ? -1 : m_ledger.firstDataByteSince(kill.backMs);
        const bool beforeNext = i + 1 >= m_kills.size() || first < m_kills.at(i + 1).atMs;
        kill.firstDataMs = beforeNext ? first : -1;
    }
    return m_problem;
}

void ChaosRun::startClient()
{
    ++m_clientRuns;
    m_client = std::make_unique<QProcess>();
    m_client->setProcessEnvironment(QtMessages::marked());
    connect(m_client.get(), &QProcess::finished, this, &ChaosRun::onClientExited);
    if (!m_kills.isEmpty() && m_kills.constLast().victim == KillPlan::Victim::Client &&
        m_kills.constLast().backMs < 0)
        m_kills.last().backMs = m_ledger.nowMs();
    // MULTILANE_CHAOS_CLIENT: another build's client, for a before-and-after row.
    m_client->start(qEnvironmentVariable("MULTILANE_CHAOS_CLIENT", QStringLiteral(MULTILANE_CLIENT_BIN)),
                    clientArguments());
}

void ChaosRun::onClientExited(int exitCode, QProcess::ExitStatus status)
{
    Log log;
    log.what = QStringLiteral("client %1 (%2)")
                   .arg(m_clientRuns)
                   .arg(m_clientRuns == 1 ? QStringLiteral("upload") : QStringLiteral("resume"));
    log.stderrText = m_client->readAllStandardError();
    log.stdoutText = m_client->readAllStandardOutput();
    log.exitCode = status == QProcess::NormalExit ? exitCode : -1;
    m_logs.append(log);
    m_client.release()->deleteLater(); // we are in its signal
    if (m_finished)
        return;
    if (m_clientKilled) {
        m_clientKilled = false;
        beginRound(); // armed before the resume starts, so its endpoint check can be the moment
        startClient();
        return;
    }
    if (log.exitCode == 0) {
        m_finished = true;
        if (!m_receiverDown)
            m_loop.quit(); // else once it is back, so it ends up running
        return;
    }
    // A resume whose endpoint check found the receiver dead stops at once (no endpoint usable),
    // as a script wants; a user runs it again, so does the test.
    if (log.exitCode == 1 && log.stderrText.contains("no endpoint is usable")) {
        ++m_refusedResumes;
        if (m_receiverDown)
            m_resumeWhenUp = true;
        else
            startClient();
        return;
    }
    endWith(QStringLiteral("%1 exited with %2:\n%3")
                .arg(log.what)
                .arg(log.exitCode)
                .arg(QString::fromUtf8(log.stderrText.right(4000))));
}

const KillPlan::Round *ChaosRun::armedRound() const
{
    return m_armed && m_round < m_plan.rounds().size() ? &m_plan.rounds().at(m_round) : nullptr;
}

void ChaosRun::beginRound()
{
    disarm();
    if (m_round >= m_plan.rounds().size() || m_finished)
        return;
    m_armed = true;
    m_roundData = m_ledger.dataBytes();
    const KillPlan::Round &round = m_plan.rounds().at(m_round);
    m_fallback.start(m_profile.fallbackMs);
    if (round.moment == KillPlan::Moment::Time) {
        m_moment.setSingleShot(true);
        m_moment.start(round.delayMs);
    } else if (round.moment == KillPlan::Moment::Bytes) {
        m_moment.setSingleShot(false);
        m_moment.start(5);
    }
}

void ChaosRun::disarm()
{
    m_armed = false;
    m_moment.stop();
    m_fallback.stop();
}

void ChaosRun::onRequestStarted(int id)
{
    const KillPlan::Round *round = armedRound();
    if (!round)
        return;
    const WireLedger::Request &request = m_ledger.request(id);
    bool hit = round->moment == KillPlan::Moment::EndpointCheck && request.kind == WireLedger::Kind::Health;
    if (round->moment == KillPlan::Moment::LastChunk && request.kind == WireLedger::Kind::Chunk) {
        const int chunks = m_ledger.chunkCountOf(WireLedger::uploadIdOf(request));
        hit = chunks > 1 && chunkIndexOf(request) == chunks - 1;
    }
    if (!hit)
        return;
    if (round->victim == KillPlan::Victim::Client) {
        fire(false);
        return;
    }
    m_armed = false;
    QTimer::singleShot(ReceiverKillDelayMs, this, [this] { fire(false); });
}

bool ChaosRun::atFileMoment(int id, KillPlan::Victim victim) const
{
    const KillPlan::Round *round = armedRound();
    if (!round || round->victim != victim)
        return false;
    const WireLedger::Kind kind = m_ledger.request(id).kind;
    const bool create = kind == WireLedger::Kind::Create || kind == WireLedger::Kind::Query;
    return (round->moment == KillPlan::Moment::Create && create) ||
           (round->moment == KillPlan::Moment::Complete && kind == WireLedger::Kind::Complete);
}

void ChaosRun::onRequestSent(int id)
{
    // The receiver dies with the request in its hands.
    if (!atFileMoment(id, KillPlan::Victim::Receiver))
        return;
    m_armed = false;
    QTimer::singleShot(ReceiverKillDelayMs, this, [this] { fire(false); });
}

void ChaosRun::onAnswerStarted(int id)
{
    // The client dies with the receiver's answer on its way: the receiver did the work, the client
    // never heard of it.
    if (atFileMoment(id, KillPlan::Victim::Client))
        fire(false);
}

void ChaosRun::fire(bool fellBack)
{
    if (m_finished || m_round >= m_plan.rounds().size())
        return;
    const KillPlan::Round &round = m_plan.rounds().at(m_round);
    const bool clientGone = !m_client || m_client->state() == QProcess::NotRunning;
    if ((round.victim == KillPlan::Victim::Client && clientGone) ||
        (round.victim == KillPlan::Victim::Receiver && m_receiverDown)) {
        m_fallback.start(m_profile.fallbackMs); // between a refused resume and the next: try again later
        return;
    }
    disarm();
    m_kills.append({m_round, round.victim, round.moment, fellBack, m_ledger.nowMs(), -1, -1});
    // What the kill catches in flight: requests not yet answered to the client, allowing for the
    // answer's way back over the link.
    m_ledger.killed(m_profile.rttMs / 2 + 30);
    ++m_round;
    if (round.victim == KillPlan::Victim::Client) {
        m_clientKilled = true;
        m_client->kill();
    } else {
        killReceiver();
    }
}

void ChaosRun::killReceiver()
{
    m_receiverDown = true;
    for (const auto &proxy : m_proxies)
        proxy->setTargetUp(false);
    QProcess &process = m_receiver->process();
    auto *connection = new QMetaObject::Connection;
    *connection = connect(&process, &QProcess::finished, this, [this, connection] {
        disconnect(*connection);
        delete connection;
        keepReceiverLog();
        QTimer::singleShot(m_profile.outageMs, this, &ChaosRun::restartReceiver);
    });
    process.kill();
}

void ChaosRun::restartReceiver()
{
    if (!m_receiver->restart()) {
        endWith(QStringLiteral("the receiver did not come back: ") + m_receiver->errorText());
        return;
    }
    for (const auto &proxy : m_proxies) {
        if (!proxy->setTargetUp(true)) {
            endWith(QStringLiteral("a proxy could not listen again"));
            return;
        }
    }
    m_receiverDown = false;
    if (!m_kills.isEmpty() && m_kills.constLast().victim == KillPlan::Victim::Receiver)
        m_kills.last().backMs = m_ledger.nowMs();
    if (m_finished) {
        m_loop.quit();
        return;
    }
    beginRound();
    if (m_resumeWhenUp) {
        m_resumeWhenUp = false;
        startClient();
    }
}

void ChaosRun::stopReceiver()
{
    m_receiver->kill();
    keepReceiverLog();
}

void ChaosRun::keepReceiverLog()
{
    m_logs.append(
        {QStringLiteral("receiver (until kill %1)").arg(m_kills.size()), m_receiver->takeStderr(), {}, -1});
}

void ChaosRun::endWith(const QString &problem)
{
    if (m_finished)
        return;
    m_finished = true;
    m_problem = problem;
    disarm();
    m_loop.quit();
}

qint64 ChaosRun::linkBytes() const
{
    QFile report(m_linkReport);
    if (!m_link || !report.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> lines = report.readAll().trimmed().split('\n');
    return lines.constLast().split(' ').value(1).toLongLong();
}
