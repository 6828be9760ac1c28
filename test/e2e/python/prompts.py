"""Prompts (the hub) through the official Python client: push_prompt of a ChatPromptTemplate (with
a commit tag), a second push, pull_prompt into a ChatPromptTemplate that formats,
pull_prompt_commit, list_prompts, list_prompt_commits, update_prompt, like_prompt, get_prompt,
delete_prompt. The client validates every answer against its models. The prompt's name comes as
the first argument; prints one JSON line with what the client made of the answers."""

import sys

from _harness import emit, error_of, recorded_client
from langchain_core.prompts import ChatPromptTemplate

name = sys.argv[1]
client = recorded_client()

first = ChatPromptTemplate.from_messages([("system", "Reply in {language}."), ("human", "{question}")])
url = client.push_prompt(name, object=first, description="replies", commit_tags=["stable"])
second = ChatPromptTemplate.from_messages([("system", "Reply in {language}, briefly."), ("human", "{question}")])
client.push_prompt(name, object=second)

stable = client.pull_prompt(f"{name}:stable")
messages = stable.format_messages(language="German", question="Hello?")
commit = client.pull_prompt_commit(f"{name}:stable")
listed = client.list_prompts(query=name)
commits = list(client.list_prompt_commits(name))
client.update_prompt(name, description="changed", tags=["x"])
updated = client.get_prompt(name)
likes = client.like_prompt(name)
got = client.get_prompt(name)
client.delete_prompt(name)

emit(
    {
        "url": url,
        "prompt_type": type(stable).__name__,
        "formatted": [m.content for m in messages],
        "metadata": stable.metadata,
        "commit": {
            "commit_hash": commit.commit_hash,
            "examples": commit.examples,
            "manifest_id": commit.manifest["id"],
        },
        "listed": [p.repo_handle for p in listed.repos],
        "listed_total": listed.total,
        "commits": [{"type": type(c).__name__, "commit_hash": c.commit_hash} for c in commits],
        "by_tag": commit.commit_hash,
        "updated": {"description": updated.description, "tags": updated.tags},
        "likes": likes["likes"],
        "got": {"type": type(got).__name__, "num_likes": got.num_likes, "num_commits": got.num_commits},
        "deleted": error_of(lambda: client.pull_prompt_commit(name, skip_cache=True)),
    }
)
