# schemathesis hooks for the contract fuzz of the agent server (test/contract/openapiFuzz.test.ts).
#
# A run created with `after_seconds` starts that much later, and whatever follows it waits as
# long: `POST /runs/wait` and `/runs/stream` (writing keep-alive newlines, so no read timeout
# ends them), a join, and every run queued behind it on its thread. A fuzzed delay of a week is
# valid, and would hold the fuzzer for a week: every numeric delay above a second is sent as one
# second. Delays are otherwise as generated (0, fractions, negative ones, null, other types).
import schemathesis

LONGEST_DELAY_S = 1


def _cap(body):
    if isinstance(body, dict):
        delay = body.get("after_seconds")
        if isinstance(delay, (int, float)) and not isinstance(delay, bool) and delay > LONGEST_DELAY_S:
            body["after_seconds"] = LONGEST_DELAY_S
    elif isinstance(body, list):  # POST /runs/batch
        for item in body:
            _cap(item)


@schemathesis.hook
def before_call(context, case, kwargs):
    _cap(case.body)
