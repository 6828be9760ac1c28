"""Drives the agent server with the official Python LangGraph SDK (langgraph-sdk), unchanged:
assistants, threads, runs that wait and stream in each stream mode, state and history, a
rejected run on a busy thread, and a stateless run. Prints one JSON line with what it saw."""

import asyncio
import json
import sys

from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError


def human(text: str) -> dict:
    return {"messages": [{"type": "human", "content": text}]}


async def main(url: str) -> dict:
    client = get_client(url=url)
    out: dict = {}

    assistants = await client.assistants.search()
    out["assistants"] = sorted(a["graph_id"] for a in assistants)
    out["agent_id"] = (await client.assistants.get("agent"))["assistant_id"]

    thread = await client.threads.create()
    out["thread_status"] = thread["status"]
    tid = thread["thread_id"]
    first = await client.runs.wait(tid, "agent", input=human("hello from python"))
    second = await client.runs.wait(tid, "agent", input=human("second"))
    out["wait_answers"] = [first["messages"][-1]["content"], second["messages"][-1]["content"]]

    events = []
    async for part in client.runs.stream(tid, "agent", input=human("stream"), stream_mode=["values", "updates", "messages", "messages-tuple", "custom"]):
        events.append({"event": part.event, "data": part.data})
    out["stream_events"] = [e["event"] for e in events]
    out["partials"] = [e["data"][0]["content"] for e in events if e["event"] == "messages/partial"]
    out["custom"] = [e["data"] for e in events if e["event"] == "custom"]
    out["final_values"] = [e["data"] for e in events if e["event"] == "values"][-1]["messages"][-1]["content"]

    state = await client.threads.get_state(tid)
    out["state_messages"] = len(state["values"]["messages"])
    history = await client.threads.get_history(tid, limit=2)
    out["history_len"] = len(history)

    busy_thread = await client.threads.create()
    await client.runs.create(busy_thread["thread_id"], "agent", input=human("one"), after_seconds=2)
    try:
        await client.runs.create(busy_thread["thread_id"], "agent", input=human("two"))
        out["busy_status"] = None
    except APIStatusError as err:
        out["busy_status"] = err.status_code

    stateless = await client.runs.wait(None, "agent", input=human("stateless"))
    out["stateless_answer"] = stateless["messages"][-1]["content"]

    await client.threads.delete(tid)
    try:
        await client.threads.get(tid)
        out["deleted"] = False
    except APIStatusError as err:
        out["deleted"] = err.status_code == 404
    return out


if __name__ == "__main__":
    print(json.dumps({**asyncio.run(main(sys.argv[1])), "requests": [], "log": []}))
