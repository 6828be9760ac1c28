"""Drives assistants with the official Python LangGraph SDK (langgraph-sdk), unchanged: create,
get, update (a version each), versions, set_latest, search, count, schemas, subgraphs, graph,
delete with delete_threads, and a run that takes the pinned version's config. Prints one JSON
line with what it saw."""

import asyncio
import json
import sys

from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError


async def status_of(call) -> int:
    try:
        await call
    except APIStatusError as err:
        return err.status_code
    return 200


async def main(url: str) -> dict:
    client = get_client(url=url)
    out: dict = {}

    created = await client.assistants.create(
        "configured",
        config={"configurable": {"model": "py-small"}},
        context={"style": "py"},
        metadata={"lang": "python"},
        name="py assistant",
        description="made from Python",
    )
    aid = created["assistant_id"]
    out["created"] = {k: created[k] for k in ("graph_id", "name", "version", "description")}
    out["got_name"] = (await client.assistants.get(aid))["name"]
    updated = await client.assistants.update(aid, config={"configurable": {"model": "py-large"}}, metadata={"v": 2})
    out["updated"] = {"version": updated["version"], "metadata": updated["metadata"]}
    out["versions"] = [v["version"] for v in await client.assistants.get_versions(aid)]
    out["versions_by_metadata"] = [v["version"] for v in await client.assistants.get_versions(aid, metadata={"v": 2})]

    thread = await client.threads.create()
    ran = await client.runs.wait(thread["thread_id"], aid, input={})
    out["run_model_v2"] = ran["seen"]["model"]
    out["latest"] = (await client.assistants.set_latest(aid, 1))["version"]
    ran = await client.runs.wait(None, aid, input={})
    out["run_model_v1"] = ran["seen"]["model"]
    out["run_context"] = ran["seen"]["context"]

    found = await client.assistants.search(metadata={"lang": "python"}, limit=5)
    out["search"] = [a["name"] for a in found]
    out["search_graph"] = sorted(a["name"] for a in await client.assistants.search(graph_id="configured", limit=50))
    out["search_name"] = [a["name"] for a in await client.assistants.search(name="PY ASSIST")]
    out["count"] = await client.assistants.count(metadata={"lang": "python"})
    out["count_graph"] = await client.assistants.count(graph_id="configured")
    out["selected"] = sorted((await client.assistants.search(metadata={"lang": "python"}, select=["assistant_id", "name"]))[0].keys())

    schemas = await client.assistants.get_schemas(aid)
    out["schemas_graph"] = schemas["graph_id"]
    out["subgraphs"] = sorted((await client.assistants.get_subgraphs(aid)).keys())
    out["subgraphs_ns"] = sorted((await client.assistants.get_subgraphs(aid, namespace="inner", recurse=True)).keys())
    graph = await client.assistants.get_graph(aid, xray=True)
    out["xray_nodes"] = sorted(n["id"] for n in graph["nodes"])

    out["system_update"] = await status_of(client.assistants.update("counter", name="x"))
    out["unknown_graph"] = await status_of(client.assistants.create("nope"))
    out["duplicate"] = await status_of(client.assistants.create("configured", assistant_id=aid))
    out["do_nothing_name"] = (await client.assistants.create("counter", assistant_id=aid, if_exists="do_nothing"))["name"]

    await client.assistants.delete(aid, delete_threads=True)
    out["after_delete"] = await status_of(client.assistants.get(aid))
    out["thread_after_delete"] = await status_of(client.threads.get(thread["thread_id"]))
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
