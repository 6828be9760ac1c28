"""Drives the ADK assistant `adk_echo` (a Google ADK agent served through wrap(runner)) with the
official Python LangGraph SDK, unchanged: a run that waits, a second turn with a state_delta, and
a streamed run in `messages` mode. Prints one JSON line with what it saw."""

import asyncio
import json
import sys

from langgraph_sdk import get_client


def human(text: str, **extra) -> dict:
    return {"messages": [{"type": "human", "content": text}], **extra}


async def main(url: str) -> dict:
    client = get_client(url=url)
    out: dict = {}
    tid = (await client.threads.create())["thread_id"]
    first = await client.runs.wait(tid, "adk_echo", input=human("hello from python"))
    out["first"] = {"answer": first["messages"][-1]["content"], "last_reply": first.get("last_reply"), "keys": sorted(first)}
    second = await client.runs.wait(tid, "adk_echo", input=human("again", state_delta={"tone": "calm"}))
    out["second"] = second["messages"][-1]["content"]
    partials = []
    async for part in client.runs.stream(tid, "adk_echo", input=human("stream this turn"), stream_mode="messages"):
        if part.event == "messages/partial":
            partials.append(part.data[0]["content"])
    out["partials"] = partials
    state = await client.threads.get_state(tid)
    out["session_state"] = state["values"]["adk_session"]["state"]
    return out


if __name__ == "__main__":
    print(json.dumps({**asyncio.run(main(sys.argv[1])), "requests": [], "log": []}))
