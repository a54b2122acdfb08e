"""The names the host sees, and which downstream answers for each.

Tools and prompts keep their own names unless two servers offer the same one; then every
server's copy is renamed ``<server>__<name>`` (deterministic, whatever order they listed in).
Resources keep their URIs; a URI no listed resource has goes to the server whose template
matches it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.regex import SafeRegex
from .downstream import Downstream, State

__all__ = ["Catalog", "Route"]

_SEPARATOR = "__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class Route:
    server: str
    name: str
    """The name (or URI) the server knows it by."""


@dataclass
class Catalog:
    tools: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    templates: list[dict[str, Any]] = field(default_factory=list)
    tool_routes: dict[str, Route] = field(default_factory=dict)
    prompt_routes: dict[str, Route] = field(default_factory=dict)
    resource_routes: dict[str, str] = field(default_factory=dict)
    template_routes: list[tuple[SafeRegex, str]] = field(default_factory=list)

    @classmethod
    def build(cls, downstreams: Sequence[Downstream]) -> Catalog:
        ready = [d for d in downstreams if d.state is State.READY]
        catalog = cls()
        catalog.tools, catalog.tool_routes = _named(ready, "tools")
        catalog.prompts, catalog.prompt_routes = _named(ready, "prompts")
        for downstream in ready:
            for resource in downstream.listing.resources:
                uri = resource.get("uri")
                if isinstance(uri, str) and uri not in catalog.resource_routes:
                    catalog.resource_routes[uri] = downstream.name
                    catalog.resources.append(resource)
            for template in downstream.listing.resourceTemplates:
                pattern = template.get("uriTemplate")
                if isinstance(pattern, str):
                    catalog.templates.append(template)
                    catalog.template_routes.append((_template_regex(pattern), downstream.name))
        return catalog

    def resource_server(self, uri: str) -> str | None:
        if uri in self.resource_routes:
            return self.resource_routes[uri]
        return next(
            (server for regex, server in self.template_routes if regex.fullmatch(uri)), None
        )

    def tool_names(self) -> list[str]:
        return [t["name"] for t in self.tools]


def _named(
    downstreams: Iterable[Downstream], kind: str
) -> tuple[list[dict[str, Any]], dict[str, Route]]:
    offered = [
        (d.name, item)
        for d in downstreams
        for item in getattr(d.listing, kind)
        if isinstance(item.get("name"), str)
    ]
    counts = Counter(item["name"] for _, item in offered)
    exposed: list[dict[str, Any]] = []
    routes: dict[str, Route] = {}
    for server, item in offered:
        name = item["name"]
        public = name if counts[name] == 1 else f"{_UNSAFE.sub('_', server)}{_SEPARATOR}{name}"
        while public in routes:  # a renamed copy meets a name a server chose itself
            public += "_"
        routes[public] = Route(server, name)
        exposed.append({**item, "name": public} if public != name else item)
    return exposed, routes


def _template_regex(template: str) -> SafeRegex:
    """An RFC 6570 template as a regex: ``{x}`` one path segment, ``{+x}``/``{/x*}`` more.

    RE2, because the URIs matched against it come from the agent."""
    parts = re.split(r"(\{[^{}]*\})", template)
    out = []
    for part in parts:
        if part.startswith("{") and part.endswith("}"):
            expression = part[1:-1]
            out.append(".*" if expression[:1] in "+#/" or expression.endswith("*") else "[^/]*")
        else:
            out.append(re.escape(part))
    return SafeRegex("".join(out))
