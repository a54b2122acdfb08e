from __future__ import annotations

import pytest

from cyclops.core.regex import (
    Glob,
    GlobSet,
    PathGlob,
    RegexError,
    SafeRegex,
    normalize_path,
    spellings,
    tool_names,
)


@pytest.mark.parametrize(
    ("glob", "name", "expected"),
    [
        ("fetch*", "fetch", True),
        ("fetch*", "fetch_url", True),
        ("fetch*", "prefetch", False),
        ("*_id", "issue_id", True),
        ("*_id", "id", False),
        ("read_*", "READ_FILE", True),
        ("git_diff?", "git_diffs", True),
        ("[ab]x", "bx", True),
        ("[!ab]x", "bx", False),
        ("a.b", "axb", False),
    ],
)
def test_a_glob_matches_whole_names_case_insensitively(
    glob: str, name: str, expected: bool
) -> None:
    assert Glob(glob).matches(name) is expected


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("~/.ssh/**", "/home/alice/.ssh/id_rsa", True),
        ("~/.ssh/**", "~/.ssh/id_rsa", True),
        ("~/.ssh/**", "/Users/bob/.ssh/keys/work", True),
        ("~/.ssh/**", "../../alice/.ssh/id_rsa", True),
        ("~/.ssh/**", "/home/alice/ssh/id_rsa", False),
        ("*.pem", "/etc/tls/server.pem", True),
        ("*.pem", "server.PEM", True),
        ("*.pem", "/etc/tls/server.pem.txt", False),
        (".env", "/srv/app/.env", True),
        (".env", "/srv/app/.envrc", False),
        (".env", "/srv/app/.env/file", True),
        (".aws/credentials", "/root/.aws/credentials", True),
        (".aws/credentials", "/root/.aws/credentials.bak", False),
        ("/etc/shadow", "/etc/shadow", True),
        ("/etc/shadow", "/tmp/etc/shadow", False),
        (".git/hooks/**", "/repo/.git/hooks/pre-commit", True),
        ("id_rsa*", "/home/a/.ssh/id_rsa.pub", True),
    ],
)
def test_a_path_glob_matches_like_gitignore(glob: str, path: str, expected: bool) -> None:
    assert PathGlob(glob).matches(normalize_path(path)) is expected


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("/home/a/../b/./c", "/home/b/c"),
        ("//home///a", "/home/a"),
        ("file:///etc/passwd", "/etc/passwd"),
        ("C:\\Users\\a\\.ssh\\id_rsa", "C:/Users/a/.ssh/id_rsa"),
        ("~/x/../.ssh/id_rsa", "~/.ssh/id_rsa"),
        ("../../a", "../../a"),
        ("/../../etc/shadow", "/etc/shadow"),
    ],
)
def test_paths_are_normalised_lexically(raw: str, normal: str) -> None:
    assert normalize_path(raw) == normal


def test_a_safe_regex_reports_the_span_of_its_marked_group() -> None:
    regex = SafeRegex(r"code:(?P<secret>\d{6})")
    assert list(regex.spans("x code:123456 y code:654321")) == [(7, 13), (21, 27)]


def test_a_regex_with_a_look_behind_is_refused() -> None:
    with pytest.raises(RegexError):
        SafeRegex(r"(?<!\d)\d{6}")


def test_a_catastrophic_pattern_runs_in_linear_time() -> None:
    # (a+)+b backtracks exponentially in engines that backtrack; RE2 does not.
    assert not SafeRegex(r"(a+)+b").search("a" * 100_000)


@pytest.mark.parametrize(
    ("text", "spans", "texts"),
    [
        ("key=Ab12 key=Cd34", [(4, 8), (13, 17)], ["key=Ab12", "key=Cd34"]),
        ("é key=Ab12 — key=Cd34", [(6, 10), (17, 21)], ["key=Ab12", "key=Cd34"]),
        ("ＫＥＹ key=Ab12 key=Ｃd34", [(8, 12)], ["key=Ab12"]),
    ],
)
def test_spans_are_offsets_of_the_text_whether_it_is_ascii_or_not(
    text: str, spans: list[tuple[int, int]], texts: list[str]
) -> None:
    regex = SafeRegex(r"(?i)key=(?P<secret>[a-z]{2}\d{2})")
    assert list(regex.spans(text)) == spans
    whole = SafeRegex(r"(?i)k\S*=[a-z]{2}\d{2}")  # no marked group: the whole match
    assert [text[a:b] for a, b in whole.spans(text)] == texts


@pytest.mark.parametrize(
    ("tool", "names"),
    [
        ("send_email", ("send_email",)),
        ("sendEmail", ("sendEmail", "send_email")),
        ("addCommentToJiraIssue", ("addCommentToJiraIssue", "add_comment_to_jira_issue")),
        ("notion-fetch", ("notion-fetch", "notion_fetch")),
        ("HTTPRequest", ("HTTPRequest", "http_request")),
        ("getURLContents", ("getURLContents", "get_url_contents")),
    ],
)
def test_a_name_is_also_read_in_snake_case(tool: str, names: tuple[str, ...]) -> None:
    assert spellings(tool) == names


@pytest.mark.parametrize(
    ("server", "tool", "names"),
    [
        ("slack", "slack_post_message", ("slack_post_message", "post_message")),
        ("GitHub", "GitHubGetIssue", ("GitHubGetIssue", "GetIssue")),
        ("github", "GitHubGetIssue", ("GitHubGetIssue", "GetIssue")),
        ("git-hub", "github_get_issue", ("github_get_issue", "get_issue")),
        ("notion", "notion-fetch", ("notion-fetch", "fetch")),
        ("brave-search", "brave_web_search", ("brave_web_search", "web_search")),
        ("google-calendar", "GoogleCalendarReadEvents", ("GoogleCalendarReadEvents", "ReadEvents")),
        # the server's name must end at a word's end in the tool's
        ("mail", "mailbox_list", ("mailbox_list",)),
        ("git", "github_get_issue", ("github_get_issue",)),
        # nothing but the server's name, or no prefix at all
        ("fetch", "fetch", ("fetch",)),
        ("slack", "post_message", ("post_message",)),
        ("--", "_x", ("_x",)),
    ],
)  # fmt: skip
def test_a_tool_is_also_known_by_its_name_without_its_servers(
    server: str, tool: str, names: tuple[str, ...]
) -> None:
    assert tool_names(server, tool) == names


VERBS = frozenset({"get", "send", "read", "search", "unlock", "post"})


@pytest.mark.parametrize(
    ("server", "tool", "names"),
    [
        ("tools", "GmailSendEmail", ("GmailSendEmail", "send_email")),
        ("Gmail", "GmailSendEmail", ("GmailSendEmail", "SendEmail", "send_email")),
        ("tools", "gmail_send_email", ("gmail_send_email", "send_email")),
        ("x", "TwitterManagerReadTweet", ("TwitterManagerReadTweet", "read_tweet")),
        ("x", "The23andMeGetGeneticData", ("The23andMeGetGeneticData", "get_genetic_data")),
        ("x", "AugustSmartLockUnlockDoor", ("AugustSmartLockUnlockDoor", "unlock_door")),
        # a name that starts with a verb is read as it is: its first verb is the first word
        ("x", "get_post_comments", ("get_post_comments",)),
        ("x", "sendEmail", ("sendEmail",)),
        # no verb, or nothing but the server's name before it
        ("x", "mailbox_list", ("mailbox_list",)),
        ("slack", "slack_post_message", ("slack_post_message", "post_message")),
        # an OpenAPI-generated name: the HTTP method after API- is how, not what (Notion's)
        ("notion", "API-post-page", ("API-post-page",)),
        ("notion", "API-post-search", ("API-post-search",)),
        ("notion", "API-get-users", ("API-get-users", "get_users")),
        ("x", "api_post_tweet", ("api_post_tweet", "post_tweet")),
    ],
)  # fmt: skip
def test_a_toolkits_tool_is_also_known_by_its_name_from_its_first_verb(
    server: str, tool: str, names: tuple[str, ...]
) -> None:
    assert tool_names(server, tool, VERBS) == names


def test_name_globs_match_either_spelling_and_plain_globs_only_the_name() -> None:
    assert Glob("send_*").matches_name("sendEmail")
    assert GlobSet(("send_*",)).matches_name("send-email")
    assert not Glob("send_*").matches("sendEmail")
    assert not Glob("send_*").matches_name("resend")
