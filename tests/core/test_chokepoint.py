from __future__ import annotations

import pytest

from cyclops.core.chokepoint import Route, choke_point
from cyclops.core.types import Capability

WEB, ISSUE = Capability("fetch", "fetch"), Capability("github", "get_issue")
KEY, MAIL = Capability("fs", "read_file"), Capability("gmail", "read_email")
POST, GIST, SHELL = (
    Capability("slack", "post"),
    Capability("github", "create_gist"),
    Capability("shell", "run"),
)


def route(sources: set[Capability], via: Capability | None, sink: Capability) -> Route:
    return Route(frozenset(sources), via, sink)


@pytest.mark.parametrize(
    ("routes", "cut"),
    [
        # one route: three capabilities each cut it; the sink side wins the tie
        ([route({WEB}, KEY, POST)], (POST,)),
        # two sinks behind one read: the read is the single cut nearest the sinks
        ([route({WEB}, KEY, POST), route({WEB}, KEY, GIST)], (KEY,)),
        # two reads, two sinks, one source: only the source cuts everything with one grant
        ([route({WEB}, KEY, POST), route({WEB}, MAIL, GIST)], (WEB,)),
        # two sources into one read and one sink: the sink
        ([route({WEB, ISSUE}, KEY, POST)], (POST,)),
        # a mailbox is untrusted and private at once: it, or the sink, cuts the route
        ([route({MAIL}, MAIL, POST)], (POST,)),
        # no source (a secret from the prompt): the sink
        ([route(set(), None, GIST)], (GIST,)),
        # a privileged sink reached by a page
        ([route({WEB}, None, SHELL)], (SHELL,)),
        # a self-contained route has no other cut
        ([route({WEB}, None, WEB)], (WEB,)),
        # disjoint routes need one grant each
        ([route({WEB}, KEY, POST), route({ISSUE}, MAIL, GIST)], (GIST, POST)),
        ([], ()),
    ],
)
def test_the_choke_point_is_a_minimum_cut_preferring_the_sink_side(
    routes: list[Route], cut: tuple[Capability, ...]
) -> None:
    assert choke_point(routes) == cut


def test_removing_the_choke_point_breaks_every_route() -> None:
    routes = [route({WEB}, KEY, POST), route({WEB, ISSUE}, MAIL, POST), route({ISSUE}, KEY, GIST)]
    cut = set(choke_point(routes))
    for r in routes:
        chain = {*r.sources, r.sink} | ({r.via} if r.via else set())
        assert cut & chain, r
