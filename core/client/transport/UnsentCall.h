#pragma once

#include "WireTransport.h"

namespace multilane {

// A request that never left: its file body could not be opened. It ends on the next turn of the
// event loop, so the sender sees it end the way every call ends.
class UnsentCall final : public WireCall {
    Q_OBJECT
public:
    explicit UnsentCall(const QString &why);
    void abort() override { finish(); }
    const WireReply &reply() const override { return m_result; }

private:
    void finish();

    WireReply m_result;
    bool m_done = false;
};

} // namespace multilane
