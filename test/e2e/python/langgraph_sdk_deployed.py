"""Drives an agent server deployed by the control plane (the deployable example, graph "greeter")
with the official Python LangGraph SDK (langgraph-sdk), unchanged: assistants search, a thread,
runs.wait on it, the thread's runs and state. Prints one JSON line with what it saw.

Usage: langgraph_sdk_deployed.py <deployment URL>   (LANGGRAPH_API_KEY: sent as X-Api-Key)
"""

import asyncio
import json
import sys

from langgraph_sdk import get_client


async def main(url: str) -> dict:
    client = get_client(url=url)
    out: dict = {}
    assistants = await client.assistants.search()
    out["graphs"] = sorted(a["graph_id"] for a in assistants)
    thread = await client.threads.create()
    tid = thread["thread_id"]
    values = await client.runs.wait(tid, "greeter", input={"messages": [{"type": "human", "content": "hello from python"}]})
    out["answer"] = values["messages"][-1]["content"]
    out["run_ids"] = [r["run_id"] for r in await client.runs.list(tid)]
    state = await client.threads.get_state(tid)
    out["state_messages"] = [m["content"] for m in state["values"]["messages"]]
    return out


if __name__ == "__main__":
    print(json.dumps({**asyncio.run(main(sys.argv[1])), "requests": [], "log": []}))
