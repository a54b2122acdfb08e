from __future__ import annotations

from pathlib import Path

import pytest

from cyclops.config import load_patterns
from cyclops.core import Action, ConfigError, FlowClass, Label, parse_patterns

ROOT = Path(__file__).resolve().parents[2]


def test_the_bundled_patterns_are_the_top_level_file() -> None:
    shipped = (ROOT / "cyclops" / "patterns.toml").read_bytes()
    assert shipped == (ROOT / "patterns.toml").read_bytes()


def test_the_bundled_patterns_load_and_name_the_common_servers() -> None:
    patterns = load_patterns()
    names = {role.name for role in patterns.roles}
    assert {"filesystem", "web", "git", "github", "chat", "mail", "memory", "shell"} <= names
    assert patterns.flows[FlowClass.EXFILTRATION].action is Action.DENY


def test_an_empty_file_gives_safe_defaults() -> None:
    patterns = parse_patterns("", "empty.toml")
    assert patterns.roles == ()
    assert patterns.flows[FlowClass.EXCESSIVE_AGENCY].require_data_edges is True
    assert patterns.leak.min_call_bytes == 12


def test_the_hash_identifies_the_file_text() -> None:
    assert parse_patterns("version = 1").sha256 != parse_patterns("version = 1\n").sha256


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("versoin = 1", "versoin"),
        ("version = 2", "version"),
        ("[leak]\nmin_call_byte = 3", "leak.min_call_byte"),
        ("[leak]\nmin_call_bytes = -1", "leak.min_call_bytes"),
        ("[leak]\nmin_call_bytes = 'ten'", "leak.min_call_bytes"),
        ("[roles.web]\nservers = ['web']\ncolour = 'red'", "roles.web.colour"),
        ("[roles.web.tools]\n'fetch' = ['untrustworthy']", "roles.web.tools.fetch"),
        ("[roles.web.tools]\n'fetch' = 'untrusted'", "roles.web.tools.fetch"),
        ("[[secrets]]\nid = 'x'\nregex = '(?<!a)b'", "secrets[0].regex"),
        ("[[secrets]]\nid = 'x'\nregex = '(unclosed'", "secrets[0].regex"),
        ("[[secrets]]\nid = 'x'\nregex = 'a'\ncheck = 'crc'", "secrets[0].check"),
        ("[[secrets]]\nregex = 'a'", "secrets[0].id"),
        ("[[secrets]]\nid = 'x'\nregex = 'a'\n[[secrets]]\nid = 'x'\nregex = 'b'", "secrets[1].id"),
        ("[[secrets]]\nid = 'x'\nregex = 'a'\nservices = ['Gemini AI']", "secrets[0].services"),
        ("[results.insiders]\nauthor_association = []", "results.insiders.author_association"),
        ("[provenance]\nlabelled_values = ['Passport [A-Z0-9]+']", "provenance.labelled_values"),
        ("[flows.exfil]\naction = 'deny'", "flows.exfil"),
        ("[provenance]\nmin_private_value = 2", "provenance.min_private_value"),
        ("[tools]\nverbs = ['Send']", "tools.verbs"),
        ("[tools]\nverbs = ['send it']", "tools.verbs"),
        ("[tools]\nverb = ['send']", "tools.verb"),
        ("[flows.exfiltration]\naction = 'block'", "flows.exfiltration.action"),
        (
            "[flows.exfiltration]\ninstructions_as_data = 1",
            "flows.exfiltration.instructions_as_data",
        ),
        (
            "[flows.exfiltration]\ninstruction_only_tools = ['reserve_*']",
            "flows.exfiltration.instruction_only_tools",
        ),
        (
            "[flows.excessive_agency]\ninstruction_only_tools = ['[z-a]']",
            "flows.excessive_agency.instruction_only_tools",
        ),
        (
            "[[arguments]]\nid = 'a'\nkeys = ['path']\nlabels = ['sensitive']",
            "arguments[0].path_globs",
        ),
        (
            "[[arguments]]\nid = 'a'\nkeys = ['p']\npath_globs = ['[z-a]']\nlabels = ['sensitive']",
            "arguments[0].path_globs",
        ),
        (
            "[[provenance.high_value]]\nid = 'x'\nregex = '[0-9]{6}'\nsteers = 'yes'",
            "provenance.high_value[0].steers",
        ),
        (
            "[[arguments]]\nid = 'a'\nkeys = ['p']\npath_globs = ['*']\nexcept_globs = ['[z-a]']"
            "\nlabels = ['sensitive']",
            "arguments[0].except_globs",
        ),
        (
            "[[arguments]]\nid = 'a'\nkeys = ['sql']\nvalue_regexes = ['(?=x)']\nlabels = []",
            "arguments[0].value_regexes",
        ),
        (
            "[[arguments]]\nid = 'a'\nkeys = ['sql']\nvalue_regexes = ['x']\n"
            "locator_regexes = ['(?<=x)']\nlabels = []",
            "arguments[0].locator_regexes",
        ),
        ("[leak]\nmin_id_length = -1", "leak.min_id_length"),
        ("[roles.mail]\nservers = ['mail']\nsender_fields = ['from:']", "roles.mail.sender_fields"),
        # a dotted path is for requester fields only, and has no empty names
        ("[roles.mail]\nservers = ['mail']\nsender_fields = ['a.b']", "roles.mail.sender_fields"),
        (
            "[roles.desk]\nservers = ['desk']\nrequester_fields = ['via..from']",
            "roles.desk.requester_fields",
        ),
        ("[roles.git]\nservers = ['git']\ncheckout_keys = ['[z-a]']", "roles.git.checkout_keys"),
        ("[results]\nuntrusted_markers = ['(?=x)']", "results.untrusted_markers"),
        ("[results]\nsensitive_keys = ['[z-a]']", "results.sensitive_keys"),
        ("[results]\nperson_message_keys = ['[z-a]']", "results.person_message_keys"),
        ("[results]\nsensitive_key = ['ssn']", "results.sensitive_key"),
        ("[results]\nrequest_markers = ['please (\\w+)']", "results.request_markers"),
        ("[results]\nrequest_markers = ['please (?P<value>\\w+)']", "results.request_markers"),
        ("[tools.verb_groups]\ntrade = ['sell', 'Place order']", "tools.verb_groups.trade"),
        ("[poisoning]\nargument_requests = ['in (\\w+)']", "poisoning.argument_requests"),
        ("[[arguments]]\nid = 'x'\nkeys = ['q']\nvalue_regexes = ['x']", "arguments[0].labels"),
        ("[poisoning]\nname_verbs = ['Drop table']", "poisoning.name_verbs"),
        ("[poisoning]\nexamples = '(?=example)'", "poisoning.examples"),
        ("[poisoning]\nharm = ['x']", "poisoning.harm"),
        ("[tools.verb_groups]\ntrade = 'sell'", "tools.verb_groups.trade"),
        ("[provenance]\nkgram = 2", "provenance.kgram"),
        ("[provenance]\nopaque_ids = ['(?<=x)']", "provenance.opaque_ids"),
        ("[egress]\nallow_hosts = 'localhost'", "egress.allow_hosts"),
        ("[egress]\nunknown_server_secrets = 'yes'", "egress.unknown_server_secrets"),
        ("[egress]\nurl_labels = ['outbound']", "egress.url_labels"),
        ("[egress]\nservice_commands = { gh = 'https://x.org' }", "egress.service_commands.gh"),
        ("[egress]\nservice_commands = { gh = 1 }", "egress.service_commands.gh"),
        (
            "[roles.git.public]\nlisted_by = ['search']\nname_fields = ['n']\nreads = ['get']",
            "roles.git.public.private_field",
        ),
        (
            "[roles.git.public]\nlisted_by = ['s']\nname_fields = ['n']\nprivate_field = 'p'"
            "\nreads = ['g']\nowner = 'me'",
            "roles.git.public.owner",
        ),
    ],
)
def test_a_bad_value_is_refused_with_its_key(text: str, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_patterns(text, "mine.toml")
    assert caught.value.key == key
    assert caught.value.source == "mine.toml"
    assert caught.value.fix


def test_invalid_toml_is_refused_with_the_file_name() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_patterns("[roles\n", "broken.toml")
    assert caught.value.source == "broken.toml"


def test_an_unknown_key_suggests_the_closest_known_one() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_patterns("[leak]\ndrip_byte = 3")
    assert "drip_bytes" in caught.value.fix


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_patterns(tmp_path / "nope.toml")


def test_role_tools_map_globs_to_labels() -> None:
    patterns = parse_patterns(
        "[roles.web]\nservers = ['fetch*']\n[roles.web.tools]\n'*' = ['untrusted']"
    )
    role = patterns.role("web")
    assert role is not None
    assert role.servers.matches("fetcher")
    assert role.tools[0][1] == frozenset({Label.UNTRUSTED})


def test_an_argument_rule_leaves_out_the_paths_of_its_except_globs() -> None:
    text = "[[arguments]]\nid = 'keys'\nkeys = ['path']\npath_globs = ['~/.ssh/**']\n"
    text += "except_globs = ['*.pub']\nlabels = ['sensitive']"
    (rule,) = parse_patterns(text).arguments
    assert rule.path_globs.matches("~/.ssh/id_rsa.pub")
    assert rule.except_globs.matches("~/.ssh/id_rsa.pub")
    assert not rule.except_globs.matches("~/.ssh/id_rsa")


def test_the_high_values_that_say_where_to_send_are_the_steering_ones() -> None:
    steering = [rule.id for rule in load_patterns().provenance.steering_values]
    assert steering == ["phone-number", "nanp-phone-number"]
