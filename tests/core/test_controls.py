"""Per-call controls: each one on its own, with the evasions an agent (or a page) would try."""

from __future__ import annotations

import base64
import gzip
import tomllib
import urllib.parse
from dataclasses import replace

import pytest

from cyclops.core import Action, Mode, Patterns, Session
from cyclops.core.controls_config import parse_controls
from cyclops.core.patterns import parse_patterns
from cyclops.core.pins import tool_digest
from cyclops.core.tomlreader import ConfigError, TableReader
from cyclops.core.types import Capability, ControlKind, Decision, Reason, ToolCall

GITHUB_TOKEN = "ghp_" + "R7kq2ZxW9pLm4Tn8Vb3Hc6Jd1Fs5Gy0Ua2Qe"  # synthetic: 36 characters
POST = ("notify", "send_message")


def with_controls(patterns: Patterns, toml: str) -> Patterns:
    """The default patterns with ``[controls]`` replaced by ``toml``."""
    table = TableReader("test", tomllib.loads(toml)).table("controls", {})
    return replace(patterns, controls=parse_controls(table))


def decide(
    session: Session, server: str, tool: str, at: float | None = None, **args: object
) -> Decision:
    return session.decide(ToolCall(server, tool, args, at=at))


def kinds(decision: Decision) -> list[tuple[ControlKind, str]]:
    return [(c.kind, c.rule) for c in decision.controls]


# -- secret rules and their actions ----------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "expected"),
    [("deny", Action.DENY), ("flag", Action.FLAG), ("ask", Action.ASK), ("allow", Action.ALLOW)],
)
def test_a_secret_rule_action_applies_to_an_egress_call_on_its_own(
    patterns: Patterns, action: str, expected: Action
) -> None:
    rules = with_controls(patterns, f'[controls.secret_actions]\n"github-token" = "{action}"')
    decision = decide(Session(rules, Mode.PREVENT), *POST, text=f"token {GITHUB_TOKEN}")
    assert decision.action is expected
    if expected is not Action.ALLOW:
        assert kinds(decision) == [(ControlKind.SECRET, "github-token")]
        assert decision.controls[0].argument == "text"


def test_the_default_secret_action_covers_rules_not_named(patterns: Patterns) -> None:
    rules = with_controls(patterns, '[controls]\nsecret_action = "deny"')
    decision = decide(Session(rules, Mode.PREVENT), *POST, text=GITHUB_TOKEN)
    assert decision.action is Action.DENY


def test_a_secret_is_not_checked_in_a_call_that_sends_nothing_out(patterns: Patterns) -> None:
    rules = with_controls(patterns, '[controls]\nsecret_action = "deny"')
    decision = decide(Session(rules, Mode.PREVENT), "memory", "search_nodes", query=GITHUB_TOKEN)
    assert decision.action is Action.ALLOW


ENCODINGS = {
    "plain": lambda s: s,
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
    "base64 without padding": lambda s: base64.b64encode(s.encode()).decode().rstrip("="),
    "url-safe base64": lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    "hex": lambda s: s.encode().hex(),
    "upper hex": lambda s: s.encode().hex().upper(),
    "percent-encoded": lambda s: urllib.parse.quote(s, safe=""),
    "html entities": lambda s: "".join(f"&#{ord(c)};" for c in s),
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_redaction_takes_the_secret_out_in_the_encoding_it_was_sent_in(
    patterns: Patterns, encoding: str
) -> None:
    rules = with_controls(patterns, '[controls.secret_actions]\n"github-token" = "redact"')
    sent = ENCODINGS[encoding](GITHUB_TOKEN)
    decision = decide(
        Session(rules, Mode.PREVENT), *POST, text=f"here: {sent} (thanks)", channel="ops"
    )
    assert decision.action is Action.REDACT
    assert decision.forwards
    text = decision.arguments["text"]
    assert "[REDACTED:github-token]" in text
    assert sent not in text
    assert GITHUB_TOKEN not in text
    assert text.startswith("here: ")
    assert text.endswith(" (thanks)")
    assert decision.arguments["channel"] == "ops"


def test_a_secret_redaction_cannot_re_create_is_replaced_with_its_whole_value(
    patterns: Patterns,
) -> None:
    rules = with_controls(patterns, '[controls.secret_actions]\n"github-token" = "redact"')
    hidden = base64.b64encode(gzip.compress(f"token={GITHUB_TOKEN}".encode())).decode()
    decision = decide(Session(rules, Mode.PREVENT), *POST, text=f"blob {hidden}")
    assert decision.action is Action.REDACT
    assert decision.arguments["text"] == "[REDACTED:github-token]"


def test_redaction_reaches_into_nested_arguments_and_leaves_the_call_itself_alone(
    patterns: Patterns,
) -> None:
    rules = with_controls(patterns, '[controls.secret_actions]\n"github-token" = "redact"')
    session = Session(rules, Mode.PREVENT)
    arguments = {"blocks": [{"type": "text", "text": GITHUB_TOKEN}], "channel": "ops"}
    decision = session.decide(ToolCall(*POST, arguments))
    assert decision.arguments == {
        "blocks": [{"type": "text", "text": "[REDACTED:github-token]"}],
        "channel": "ops",
    }
    assert decision.call.arguments["blocks"][0]["text"] == GITHUB_TOKEN


def test_in_detect_mode_a_redaction_is_only_flagged(patterns: Patterns) -> None:
    rules = with_controls(patterns, '[controls.secret_actions]\n"github-token" = "redact"')
    decision = decide(Session(rules, Mode.DETECT), *POST, text=GITHUB_TOKEN)
    assert decision.action is Action.FLAG
    assert Reason.MODE_DETECT in decision.reasons
    assert decision.arguments["text"] == GITHUB_TOKEN


# -- destinations ------------------------------------------------------------------------------

ALLOW_LIST = """
[controls.destinations]
allow = ["api.example.com", "*.slack.com", "example.org"]
action = "deny"
"""


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("https://api.example.com/v1/post", None),
        ("https://hooks.slack.com/services/T0/B0/x", None),
        ("https://EXAMPLE.ORG./path", None),
        ("https://evil.example.net/in", "not-allowed"),
        ("https://api.example.com@evil.example.net/in", "not-allowed"),
        ("https://api.example.com.evil.example.net/in", "not-allowed"),
        ("https://slack.com.evil.example.net/", "not-allowed"),
        ("HTTPS://EVIL.EXAMPLE.NET/", "not-allowed"),
        ("https://\u0430pi.example.com/v1", "look-alike"),  # a Cyrillic "а"
        ("https://xn--pi-6kc.example.com/v1", "look-alike"),  # the same, already punycode
        ("http://2130706433/", "not-allowed"),
    ],
)
def test_an_egress_url_must_be_on_the_allow_list(
    patterns: Patterns, url: str, rule: str | None
) -> None:
    rules = with_controls(patterns, ALLOW_LIST)
    decision = decide(Session(rules, Mode.PREVENT), "fetch", "fetch", url=url)
    if rule is None:
        assert not [c for c in decision.controls if c.kind is ControlKind.DESTINATION]
    else:
        assert (ControlKind.DESTINATION, rule) in kinds(decision)
        assert decision.action is Action.DENY


@pytest.mark.parametrize(
    ("to", "denied"),
    [
        ("alice@example.org", False),
        ("Alice <alice@example.org>", False),
        ("mallory@evil.example.net", True),
        ("alice@example.org, mallory@evil.example.net", True),
    ],
)
def test_an_email_recipient_domain_must_be_on_the_allow_list(
    patterns: Patterns, to: str, denied: bool
) -> None:
    rules = with_controls(patterns, ALLOW_LIST)
    decision = decide(Session(rules, Mode.PREVENT), "mail", "send_email", to=to, body="hi")
    found = [c for c in decision.controls if c.kind is ControlKind.DESTINATION]
    assert bool(found) is denied
    if denied:
        assert found[0].argument == "to"
        assert found[0].detail == "example.net"


@pytest.mark.parametrize(
    "url",
    ["https://webhook.site/abc", "https://x1.webhook.site/abc", "https://WEBHOOK.SITE./abc"],
)
def test_a_deny_listed_host_is_denied_whatever_its_spelling(patterns: Patterns, url: str) -> None:
    rules = with_controls(
        patterns, '[controls.destinations]\ndeny = ["webhook.site", "*.webhook.site"]'
    )
    decision = decide(Session(rules, Mode.PREVENT), "fetch", "fetch", url=url)
    assert (ControlKind.DESTINATION, "deny-list") in kinds(decision)


# -- SSRF -------------------------------------------------------------------------------------

SSRF = "[controls.destinations]\nssrf_guard = true"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "metadata"),
        ("http://metadata.google.internal/computeMetadata/v1/", "metadata"),
        ("http://127.0.0.1:8080/admin", "loopback"),
        ("http://localhost/admin", "loopback"),
        ("http://2130706433/", "loopback"),
        ("http://0177.0.0.1/", "loopback"),
        ("http://0x7f.1/", "loopback"),
        ("http://127.1/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://10.1.2.3/", "private"),
        ("http://trusted.example@192.168.1.1/", "private"),
        ("http://169.254.1.1/", "link_local"),
        ("http://printer.local/", "internal_name"),
        ("http://10.0.0.1.nip.io/", "private"),
        ("http://app.127-0-0-1.sslip.io/", "loopback"),
        ("http://foo.localtest.me/", "loopback"),
    ],
)
def test_the_ssrf_guard_refuses_addresses_inside(patterns: Patterns, url: str, reason: str) -> None:
    decision = decide(
        Session(with_controls(patterns, SSRF), Mode.PREVENT), "fetch", "fetch", url=url
    )
    assert (ControlKind.SSRF, reason) in kinds(decision)
    assert decision.action is Action.DENY


@pytest.mark.parametrize(
    "url", ["https://example.org/", "http://93.184.216.34/", "http://8.8.8.8/"]
)
def test_the_ssrf_guard_lets_public_addresses_through(patterns: Patterns, url: str) -> None:
    decision = decide(
        Session(with_controls(patterns, SSRF), Mode.PREVENT), "fetch", "fetch", url=url
    )
    assert not [c for c in decision.controls if c.kind is ControlKind.SSRF]


def test_the_ssrf_guard_is_off_unless_asked_for(patterns: Patterns) -> None:
    decision = decide(Session(patterns, Mode.PREVENT), "fetch", "fetch", url="http://10.0.0.1/")
    assert not decision.controls


# -- paths -------------------------------------------------------------------------------------

SCOPE = """
[[controls.paths]]
servers = ["filesystem"]
roots = ["/work/project"]
outside_action = "deny"
sensitive = ["**/.env", "*.pem"]
sensitive_action = "ask"
"""


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("/work/project/src/app.py", None),
        ("src/app.py", None),
        ("./src/../README.md", None),
        ("/work//project///notes.txt", None),
        ("/work/project/../secrets.txt", "outside-roots"),
        ("/work/project2/notes.txt", "outside-roots"),
        ("/work/projec", "outside-roots"),
        ("../../etc/passwd", "outside-roots"),
        ("src/../../../etc/passwd", "outside-roots"),
        ("/etc/passwd", "outside-roots"),
        ("~/notes.txt", "outside-roots"),
        ("file:///work/project/%2e%2e/other/x", "outside-roots"),
        ("C:\\Windows\\System32\\config", "outside-roots"),
        ("/work/project/.env", "sensitive-path"),
        ("/work/project/certs/server.PEM", "sensitive-path"),
    ],
)
def test_a_path_argument_is_kept_inside_its_servers_roots(
    patterns: Patterns, path: str, rule: str | None
) -> None:
    session = Session(with_controls(patterns, SCOPE), Mode.PREVENT)
    decision = decide(session, "filesystem", "read_text_file", path=path)
    found = [c.rule for c in decision.controls if c.kind is ControlKind.PATH]
    assert found == ([rule] if rule else [])
    if rule == "outside-roots":
        assert decision.action is Action.DENY
    if rule == "sensitive-path":
        assert decision.action is Action.ASK


def test_path_scope_applies_only_to_the_servers_it_names(patterns: Patterns) -> None:
    session = Session(with_controls(patterns, SCOPE), Mode.PREVENT)
    decision = decide(session, "git", "git_status", repo_path="/elsewhere")
    assert not decision.controls


def test_every_path_argument_of_a_call_is_checked(patterns: Patterns) -> None:
    session = Session(with_controls(patterns, SCOPE), Mode.PREVENT)
    decision = decide(
        session, "filesystem", "move_file", source="/work/project/a", destination="/tmp/a"
    )
    assert [(c.rule, c.argument) for c in decision.controls] == [("outside-roots", "destination")]


# -- rates, budgets, the breaker ---------------------------------------------------------------


def test_a_rate_limit_denies_the_call_over_the_limit_within_its_window(patterns: Patterns) -> None:
    rules = with_controls(
        patterns,
        '[[controls.rates]]\nid = "fetch-burst"\ntools = ["fetch"]\ncalls = 3\nseconds = 10',
    )
    session = Session(rules, Mode.PREVENT)
    at = [0.0, 1.0, 2.0, 3.0, 10.5, 11.0]
    actions = [
        decide(session, "fetch", "fetch", at=t, url="https://example.org").action for t in at
    ]
    assert actions == [Action.ALLOW] * 3 + [Action.DENY] + [Action.ALLOW, Action.ALLOW]


def test_a_per_session_rate_limit_counts_every_matching_tool_together(patterns: Patterns) -> None:
    rules = with_controls(
        patterns,
        '[[controls.rates]]\nid = "all"\ncalls = 2\nseconds = 60\nper_session = true',
    )
    session = Session(rules, Mode.PREVENT)
    first = decide(session, "memory", "read_graph", at=0.0)
    second = decide(session, "git", "git_status", at=1.0, repo_path="/r")
    third = decide(session, "memory", "search_nodes", at=2.0, query="x")
    assert [first.action, second.action, third.action] == [Action.ALLOW, Action.ALLOW, Action.DENY]
    assert kinds(third) == [(ControlKind.RATE, "all")]


def test_an_egress_budget_caps_the_bytes_sent_to_one_destination(patterns: Patterns) -> None:
    rules = with_controls(patterns, "[controls.budget]\negress_bytes = 150")
    session = Session(rules, Mode.PREVENT)
    url = "https://collector.example.net/in"
    sent = [decide(session, "fetch", "fetch", url=url, body="x" * 30).action for _ in range(4)]
    assert sent == [Action.ALLOW, Action.ALLOW, Action.DENY, Action.DENY]
    other = decide(session, "fetch", "fetch", url="https://other.example.org/", body="x" * 30)
    assert other.action is Action.ALLOW


def test_the_breaker_denies_egress_after_repeated_denials_until_reset(patterns: Patterns) -> None:
    rules = with_controls(
        patterns,
        '[controls.destinations]\ndeny = ["evil.example.net"]\n[controls.breaker]\ndenials = 2',
    )
    session = Session(rules, Mode.PREVENT)
    for _ in range(2):
        assert (
            decide(session, "fetch", "fetch", url="https://evil.example.net/").action is Action.DENY
        )
    tripped = decide(session, "fetch", "fetch", url="https://example.org/")
    assert tripped.action is Action.DENY
    assert (ControlKind.BREAKER, "breaker") in kinds(tripped)
    assert decide(session, "memory", "read_graph").action is Action.ALLOW  # not egress
    assert session.verdict().breaker_tripped
    session.controller.reset_breaker()
    assert decide(session, "fetch", "fetch", url="https://example.org/").action is Action.ALLOW


# -- pins ------------------------------------------------------------------------------------


def test_a_quarantined_tool_is_denied_until_released(patterns: Patterns) -> None:
    session = Session(patterns, Mode.PREVENT)
    session.controller.quarantine(Capability("github", "create_issue"))
    held = decide(session, "github", "create_issue", title="x")
    assert held.action is Action.DENY
    assert kinds(held) == [(ControlKind.PIN, "tool-changed")]
    assert session.verdict().quarantined == (Capability("github", "create_issue"),)
    session.controller.release(Capability("github", "create_issue"))
    assert decide(session, "github", "create_issue", title="x").action is Action.ALLOW


def test_a_tool_whose_description_holds_a_lone_surrogate_is_pinned() -> None:
    with_surrogate = tool_digest({"name": "t", "description": "a\ud800"})
    assert with_surrogate != tool_digest({"name": "t", "description": "a"})


# -- asking --------------------------------------------------------------------------------------

ASK = '[controls.secret_actions]\n"github-token" = "ask"'


def test_an_approved_call_goes_on_and_is_reported(patterns: Patterns) -> None:
    session = Session(with_controls(patterns, ASK), Mode.PREVENT)
    asked = decide(session, *POST, text=GITHUB_TOKEN)
    assert asked.action is Action.ASK
    assert not asked.forwards
    final = session.answer(asked.index, approved=True)
    assert final.action is Action.FLAG
    assert final.forwards
    assert Reason.USER_APPROVED in final.reasons
    assert session.verdict().metrics.asked == 1


@pytest.mark.parametrize(
    ("answered", "reason"), [(True, Reason.USER_REFUSED), (False, Reason.NO_ANSWER)]
)
def test_a_refused_or_unanswered_call_is_denied(
    patterns: Patterns, answered: bool, reason: Reason
) -> None:
    session = Session(with_controls(patterns, ASK), Mode.PREVENT)
    asked = decide(session, *POST, text=GITHUB_TOKEN)
    final = session.answer(asked.index, approved=False, answered=answered)
    assert final.action is Action.DENY
    assert reason in final.reasons
    assert session.verdict().metrics.denied == 1


def test_a_yes_does_not_cancel_a_redaction_another_rule_wants(patterns: Patterns) -> None:
    rules = with_controls(
        patterns,
        '[controls.secret_actions]\n"github-token" = "redact"\n'
        '[[controls.paths]]\nroots = ["/srv"]\noutside_action = "ask"\nkeys = ["file"]',
    )
    session = Session(rules, Mode.PREVENT)
    asked = decide(session, *POST, text=GITHUB_TOKEN, file="/etc/motd")
    assert asked.action is Action.ASK
    final = session.answer(asked.index, approved=True)
    assert final.action is Action.REDACT
    assert final.arguments["text"] == "[REDACTED:github-token]"


def test_detect_mode_never_asks(patterns: Patterns) -> None:
    decision = decide(Session(with_controls(patterns, ASK), Mode.DETECT), *POST, text=GITHUB_TOKEN)
    assert decision.action is Action.FLAG


# -- the verdict and the configuration ----------------------------------------------------------


def test_the_verdict_lists_each_control_with_its_rule_and_what_was_done(patterns: Patterns) -> None:
    session = Session(with_controls(patterns, SSRF), Mode.PREVENT)
    decide(session, "fetch", "fetch", url="http://169.254.169.254/")
    verdict = session.verdict()
    (event,) = verdict.controls
    assert (event.finding.kind, event.finding.rule, event.action) == (
        ControlKind.SSRF,
        "metadata",
        Action.DENY,
    )
    assert verdict.metrics.by_control[ControlKind.SSRF] == 1


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('[controls]\nsecret_action = "maybe"', "controls.secret_action"),
        ("[controls]\nsurprise = 1", "controls.surprise"),
        ('[controls.destinations]\naction = "maybe"', "controls.destinations.action"),
        ('[[controls.paths]]\nroots = ["relative/dir"]', "controls.paths[0].roots"),
        ('[[controls.paths]]\nroots = ["~/code"]', "controls.paths[0].roots"),
        ('[[controls.rates]]\nid = "r"\ncalls = 0\nseconds = 1', "controls.rates[0].calls"),
        (
            '[controls.secret_actions]\n"no-such-rule" = "deny"',
            "controls.secret_actions.no-such-rule",
        ),
    ],
)
def test_a_bad_controls_section_is_refused_naming_its_key(toml: str, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_patterns(f"version = 1\n{toml}\n", "test.toml")
    assert caught.value.key == key


# -- per-tool rules ------------------------------------------------------------------------------

TOOL_RULE = """
[[controls.tools]]
id = "scan-cut"
servers = ["notify"]
tools = ["send_*"]
action = "ask"
"""


def test_a_tool_rule_applies_to_every_call_of_the_tools_it_names(patterns: Patterns) -> None:
    session = Session(with_controls(patterns, TOOL_RULE), Mode.PREVENT)
    held = decide(session, "notify", "send_message", url="https://example.org", text="hi")
    assert held.action is Action.ASK
    assert kinds(held) == [(ControlKind.TOOL, "scan-cut")]
    other_server = decide(session, "chat", "send_message", channel="x", text="hi")
    assert not [c for c in other_server.controls if c.kind is ControlKind.TOOL]


def test_a_secret_split_by_lone_surrogates_is_redacted_whole(patterns: Patterns) -> None:
    rules = with_controls(patterns, '[controls.secret_actions]\n"github-token" = "redact"')
    sent = "\ud800".join(GITHUB_TOKEN)  # a JSON "\ud800" escape makes a lone surrogate
    decision = decide(Session(rules, Mode.PREVENT), *POST, text=f"here: {sent}")
    assert decision.action is Action.REDACT
    assert decision.arguments["text"] == "[REDACTED:github-token]"
