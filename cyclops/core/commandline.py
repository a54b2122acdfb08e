"""A shell command line cut into the simple commands it runs, for rules that judge each one.

Rules:

1. Commands are cut at ``;``, ``&&``, ``||``, ``|``, ``&`` and new lines outside quotes;
   quotes and backslash escapes are kept as written (a rule's regexes see the words as the
   agent wrote them).
2. What could run or write anything else makes the line unreadable (``None``): a command
   substitution (``$(...)``, backticks, also inside double quotes), a subshell or process
   substitution (parentheses outside quotes), a here-document, an unclosed quote, or output
   redirected into a file. Output thrown away or joined to another stream (``> /dev/null``,
   ``2>&1``) and input read from a file (``< in.txt``) are dropped from the command.
3. A line longer than ``MAX_LINE`` characters is unreadable too: no routine command is that
   long, and reading it character by character would cost a hostile argument's size.
"""

from __future__ import annotations

__all__ = ["MAX_LINE", "simple_commands"]

MAX_LINE = 16384
_SEPARATORS = frozenset(";&|\n")
_TARGET_ENDS = _SEPARATORS | {"<", ">"}
_DISCARDS = frozenset({"/dev/null", "&1", "&2", "&-"})


def simple_commands(line: str) -> list[str] | None:
    """The simple commands of ``line``, stripped, or None if it does more than run them."""
    if len(line) > MAX_LINE:
        return None
    commands: list[str] = []
    current: list[str] = []
    at, end = 0, len(line)
    while at < end:
        char = line[at]
        if char == "\\":
            current.append(line[at : at + 2])
            at += 2
        elif char in "'\"":
            close = _closing_quote(line, at)
            if close < 0:
                return None
            current.append(line[at : close + 1])
            at = close + 1
        elif char == "`" or char in "()" or line.startswith("$(", at):
            return None
        elif char in _SEPARATORS:
            commands.append("".join(current).strip())
            current = []
            at += 1
        elif char in "<>":
            after = _redirection_end(line, at, current)
            if after < 0:
                return None
            at = after
        else:
            current.append(char)
            at += 1
    commands.append("".join(current).strip())
    return [command for command in commands if command]


def _closing_quote(line: str, start: int) -> int:
    """Where the quote opened at ``start`` closes; -1 if never, or if a double-quoted string
    substitutes a command (it runs)."""
    quote = line[start]
    at = start + 1
    while at < len(line):
        char = line[at]
        if char == quote:
            return at
        if quote == '"':
            if char == "\\":
                at += 1
            elif char == "`" or line.startswith("$(", at):
                return -1
        at += 1
    return -1


def _redirection_end(line: str, at: int, current: list[str]) -> int:
    """Where the redirection at ``at`` ends (its target read), with a file descriptor number
    written just before it taken off ``current``; -1 if it is one that makes the line
    unreadable (a here-document, output into a file)."""
    operator = ">>" if line.startswith(">>", at) else line[at]
    if line.startswith("<<", at) or line.startswith("<>", at):
        return -1
    if current and current[-1].isdigit() and (len(current) < 2 or current[-2].isspace()):
        current.pop()
    at += len(operator)
    while at < len(line) and line[at] in " \t":
        at += 1
    start = at
    while at < len(line) and not line[at].isspace() and line[at] not in _TARGET_ENDS:
        at += 1
    target = line[start:at]
    if line.startswith("&", start):  # ``>&2``: the target runs to the next separator
        target = line[start : start + 2]
        at = start + 2
    if not target or (operator != "<" and target not in _DISCARDS):
        return -1
    return at
