"""Traces into the service with the official Python langsmith client, unchanged:

1. nested @traceable functions (batched: multipart, zstd-compressed when /info allows it):
   a root calling children and grandchildren, a failing tool, payloads above the 128 KiB
   claim-check threshold, an attachment, and a second trace whose root fails;
2. Client.create_run / update_run without trace_id or dotted_order (direct POST /runs and
   PATCH /runs/{id}; the server makes the lineage), including a child of a run posted a moment
   before.

Configured by LANGSMITH_ENDPOINT, LANGSMITH_API_KEY, LANGSMITH_TRACING=true and
LANGSMITH_PROJECT. Prints one JSON line: the runs as the client built them, the requests it
made and what it logged.
"""

import datetime
import os
import time
from typing import Any

from langsmith import traceable, uuid7
from langsmith.run_helpers import get_current_run_tree
from langsmith.run_trees import RunTree
from langsmith.schemas import Attachment

from _harness import emit, iso, recorded_client


def big_text(size: int, seed: int = 1) -> str:
    """The same text as bigText() in test/e2e/tracedRuns.ts."""
    lines: list[str] = []
    total = 0
    x = seed
    while total < size:
        x = (x * 48271) % 2147483647
        line = f"line {len(lines)} {_base36(x)} the quick brown fox jumps over the lazy dog"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


client = recorded_client()
project = os.environ["LANGSMITH_PROJECT"]

# The client's background thread reads GET /info and only then switches to zstd-compressed
# multipart; runs traced before that go uncompressed. Wait for the switch, so the traceables
# below all take the compressed path.
deadline = time.monotonic() + 15
while client.compressed_traces is None and time.monotonic() < deadline:
    time.sleep(0.02)
compression_ready = client.compressed_traces is not None
trees: list[RunTree] = []
ATTACHMENT_BYTES = bytes((i * 31 + 7) % 256 for i in range(2048))
BIG_DOCUMENT = big_text(200 * 1024, 7)


def enter() -> None:
    run_tree = get_current_run_tree()
    assert run_tree is not None, "no current run tree inside a traceable"
    trees.append(run_tree)


@traceable(run_type="embedding", name="embed", client=client)
def embed(text: str) -> dict[str, Any]:
    enter()
    return {"vector": [len(text), 0.25, -1]}


@traceable(run_type="retriever", name="retrieve", client=client)
def retrieve(query: str) -> dict[str, Any]:
    enter()
    a = embed(query)
    b = embed(query + "?")
    return {"documents": ["doc-1", "doc-2"], "vectors": [a["vector"], b["vector"]]}


@traceable(run_type="llm", name="summarize", client=client)
def summarize(document: str) -> dict[str, Any]:
    enter()
    return {"summary": document[:24], "length": len(document)}


@traceable(run_type="llm", name="expand", client=client)
def expand(seed: int) -> dict[str, Any]:
    enter()
    return {"text": big_text(150 * 1024, seed)}


@traceable(run_type="tool", name="flaky-tool", client=client)
def flaky_tool(attempt: int) -> dict[str, Any]:
    enter()
    raise RuntimeError(f"tool failed on attempt {attempt}")


@traceable(run_type="tool", name="annotate", client=client)
def annotate(caption: str, image: Attachment) -> dict[str, Any]:
    enter()
    return {"annotated": caption.upper(), "bytes": len(image.data)}


@traceable(run_type="chain", name="pipeline", client=client, tags=["e2e", "langsmith-py"], metadata={"suite": "langsmith-py"})
def pipeline(question: str) -> dict[str, Any]:
    enter()
    found = retrieve(question)
    summary = summarize(BIG_DOCUMENT)
    expanded = expand(3)
    try:
        flaky_tool(1)
        failure = None
    except RuntimeError as e:
        failure = str(e)
    note = annotate("a chart", Attachment(mime_type="image/png", data=ATTACHMENT_BYTES))
    return {"answer": f"{summary['summary']} ({len(found['documents'])} docs)", "expanded": len(expanded["text"]), "failure": failure, "note": note}


@traceable(run_type="chain", name="failing-root", client=client)
def failing_root(reason: str) -> None:
    enter()
    summarize("short text")
    raise ValueError(reason)


def tree_json(rt: RunTree) -> dict[str, Any]:
    return {
        "id": str(rt.id),
        "name": rt.name,
        "runType": rt.run_type,
        "parentRunId": str(rt.parent_run_id) if rt.parent_run_id else None,
        "traceId": str(rt.trace_id),
        "dottedOrder": rt.dotted_order,
        "inputs": rt.inputs,
        "outputs": rt.outputs,
        "error": rt.error,
        "startTime": iso(rt.start_time),
        "endTime": iso(rt.end_time),
    }


result = pipeline("what is in the report?")
assert result["failure"] == "tool failed on attempt 1", result
try:
    failing_root("the root gave up")
    raise AssertionError("failing_root did not raise")
except ValueError:
    pass

# The direct path: no trace_id or dotted_order, so the client sends POST /runs and PATCH.
now = datetime.datetime.now(datetime.timezone.utc)
at = lambda ms: now + datetime.timedelta(milliseconds=ms)  # noqa: E731
root_id, child_id, grandchild_id, big_id = uuid7(), uuid7(), uuid7(), uuid7()
big_input = big_text(160 * 1024, 11)
client.create_run("direct-root", {"question": "direct?"}, "chain", id=root_id, project_name=project, start_time=at(0), extra={"metadata": {"via": "create_run"}})
client.create_run("direct-child", {"prompt": "hello"}, "llm", id=child_id, parent_run_id=root_id, project_name=project, start_time=at(1))
client.create_run("direct-grandchild", {"n": 1}, "tool", id=grandchild_id, parent_run_id=child_id, project_name=project, start_time=at(2))
client.create_run("direct-big", {"blob": big_input}, "parser", id=big_id, parent_run_id=root_id, project_name=project, start_time=at(3))
client.update_run(grandchild_id, error="grandchild broke", end_time=at(10))
client.update_run(child_id, outputs={"completion": "hi there"}, end_time=at(11))
client.update_run(big_id, outputs={"parsed": True}, end_time=at(12))
client.update_run(root_id, outputs={"answer": "done"}, end_time=at(13), tags=["direct"])

client.flush()

direct = [
    {"id": str(root_id), "name": "direct-root", "runType": "chain", "parentRunId": None, "traceId": str(root_id), "inputs": {"question": "direct?"}, "outputs": {"answer": "done"}, "error": None, "startTime": iso(at(0)), "endTime": iso(at(13))},
    {"id": str(child_id), "name": "direct-child", "runType": "llm", "parentRunId": str(root_id), "traceId": str(root_id), "inputs": {"prompt": "hello"}, "outputs": {"completion": "hi there"}, "error": None, "startTime": iso(at(1)), "endTime": iso(at(11))},
    {"id": str(grandchild_id), "name": "direct-grandchild", "runType": "tool", "parentRunId": str(child_id), "traceId": str(root_id), "inputs": {"n": 1}, "outputs": None, "error": "grandchild broke", "startTime": iso(at(2)), "endTime": iso(at(10))},
    {"id": str(big_id), "name": "direct-big", "runType": "parser", "parentRunId": str(root_id), "traceId": str(root_id), "inputs": {"blob": big_input}, "outputs": {"parsed": True}, "error": None, "startTime": iso(at(3)), "endTime": iso(at(12))},
]
emit({
    "langsmith_version": __import__("langsmith").__version__,
    "compression_ready": compression_ready,
    "traced": [tree_json(t) for t in trees],
    "direct": direct,
    "attachment_hex": ATTACHMENT_BYTES.hex(),
})
