"""The official Python langsmith client, unchanged, against a tracing API with low ingestion rate
limits (test/e2e/ingestRateLimits.test.ts): more requests one after another than each limit's
burst, so some are answered 429 with Retry-After, which the client's transport retries after
waiting that long.

1. create_run / update_run without trace_id or dotted_order (POST /runs, PATCH /runs/{id});
2. @traceable calls, each flushed before the next, so each is a multipart request of its own.

Configured by LANGSMITH_ENDPOINT, LANGSMITH_API_KEY, LANGSMITH_TRACING=true and
LANGSMITH_PROJECT. Prints one JSON line: the ids of the runs it made, the requests it made (as the
client saw them: after its transport's retries) and what it logged.
"""

import datetime
import os
import time
from typing import Any

from langsmith import traceable, uuid7
from langsmith.run_helpers import get_current_run_tree

from _harness import emit, recorded_client

client = recorded_client()
project = os.environ["LANGSMITH_PROJECT"]

now = datetime.datetime.now(datetime.timezone.utc)
at = lambda ms: now + datetime.timedelta(milliseconds=ms)  # noqa: E731
root_id, child_id = uuid7(), uuid7()
client.create_run("limited-root", {"question": "slow down?"}, "chain", id=root_id, project_name=project, start_time=at(0))
client.create_run("limited-child", {"prompt": "hello"}, "llm", id=child_id, parent_run_id=root_id, project_name=project, start_time=at(1))
client.update_run(child_id, outputs={"completion": "hi"}, end_time=at(10))
client.update_run(root_id, outputs={"answer": "done"}, end_time=at(11))

# The traceables after the client has switched to compressed multipart (it does once GET /info
# has answered), so each flush sends one request.
deadline = time.monotonic() + 15
while client.compressed_traces is None and time.monotonic() < deadline:
    time.sleep(0.02)
traced: list[str] = []


@traceable(run_type="tool", name="limited-step", client=client)
def step(i: int) -> dict[str, Any]:
    run_tree = get_current_run_tree()
    assert run_tree is not None, "no current run tree inside a traceable"
    traced.append(str(run_tree.id))
    return {"step": i}


for i in range(4):
    step(i)
    client.flush()

emit({"direct": [str(root_id), str(child_id)], "traced": traced})
