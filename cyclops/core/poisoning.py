"""Tool poisoning: does what a server wrote for the agent turn the agent against the user?

A description (or a server's instructions) poisons when it

1. instructs the agent (an untrusted marker) to do what poisoned tools ask (a poisoning
   marker elsewhere in it: read a secret, keep it from the user, divert another tool);
2. asks for what a private file holds (a file request), or holds a ``[poisoning]`` marker (a
   script from the web piped into a shell);
3. asks for private data (a key's path, a token, the conversation) as one of its tool's own
   arguments, one whose name does not say it takes a secret (``"seed"``, not ``api_key``); or
4. names a *foreign* tool — a name shaped like a tool's (``send_email``, ``payInvoice``, "the
   transfer tool") that is none of its own server's tools — beside harm: a literal destination
   that is no example (an address, a URL, an account, a channel, a repository), private data,
   the user overridden, an action pressed on everything, concealment.

The last two need no marker words: poisoned descriptions read like policies, caching notes or
known bugs ("every message created with send_email carries archive@... in the bcc field").
Honest descriptions name their own server's tools ("call list_tables first") and give examples
("e.g. alice@example.com"); naming another server's tool beside a destination is what shadowing
does. Everything it looks for is data (``[poisoning]`` in patterns.toml); the names are found
here.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence

from .regex import SafeRegex
from .rules import Patterns, PoisoningRules

__all__ = ["foreign_tools", "instructs", "names_own_tool", "paragraph_names"]

# A name shaped like a tool's: snake_case, kebab-case or camelCase, two words at least, not part
# of a path, an address or a file name.
_NAME = re.compile(
    r"(?<![\w/@-])"
    r"((?=[a-z0-9]*[a-z])[a-z0-9]+(?:[_-][a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+|[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+)"
    r"(?![\w/@-]|\.\w)"
)
_WORDS = re.compile(r"[_-]|(?<=[a-z0-9])(?=[A-Z])")
# "the transfer tool", "the Gmail send tool", "the git push tool"
_THE_TOOL = re.compile(r"\bthe ((?:[A-Za-z][\w-]* ){1,3}?)tool\b")
_PARAGRAPH_NAME = re.compile(r"^([\w.-]+): ", re.MULTILINE)
_BEFORE, _AFTER, _LEAD = 30, 40, 20  # characters read around a name or a destination
_QUOTES = "`'\""


def instructs(patterns: Patterns, forms: Sequence[str], own: Collection[str]) -> bool:
    """Whether the forms of a description (see :func:`~cyclops.core.canon.as_read`) poison,
    ``own`` being its server's tool names."""

    def found(regexes: Sequence[SafeRegex]) -> bool:
        return any(regex.search(form) for form in forms for regex in regexes)

    rules = patterns.poisoning
    if any(_marked_and_poisoned(patterns, form) for form in forms):
        return True
    if found(patterns.file_requests) or found(rules.markers):
        return True
    verbs = patterns.tool_verbs | rules.name_verbs
    return any(
        _asks_private_argument(rules, form) or _foreign_harm(rules, verbs, form, own)
        for form in forms
    )


def _marked_and_poisoned(patterns: Patterns, text: str) -> bool:
    """An untrusted marker, and a poisoning marker that is not the very words it matched:
    "Never tell the user a schedule type is unsupported" is one phrase, not two (PagerDuty's)."""
    marked = [span for regex in patterns.untrusted_markers for span in regex.spans(text)]
    if not marked:
        return False
    poisoned = [span for regex in patterns.poisoning_markers for span in regex.spans(text)]
    return any(not (u0 <= p0 and p1 <= u1) for u0, u1 in marked for p0, p1 in poisoned)


def paragraph_names(listing: str) -> set[str]:
    """The tool names a listing's paragraphs start with (``name: description``)."""
    return set(_PARAGRAPH_NAME.findall(listing))


def names_own_tool(texts: Sequence[str], own: Collection[str]) -> bool:
    """Whether ``texts`` name one of ``own`` as a tool is named (a name shaped like a tool's,
    whole: ``search_docs``, not ``fetch`` or a path that holds the name)."""
    named = [name for name in own if any(name in text for text in texts)]  # most name none
    if not named:
        return False
    mine = {_bare(name) for name in named}
    return any(_bare(m.group(1)) in mine for text in texts for m in _NAME.finditer(text))


def foreign_tools(
    rules: PoisoningRules, verbs: Collection[str], text: str, own: Collection[str]
) -> list[str]:
    """The names in ``text`` shaped like tools' that are none of ``own`` (compared without
    separators or case, and without a leading service word: ``jira_update_issue`` is also
    ``update_issue``)."""
    mine = {_bare(name) for name in _own_names(own)}
    found = []
    for match in _NAME.finditer(text):
        name = match.group(1)
        if _bare(name) in mine or _bare(name).rstrip("s") in mine:
            continue
        if _names_tool(rules, verbs, text, match):
            found.append(name)
    for match in _THE_TOOL.finditer(text):
        phrase = match.group(1).split()
        if any(_is_verb(w.lower(), verbs) for w in phrase) and _bare("".join(phrase)) not in mine:
            found.append(" ".join(phrase))
    return found


def _is_verb(word: str, verbs: Collection[str]) -> bool:
    """``word`` is a verb, or its -ing form (``messaging``, ``sharing``)."""
    stem = word.removesuffix("ing")
    return word in verbs or (stem != word and (stem in verbs or stem + "e" in verbs))


def _names_tool(
    rules: PoisoningRules, verbs: Collection[str], text: str, match: re.Match[str]
) -> bool:
    """Whether a name in ``text`` names a tool: its first word a verb (a service's name then a
    verb, with something calling it), not a parameter (``start_time``, ``dry_run=true``)."""
    name = match.group(1)
    words = _words(name)
    before = text[max(0, match.start() - _BEFORE) : match.start()]
    after = text[match.end() : match.end() + _AFTER]
    if words[-1] in rules.parameter_words or after.lstrip().startswith(("=", ":", "'s")):
        return False  # a parameter set, or a brand's possessive (SendGrid's API)
    called = _search(rules.calls_before, before) or _search(rules.calls_after, after)
    named = called or _search(rules.names_before, before)
    verb_first = words[0] in verbs
    service_verb = words[1] in verbs and words[0] not in rules.not_services
    if "_" in name:  # a service's name may take two words (aws_iam_create_user)
        return verb_first or (named and (service_verb or (len(words) > 3 and words[2] in verbs)))
    if "-" in name:  # English has kebab-case words ("read-only", "follow-up")
        quoted = match.start() > 0 and text[match.start() - 1] in _QUOTES
        return named and (verb_first or service_verb) and (quoted or len(words) >= 3)
    # camelCase and PascalCase: parameters (searchType) and brands (SendGrid) are written so too
    if name[0].isupper():
        return (verb_first or service_verb) and bool(called)
    return (verb_first or service_verb) and (called or (named and len(words) >= 3))


def _foreign_harm(
    rules: PoisoningRules, verbs: Collection[str], text: str, own: Collection[str]
) -> bool:
    foreign = foreign_tools(rules, verbs, text, own)
    if not foreign:
        return False
    if any(r.search(text) for r in (*rules.harms, *rules.private_data)):
        return True
    secret_tool = any(_search(rules.secret_tools, name) for name in foreign)
    if secret_tool and any(r.search(text) for r in rules.argument_requests):
        return True  # what it returns asked for as an argument
    destructive = any(_verb(name, verbs) in rules.destructive_verbs for name in foreign)
    if destructive and any(r.search(text) for r in rules.pressing):
        return True
    return any(_destinations(rules, text))


def _verb(name: str, verbs: Collection[str]) -> str:
    """A tool name's verb: its first word that is one, after up to two of a service's name."""
    words = _words(name)
    return next((w for w in words[:3] if w in verbs), words[0])


def _destinations(rules: PoisoningRules, text: str) -> Iterator[str]:
    """The literal destinations in ``text`` that are no examples."""
    for regex in rules.destinations:
        for start, end in regex.spans(text):
            value = text[start:end]
            if _search(rules.examples, value):
                continue
            if _search(rules.example_lead, text[max(0, start - _LEAD) : start]):
                continue
            yield value


def _asks_private_argument(rules: PoisoningRules, text: str) -> bool:
    """Whether ``text`` asks for private data as an argument whose name says no secret."""
    for request in rules.argument_requests:
        for start, end in request.spans(text):
            if _search(rules.secret_arguments, text[start:end]):
                continue
            around = text[max(0, start - 160) : end + 120]
            if any(r.search(around) for r in rules.private_data):
                return True
    return False


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORDS.split(name) if w]


def _search(regex: SafeRegex | None, text: str) -> bool:
    return regex is not None and regex.search(text)


def _bare(name: str) -> str:
    return re.sub(r"[-_.\s]", "", name).lower()


def _own_names(own: Collection[str]) -> Iterator[str]:
    for name in own:
        yield name
        yield name.rstrip("s")
        words = re.split(r"[_-]", name)
        if len(words) > 2:
            yield "_".join(words[1:])
