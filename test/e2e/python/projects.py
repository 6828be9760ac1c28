"""Projects through the official Python client: create_project (plain, duplicate, upsert, with a
reference dataset), read_project by id and by name (with stats), list_projects with filters,
has_project, update_project and delete_project. The client validates every answer against its
TracerSession / TracerSessionResult models. The name prefix comes as the first argument; prints
one JSON line with what the client made of the answers."""

import sys
import uuid
from typing import Any


from _harness import emit, error_of, iso, recorded_client

prefix = sys.argv[1]
dataset_id = sys.argv[2]
client = recorded_client()


def project(p: Any) -> dict[str, Any]:
    return {
        "type": type(p).__name__,
        "id": str(p.id),
        "tenant_id": str(p.tenant_id),
        "name": p.name,
        "description": p.description,
        "metadata": p.metadata,
        "reference_dataset_id": str(p.reference_dataset_id) if p.reference_dataset_id else None,
        "start_time": iso(p.start_time),
        "end_time": iso(p.end_time),
    }



name = f"{prefix}-main"
created = client.create_project(name, description="from python", metadata={"suite": "py"})
duplicate = error_of(lambda: client.create_project(name))
upserted = client.create_project(name, upsert=True, description="upserted")
experiment = client.create_project(f"{prefix}-experiment", reference_dataset_id=dataset_id)

by_id = client.read_project(project_id=str(created.id))
by_name = client.read_project(project_name=name, include_stats=True)
listed = [p.name for p in client.list_projects(name_contains=prefix)]
listed_by_id = [p.name for p in client.list_projects(project_ids=[created.id, experiment.id])]
listed_reference_free = [p.name for p in client.list_projects(name_contains=prefix, reference_free=True)]
listed_by_dataset = [p.name for p in client.list_projects(reference_dataset_id=dataset_id)]
listed_by_metadata = [p.name for p in client.list_projects(metadata={"suite": "py"})]
has_before = client.has_project(name)
has_missing = client.has_project(f"{prefix}-missing-{uuid.uuid4()}")
updated = client.update_project(created.id, description="updated", metadata={"suite": "py", "step": 2})

client.delete_project(project_name=name)
has_after = client.has_project(name)
read_after = error_of(lambda: client.read_project(project_id=str(created.id)))

emit(
    {
        "created": project(created),
        "duplicate": duplicate,
        "upserted": project(upserted),
        "experiment": project(experiment),
        "by_id": project(by_id),
        "by_name": {**project(by_name), "run_count": by_name.run_count, "latency_p50": by_name.latency_p50, "total_tokens": by_name.total_tokens, "error_rate": by_name.error_rate},
        "listed": listed,
        "listed_by_id": listed_by_id,
        "listed_reference_free": listed_reference_free,
        "listed_by_dataset": listed_by_dataset,
        "listed_by_metadata": listed_by_metadata,
        "has_before": has_before,
        "has_missing": has_missing,
        "updated": project(updated),
        "has_after": has_after,
        "read_after": read_after,
    }
)
