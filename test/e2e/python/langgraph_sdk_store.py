"""Drives the agent server's store with the official Python LangGraph SDK (langgraph-sdk),
unchanged: every StoreClient method (put_item with ttl and index, get_item with refresh_ttl and
for a missing item, search_items with a filter and pages, list_namespaces with prefix, suffix
and max_depth, delete_item), a second workspace's client that sees none of it, and the example
`memory` assistant remembering across threads. Prints one JSON line with what it saw.

Arguments: the server's URL, a key of another workspace, and a tag that keeps this run's
namespaces apart (LANGGRAPH_API_KEY is the first workspace's key)."""

import asyncio
import json
import sys

from langgraph_sdk import get_client


def human(text: str) -> dict:
    return {"messages": [{"type": "human", "content": text}]}


async def main(url: str, other_key: str, tag: str) -> dict:
    client = get_client(url=url)
    other = get_client(url=url, api_key=other_key)
    out: dict = {}
    ns = ["py", tag]

    await client.store.put_item([*ns, "docs"], "a", {"title": "tea", "n": 1})
    await client.store.put_item([*ns, "docs"], key="b", value={"title": "coffee", "n": 2}, ttl=60)
    await client.store.put_item([*ns, "docs", "deep"], key="c", value={"title": "cat", "n": 3}, index=False)

    item = await client.store.get_item([*ns, "docs"], key="a")
    out["item"] = {k: item[k] for k in ("namespace", "key", "value")}
    out["item_times"] = [type(item["created_at"]).__name__, type(item["updated_at"]).__name__]
    out["refreshed"] = (await client.store.get_item([*ns, "docs"], key="b", refresh_ttl=True))["value"]
    out["missing"] = await client.store.get_item([*ns, "docs"], key="nope")

    found = await client.store.search_items(ns, filter={"n": {"$gte": 2}})
    out["filtered"] = sorted(i["key"] for i in found["items"])
    everything = await client.store.search_items(ns, query="tea", limit=10)
    out["all_keys"] = [i["key"] for i in everything["items"]]
    out["scores"] = ["score" in i for i in everything["items"]]
    page = await client.store.search_items(ns, limit=1, offset=1, refresh_ttl=False)
    out["page"] = [i["key"] for i in page["items"]]

    out["namespaces"] = (await client.store.list_namespaces(prefix=ns))["namespaces"]
    out["namespaces_depth"] = (await client.store.list_namespaces(prefix=ns, max_depth=3))["namespaces"]
    out["namespaces_suffix"] = (await client.store.list_namespaces(prefix=["py", "*"], suffix=["deep"]))["namespaces"]
    out["namespaces_paged"] = (await client.store.list_namespaces(prefix=ns, limit=1, offset=1))["namespaces"]

    out["other_get"] = await other.store.get_item([*ns, "docs"], key="a")
    out["other_search"] = (await other.store.search_items(ns))["items"]
    out["other_namespaces"] = (await other.store.list_namespaces(prefix=ns))["namespaces"]
    await other.store.delete_item([*ns, "docs"], key="a")  # another workspace's: nothing happens
    out["after_other_delete"] = (await client.store.get_item([*ns, "docs"], key="a"))["value"]

    await client.store.delete_item([*ns, "docs"], key="a")
    out["after_delete"] = await client.store.get_item([*ns, "docs"], key="a")

    try:
        await client.store.put_item(["bad.label"], key="k", value={})
        out["dot_refused"] = False
    except ValueError:
        out["dot_refused"] = True

    # The example assistant `memory`: what one thread is told, another thread recalls.
    user = f"py-{tag}"
    config = {"configurable": {"user_id": user}}
    first = await client.threads.create()
    second = await client.threads.create()
    told = await client.runs.wait(first["thread_id"], "memory", input=human("remember that I like python"), config=config)
    recalled = await client.runs.wait(second["thread_id"], "memory", input=human("what do you know?"), config=config)
    stranger = await other.runs.wait(None, "memory", input=human("what do you know?"), config=config)
    out["told"] = told["messages"][-1]["content"]
    out["recalled"] = recalled["messages"][-1]["content"]
    out["stranger"] = stranger["messages"][-1]["content"]
    memories = await client.store.search_items(["memories", user])
    out["memories"] = [i["value"] for i in memories["items"]]
    return out


if __name__ == "__main__":
    print(json.dumps({**asyncio.run(main(*sys.argv[1:4])), "requests": [], "log": []}))
