# schemathesis hooks for the contract fuzz of the example chat app (test/contract/openapiFuzz.test.ts).
#
# POST /api/threads/{threadId}/stream follows the thread's next run to its end, as the agent
# streaming protocol says (a client opens the stream, then starts the run): a fuzzed stream of a
# thread nobody runs would stay open until the request timeout. While schemathesis waits for
# such a stream, runs of that thread are started (`run.start`, one at a time: the app refuses a
# second while one runs), so that every stream the app accepts ends and is checked like any
# other answer. FUZZ_BASE_URL and FUZZ_HEADERS (JSON) say where the app is and how to sign in.
import json
import os
import re
import threading
import urllib.error
import urllib.parse
import urllib.request

import schemathesis

STREAM = "/api/threads/{threadId}/stream"
THREAD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
COMMAND = json.dumps(
    {"id": 1, "method": "run.start", "params": {"assistant_id": "deep_agent", "input": {"messages": [{"role": "user", "content": "hi"}]}}}
).encode()

_running: dict[int, threading.Event] = {}


def _start_runs(thread_id: str, done: threading.Event) -> None:
    url = f"{os.environ['FUZZ_BASE_URL']}/api/threads/{urllib.parse.quote(thread_id, safe='')}/commands"
    headers = {**json.loads(os.environ.get("FUZZ_HEADERS", "{}")), "content-type": "application/json"}
    while not done.is_set():
        try:
            urllib.request.urlopen(urllib.request.Request(url, data=COMMAND, headers=headers, method="POST"), timeout=10).read()
        except (urllib.error.URLError, OSError):
            pass  # 409 while a run is under way, or the app busy: the next round tries again
        done.wait(0.5)


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.operation.path != STREAM:
        return
    thread_id = (case.path_parameters or {}).get("threadId")
    if not isinstance(thread_id, str) or not THREAD_ID.match(thread_id):
        return  # refused before any run is followed
    done = threading.Event()
    _running[id(case)] = done
    threading.Thread(target=_start_runs, args=(thread_id, done), daemon=True).start()


@schemathesis.hook
def after_call(context, case, response):
    done = _running.pop(id(case), None)
    if done is not None:
        done.set()


@schemathesis.hook
def after_network_error(context, case, request):
    done = _running.pop(id(case), None)
    if done is not None:
        done.set()
