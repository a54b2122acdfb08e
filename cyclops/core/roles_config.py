"""The ``[roles]`` section of patterns.toml: which servers play which part, and their tools."""

from __future__ import annotations

from .convert import field_names, field_paths, globs, labels, regexes
from .regex import Glob, RegexError
from .rules import PublicListing, Role
from .tomlreader import TableReader

__all__ = ["parse_roles"]


def parse_roles(table: TableReader) -> tuple[Role, ...]:
    roles = tuple(_role(name, table.table(name)) for name in table.names())
    table.finish()
    return roles


def _role(name: str, role: TableReader) -> Role:
    tools = role.table("tools", {})
    rules = []
    for glob in tools.names():
        try:
            compiled = Glob(glob)
        except RegexError as exc:
            tools.fail(glob, glob, f"bad tool glob: {exc}", "check [ ] pairs")
        rules.append((compiled, labels(tools, glob, tools.strings(glob))))
    tools.finish()
    parsed = Role(
        name,
        servers=globs(role, "servers"),
        tools=tuple(rules),
        signatures=globs(role, "signatures"),
        container_keys=globs(role, "container_keys"),
        hosts=globs(role, "hosts"),
        sender_fields=field_names(role, "sender_fields"),
        recipient_fields=field_names(role, "recipient_fields"),
        checkout_keys=globs(role, "checkout_keys"),
        public=_public_listing(role.table("public")) if role.has("public") else None,
        requester_fields=field_paths(role, "requester_fields"),
        fresh_tools=globs(role, "fresh_tools"),
        page_actions=globs(role, "page_actions"),
        admin_pages=regexes(role, "admin_pages"),
    )
    role.finish()
    return parsed


def _public_listing(table: TableReader) -> PublicListing:
    listing = PublicListing(
        listed_by=globs(table, "listed_by"),
        name_fields=tuple(table.strings("name_fields")),
        private_field=table.string("private_field", None),
        visibility_field=table.string("visibility_field", None),
        reads=globs(table, "reads"),
    )
    if listing.private_field is None and listing.visibility_field is None:
        why = "nothing would say a container is public"
        table.fail("private_field", None, why, "give private_field or visibility_field")
    table.finish()
    return listing
