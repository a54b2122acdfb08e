"""Linear-time regular expressions and globs.

Patterns come from configuration but run over text an attacker controls, so they run on RE2
(google-re2): matching time is linear in the input whatever the pattern, so no rule can backtrack
catastrophically. RE2 has no look-arounds or back-references; a rule marks the part it wants with
a group named ``secret`` (or ``value``, or ``verb``) instead of a look-behind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

import re2  # type: ignore[import-untyped]

__all__ = [
    "Glob",
    "GlobSet",
    "LiteralSet",
    "PathGlob",
    "PathGlobSet",
    "RegexError",
    "SafeRegex",
    "alternation",
    "normalize_path",
    "spellings",
    "tool_names",
]

# RE2's default. A search whose lazily built DFA outgrows it falls back to the NFA, some fifty
# times slower: a rule alone stays far below it; a joined alternation of ninety rules did not.
_MAX_MEM = 8 << 20
_JOINED_MAX_MEM = 64 << 20
_MARKED_GROUPS = ("secret", "value", "verb", "argument")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8(text: str) -> bytes:
    """``text`` as the UTF-8 that RE2 reads, a lone surrogate (no character, but JSON can carry
    one: ``"\\ud800"``) as U+FFFD. Given bytes, the google-re2 wrapper only matches; given a
    str, it encodes it and maps every match's offsets back in Python, which costs more than
    the matching, and fails on a surrogate."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


class RegexError(ValueError):
    """A pattern RE2 cannot compile; the message says why."""


@cache
def _options(max_mem: int) -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would otherwise print parse errors to stderr itself
    options.max_mem = max_mem
    return options


def _compile(pattern: str, max_mem: int = _MAX_MEM) -> Any:
    try:
        return re2.compile(pattern, _options(max_mem))
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise RegexError(f"RE2 cannot compile it: {detail}") from None


@dataclass(frozen=True)
class SafeRegex:
    """A compiled RE2 pattern whose spans are those of its marked group, if any."""

    pattern: str
    max_mem: int = field(default=_MAX_MEM, repr=False, compare=False)
    """What RE2 may spend on it, its DFA's cache most (which is filled only as a search needs)."""
    _compiled: Any = field(init=False, repr=False, compare=False)
    _group: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        compiled = _compile(self.pattern, self.max_mem)
        group = next(
            (compiled.groupindex[g] for g in _MARKED_GROUPS if g in compiled.groupindex), 0
        )
        object.__setattr__(self, "_compiled", compiled)
        object.__setattr__(self, "_group", group)

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Start and end of every match (of the marked group where there is one)."""
        data = _utf8(text)
        ascii_only = len(data) == len(text)  # then byte offsets are character offsets
        byte_at = char_at = 0
        for match in self._compiled.finditer(data):
            start, end = match.span(self._group)
            if start < 0 or end <= start:
                continue
            if not ascii_only:  # count characters up to here; spans only move forward
                char_start = char_at + len(data[byte_at:start].decode("utf-8"))
                byte_at, char_at = end, char_start + len(data[start:end].decode("utf-8"))
                start, end = char_start, char_at
            yield start, end

    def marked(self, text: str) -> Iterator[str]:
        """The text of every match (of the marked group where there is one)."""
        for start, end in self.spans(text):
            yield text[start:end]

    def marks(self, group: str) -> bool:
        """Whether the pattern marks its matches with a group named ``group``."""
        return self._group > 0 and self._compiled.groupindex.get(group) == self._group

    def search(self, text: str) -> bool:
        return self._compiled.search(_utf8(text)) is not None

    def fullmatch(self, text: str) -> bool:
        return self._compiled.fullmatch(_utf8(text)) is not None


def alternation(patterns: Sequence[str]) -> SafeRegex | None:
    """The patterns as one alternation, searched in one pass (a 2 KB text: one search instead
    of one per pattern); None if they cannot be joined (a group name used twice)."""
    try:
        return SafeRegex("|".join(f"(?:{p})" for p in patterns), max_mem=_JOINED_MAX_MEM)
    except RegexError:
        return None


class LiteralSet:
    """Which of many literal strings a text contains, in one pass of one automaton (RE2::Set
    reports every member that matches anywhere, overlapping ones included)."""

    # RE2::Set answers "none" when its DFA runs out of memory; literals need little of it
    # (about one state per character of the literals), so the budget is generous.
    _MAX_MEM = 64 << 20

    def __init__(self, literals: Iterable[str]) -> None:
        self.literals = tuple(dict.fromkeys(literals))
        self._set = re2.Set.SearchSet(_options(self._MAX_MEM))
        for literal in self.literals:
            self._set.Add(re2.escape(literal))
        self._set.Compile()

    def present(self, text: str) -> list[str]:
        """The literals found in ``text``, in no particular order."""
        if not self.literals:
            return []
        return [self.literals[i] for i in self._set.Match(_utf8(text)) or ()]


def _glob_to_regex(glob: str, *, segment: str) -> str:
    """Translate ``*``, ``**``, ``?`` and ``[...]``; ``segment`` is what ``*`` may match."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append(segment + "*")
            i += 1
        elif char == "?":
            out.append(segment)
            i += 1
        elif char == "[" and "]" in glob[i + 2 :]:
            end = glob.index("]", i + 2)
            body = glob[i + 1 : end]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re2.escape(char))
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class Glob:
    """A shell-style glob over a name (a server, a tool, an argument key), case-insensitive."""

    pattern: str
    _compiled: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        regex = "(?i)" + _glob_to_regex(self.pattern, segment=".")
        object.__setattr__(self, "_compiled", _compile(regex))

    def matches(self, name: str) -> bool:
        return self._compiled.fullmatch(_utf8(name)) is not None

    def matches_name(self, name: str) -> bool:
        """Whether the glob matches a name (a tool's, an argument's) as written or in
        snake_case (globs are written ``send_*``; servers write ``sendEmail``, ``send-email``)."""
        return any(self.matches(spelling) for spelling in spellings(name))


_CACHE_LIMIT = 4096


@dataclass(frozen=True)
class GlobSet:
    """Several globs matched as one (a name matches if any does); answers are remembered."""

    patterns: tuple[str, ...]
    _compiled: Any = field(init=False, repr=False, compare=False)
    _cache: dict[str, bool] = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        for pattern in self.patterns:
            Glob(pattern)  # each on its own first, so that an error names the bad one
        body = "|".join(f"(?:{_glob_to_regex(p, segment='.')})" for p in self.patterns)
        object.__setattr__(self, "_compiled", _compile(f"(?i){body}") if body else None)

    def matches(self, name: str) -> bool:
        known = self._cache.get(name)
        if known is not None:
            return known
        found = self._compiled is not None and self._compiled.fullmatch(_utf8(name)) is not None
        if len(self._cache) < _CACHE_LIMIT:
            self._cache[name] = found
        return found

    def matches_name(self, name: str) -> bool:
        """Like :meth:`Glob.matches_name`."""
        return any(self.matches(spelling) for spelling in spellings(name))

    def __bool__(self) -> bool:
        return bool(self.patterns)


_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NAME_SEPARATORS = re.compile(r"[-.\s]+")


@lru_cache(maxsize=4096)
def spellings(name: str) -> tuple[str, ...]:
    """A name as written, and in snake_case when that differs (``addCommentToIssue`` is also
    ``add_comment_to_issue``, ``notion-fetch`` also ``notion_fetch``, ``toEmail`` ``to_email``)."""
    snake = _NAME_SEPARATORS.sub("_", _CAMEL_HUMP.sub("_", name)).lower()
    return (name,) if snake == name.lower() else (name, snake)


_NAME_BREAK = frozenset("_-. ")


@lru_cache(maxsize=4096)
def tool_names(server: str, tool: str, verbs: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """A tool's name, and without a leading copy of its server's name (or the name's first
    word) when it has one: ``slack_post_message`` on ``slack`` is also ``post_message``,
    ``GitHubGetIssue`` on ``GitHub`` ``GetIssue``, ``brave_web_search`` on ``brave-search``
    ``web_search``. Tool globs are written for what a tool does, not for whose it is.

    A name whose first verb (one of ``verbs``) comes after other words is also read from that
    verb: ``GmailSendEmail`` on any server is also ``send_email``, ``TwitterManagerReadTweet``
    ``read_tweet`` (toolkits name their tools ``<App><Verb><Object>``)."""
    names = [tool]
    words = [w for w in re.split(r"[-_.\s]+", server.lower()) if w]
    for prefix in dict.fromkeys(filter(None, ["".join(words), *words[:1]])):
        rest = _after_prefix(tool, prefix)
        if rest:
            names.append(rest)
            break
    action = _from_first_verb(tool, verbs)
    if action and action.casefold() not in {name.casefold() for name in names}:
        names.append(action)
    return tuple(names)


# Tools generated from an OpenAPI description are named ``API-<method>-<path>`` (Notion's:
# ``API-post-page``, ``API-post-search``): their first word after ``API`` is an HTTP method,
# which says how the call is made, not what it does (a POST that searches, or writes a page).
_HTTP_METHOD = re.compile(r"API-(?:post|put|patch)-", re.IGNORECASE)


def _from_first_verb(tool: str, verbs: frozenset[str]) -> str:
    """``tool`` in snake_case from its first word in ``verbs``, when other words come before
    it; else ``""`` (and for an HTTP method after ``API-``)."""
    if _HTTP_METHOD.match(tool):
        return ""
    words = spellings(tool)[-1].lower().split("_")
    at = next((at for at, word in enumerate(words) if word in verbs), 0)
    return "_".join(words[at:]) if at else ""


def _after_prefix(tool: str, prefix: str) -> str:
    """What follows ``prefix`` (letters and digits, lower case; separators in ``tool`` between
    them skipped) at the start of ``tool``, when it ends there at a word's end; else ``""``."""
    at = 0
    for char in prefix:
        while at < len(tool) and tool[at] in _NAME_BREAK:
            at += 1
        if at == len(tool) or tool[at].lower() != char:
            return ""
        at += 1
    if at == len(tool) or not (tool[at] in _NAME_BREAK or tool[at].isupper()):
        return ""  # the name goes on: ``mailbox_list`` on ``mail``
    return tool[at:].lstrip("".join(_NAME_BREAK))


@dataclass(frozen=True)
class PathGlob:
    """A gitignore-like glob over a file path, case-insensitive.

    A glob without ``/`` matches the last path component anywhere (``*.pem``, ``.env``). A glob
    with ``/`` matches a whole trailing run of components (``.aws/credentials`` matches
    ``/home/a/.aws/credentials``); a leading ``/`` anchors it at the root. ``~/`` stands for any
    home directory, so it anchors nothing: the core cannot know whose home a downstream server
    runs in, and ``/home/a/.ssh/id_rsa`` or ``../../a/.ssh/id_rsa`` must not slip past
    ``~/.ssh/*``. ``*`` stays within one component, ``**`` crosses them.
    """

    pattern: str
    _compiled: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_compiled", _compile(f"(?i){self.regex}"))

    @property
    def regex(self) -> str:
        glob = self.pattern.replace("\\", "/")
        if glob.startswith("~/"):
            prefix, glob = r"(?:.*/)?", glob[2:]
        elif glob.startswith("/"):
            prefix, glob = "/", glob[1:]
        else:
            prefix = r"(?:.*/)?"
        body = _glob_to_regex(glob.rstrip("/"), segment="[^/]")
        # A directory glob also covers everything below it.
        return f"{prefix}{body}(?:/.*)?"

    def matches(self, path: str) -> bool:
        """Whether ``path`` (normalised with :func:`normalize_path`) matches."""
        return self._compiled.fullmatch(_utf8(path)) is not None


@dataclass(frozen=True)
class PathGlobSet:
    """Several path globs matched in one pass."""

    globs: tuple[PathGlob, ...]
    _compiled: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        body = "|".join(f"(?:{g.regex})" for g in self.globs)
        object.__setattr__(self, "_compiled", _compile(f"(?i){body}") if body else None)

    def matches(self, path: str) -> bool:
        return self._compiled is not None and self._compiled.fullmatch(_utf8(path)) is not None

    def __bool__(self) -> bool:
        return bool(self.globs)


def normalize_path(raw: str) -> str:
    """Lexical normalisation: ``file://``, backslashes, ``//``, ``.`` and ``..``. No file access."""
    path = raw.strip()
    if path.lower().startswith("file://"):
        path = path[7:]
    path = path.replace("\\", "/")
    absolute = path.startswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not absolute:
                parts.append(part)
            continue
        parts.append(part)
    joined = "/".join(parts)
    return "/" + joined if absolute else joined
