"""What the e2e scripts share: a langsmith Client whose HTTP traffic is recorded, and a
capture of everything the langsmith loggers say at WARNING or above (the client swallows
ingest failures and only logs them, e.g. "Failed to multipart ingest runs")."""

import atexit
import datetime
import json
import logging
import sys
from typing import Any, Optional
from urllib.parse import urlparse

import requests
from langsmith import Client
from langsmith import utils as ls_utils


class LogCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[dict[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append({"logger": record.name, "level": record.levelname, "message": record.getMessage()})


log_capture = LogCapture()
logging.getLogger("langsmith").addHandler(log_capture)
# Still shown on stderr, so a failing test's output says what the client complained about.
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

requests_log: list[dict[str, Any]] = []


def _record(response: requests.Response, *args: Any, **kwargs: Any) -> None:
    request = response.request
    entry: dict[str, Any] = {
        "method": request.method,
        "path": urlparse(request.url).path,
        "status": response.status_code,
        "encoding": request.headers.get("Content-Encoding"),
    }
    if response.status_code >= 300:
        entry["detail"] = response.text[:2000]
    requests_log.append(entry)


def recorded_client() -> Client:
    """A Client configured from LANGSMITH_ENDPOINT / LANGSMITH_API_KEY, with a recorded session."""
    session = requests.Session()
    session.hooks["response"].append(_record)
    return Client(session=session)


def iso(value: Optional[datetime.datetime]) -> Optional[str]:
    """A datetime the way the server returns times: YYYY-MM-DDTHH:MM:SS.ffffffZ (UTC)."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc)
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


_result: Optional[dict[str, Any]] = None


def emit(result: dict[str, Any]) -> None:
    """Sets the script's answer, printed at exit as one JSON line on stdout with what the
    client sent and logged."""
    global _result
    _result = result


def _print_result() -> None:
    # At exit, after the interpreter joined the client's sender threads and after the client's
    # own atexit flush (atexit runs last-registered first, and this module registers before
    # any Client exists): Client.flush() does not wait for a batch its background thread
    # drained on its own 0.5 s timer, so requests can still be in flight when flush returns.
    if _result is None:
        return
    _result["requests"] = requests_log
    _result["log"] = log_capture.records
    sys.stdout.write(json.dumps(_result, default=str) + "\n")
    sys.stdout.flush()


atexit.register(_print_result)


def error_of(call: Any) -> str:
    """The name of the LangSmith error class a call raises, or "no error"."""
    try:
        call()
    except ls_utils.LangSmithError as e:
        return type(e).__name__
    return "no error"

