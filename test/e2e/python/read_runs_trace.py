"""Traces, with the official Python langsmith client unchanged, the runs test/e2e/readRuns.test.ts
reads back (the same shape as its npm half):

- seven turns, each a `trace` context (chain, tags ["turn"]) whose metadata names a thread by
  thread_id, session_id or conversation_id (one names both thread_id and session_id), calling a
  @traceable tool `lookup` and a @traceable LLM `chat` that returns usage_metadata (the first
  turn with costs too); tags "x" on some of them;
- a failing root (thread a) whose child tool raises;
- a `bulk` root with many `step` children, so a project holds more than one page of runs;
- feedback (create_feedback) on three turns and on one LLM run.

Argument: JSON {"threads": {a, b, c, d, shadowed}, "bulk_steps": n}. Configured by
LANGSMITH_ENDPOINT, LANGSMITH_API_KEY, LANGSMITH_TRACING=true and LANGSMITH_PROJECT. Prints one
JSON line: every run as the client sent it, and the feedback it gave.
"""

import json
import os
import sys
import time
from typing import Any

import langsmith
from langsmith import trace, traceable
from langsmith.run_helpers import get_current_run_tree
from langsmith.run_trees import RunTree

from _harness import emit, iso, recorded_client

spec = json.loads(sys.argv[1])
threads = spec["threads"]
client = recorded_client()
project = os.environ["LANGSMITH_PROJECT"]
trees: list[RunTree] = []


def enter() -> None:
    run_tree = get_current_run_tree()
    assert run_tree is not None, "no current run tree"
    trees.append(run_tree)


def turn_usage(i: int) -> dict[str, Any]:
    usage: dict[str, Any] = {"input_tokens": 10 + i, "output_tokens": 2 * i + 1, "total_tokens": 10 + i + 2 * i + 1}
    if i == 0:
        usage.update({"input_cost": 0.25, "output_cost": 0.5, "total_cost": 0.75})
    return usage


@traceable(run_type="llm", name="chat", client=client)
def chat(prompt: str, i: int) -> dict[str, Any]:
    enter()
    return {"content": f"answer to {prompt}", "usage_metadata": turn_usage(i)}


@traceable(run_type="tool", name="lookup", client=client)
def lookup(query: str) -> dict[str, Any]:
    enter()
    return {"documents": [f"doc for {query}"]}


@traceable(run_type="tool", name="broken-tool", client=client)
def broken_tool(attempt: int) -> None:
    enter()
    raise RuntimeError(f"tool broke on attempt {attempt}")


@traceable(run_type="chain", name="failing-root", client=client, tags=["x", "failing"], metadata={"thread_id": threads["a"]})
def failing_root(reason: str) -> None:
    enter()
    try:
        broken_tool(1)
    except RuntimeError:
        pass
    raise ValueError(reason)


@traceable(run_type="tool", name="step", client=client)
def step(i: int) -> dict[str, Any]:
    enter()
    return {"square": i * i}


@traceable(run_type="chain", name="bulk", client=client, metadata={"kind": "bulk"})
def bulk(steps: int) -> dict[str, Any]:
    enter()
    return {"sum": sum(step(i)["square"] for i in range(steps))}


turn_metadata = [
    {"thread_id": threads["a"]},
    {"thread_id": threads["a"]},
    {"session_id": threads["b"]},
    {"thread_id": threads["a"]},
    {"session_id": threads["b"]},
    {"conversation_id": threads["c"]},
    {"thread_id": threads["d"], "session_id": threads["shadowed"]},
]

for i, metadata in enumerate(turn_metadata):
    message = f"message {i}"
    with trace("turn", "chain", inputs={"message": message}, tags=["turn"], metadata={**metadata, "turn": i}, client=client, project_name=project) as rt:
        trees.append(rt)
        docs = lookup(message, langsmith_extra={"tags": ["x"] if i % 3 == 0 else []})
        reply = chat(f"{message} with {len(docs['documents'])} docs", i, langsmith_extra={"tags": ["x", "model"] if i % 2 == 0 else ["model"]})
        rt.end(outputs={"reply": reply["content"]})
    time.sleep(0.005)  # distinct start times between traces, for the order checks

try:
    failing_root("gave up")
except ValueError:
    pass
time.sleep(0.005)
bulk(spec["bulk_steps"])

# Feedback (multipart feedback parts, as trace_id is given): the same plan as feedbackPlan() in
# readRuns.test.ts.
turns = [rt for rt in trees if rt.name == "turn"]
chat0 = next(rt for rt in trees if rt.name == "chat" and rt.parent_run_id == turns[0].id)
feedback = [
    {"run_id": str(turns[0].id), "trace_id": str(turns[0].id), "key": "user_score", "score": 1},
    {"run_id": str(turns[1].id), "trace_id": str(turns[1].id), "key": "user_score", "score": 1},
    {"run_id": str(turns[2].id), "trace_id": str(turns[2].id), "key": "user_score", "score": 0},
    {"run_id": str(chat0.id), "trace_id": str(turns[0].id), "key": "helpful", "score": 1},
]
for f in feedback:
    client.create_feedback(f["run_id"], f["key"], score=f["score"], trace_id=f["trace_id"], comment=f"given to {f['run_id']}")
client.flush()


def dump(rt: RunTree) -> dict[str, Any]:
    return {
        "id": str(rt.id),
        "name": rt.name,
        "run_type": rt.run_type,
        "parent_run_id": str(rt.parent_run_id) if rt.parent_run_id else None,
        "trace_id": str(rt.trace_id),
        "dotted_order": rt.dotted_order,
        "inputs": rt.inputs,
        "outputs": rt.outputs,
        "error": rt.error,
        "tags": rt.tags or [],
        "metadata": rt.metadata or {},
        "end_time": iso(rt.end_time),
    }


emit({"langsmith_version": langsmith.__version__, "project": project, "runs": [dump(rt) for rt in trees], "feedback": feedback})
