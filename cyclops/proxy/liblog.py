"""The libraries' log records, held to cyclops's rule: types and places, never content.

cyclops's own logs never carry an argument, a result or a credential. The libraries it runs on
log them freely when asked for DEBUG, which ``--log-level debug`` did:

- the mcp SDK logs whole messages (the Streamable HTTP client's "Sending client message" and
  "SSE message", the dispatcher's "transport yielded exception" for a line it could not parse),
  and at ERROR a server's line it could not parse, with pydantic's validation error, which
  quotes the line: a server that prints a file it read to its stdout put the file in the log;
- sse-starlette logs every chunk of every response to an HTTP host (every result);
- httpcore logs response headers, and httpx logs each request's URL at INFO: a downstream URL
  may carry a key (``?key=${API_KEY}``), which cyclops's own messages never show expanded.

So each library's loggers log no lower than the level given here, and a validation error's text
(the quote) is withheld from the SDK's records.
"""

from __future__ import annotations

import logging

from pydantic import ValidationError

__all__ = ["LOWEST_LEVELS", "quiet_library_logs"]

LOWEST_LEVELS = {
    "mcp": logging.INFO,
    "sse_starlette": logging.INFO,
    "httpcore2": logging.INFO,
    "httpx2": logging.WARNING,
}
_QUOTING = (
    "mcp.client.stdio",
    "mcp.client.streamable_http",
    "mcp.shared.jsonrpc_dispatcher",
    "mcp.server.stdio",
    "mcp.server.streamable_http",
)
"""The loggers that log a validation error of what a peer sent."""


class _WithholdQuotes(logging.Filter):
    """Replaces a validation error in a record by its type and error count."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, ValidationError):
            record.msg = f"{record.getMessage()}: {_withheld(error)}"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        elif isinstance(record.args, tuple) and any(
            isinstance(a, ValidationError) for a in record.args
        ):
            record.args = tuple(
                _withheld(a) if isinstance(a, ValidationError) else a for a in record.args
            )
        return True


def _withheld(error: ValidationError) -> str:
    return f"{type(error).__name__} ({error.error_count()} errors; the input is not logged)"


def quiet_library_logs() -> None:
    """Raise the libraries' loggers to their lowest level, and filter the SDK's (idempotent)."""
    for name, lowest in LOWEST_LEVELS.items():
        logger = logging.getLogger(name)
        if logger.level < lowest:
            logger.setLevel(lowest)
    for name in _QUOTING:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _WithholdQuotes) for f in logger.filters):
            logger.addFilter(_WithholdQuotes())
