"""Data written to local files, and the egress calls that send those files.

An agent can leak without an egress call that carries anything: it writes a key into a file of
a repository's checkout, then pushes the checkout (``git_push`` names only the directory), or
writes private notes into a file, then mails the file as an attachment.

Rules:

1. A forwarded call of a ``write_tools`` tool that names absolute local paths leaves its other
   texts in each of those files (joined, at most ``max_chars``); a later write to the same file
   replaces what it left. At most ``MAX_FILES`` files and ``max_chars`` characters in all are
   kept, the least recently written forgotten first.
2. An egress call that names such a file whole (an attachment, an upload, a word of a command
   line: ``curl -F f=@/tmp/k.txt ...``) sends it, and one of a ``push_tools`` tool publishes
   every file left at or under a local directory its arguments name. Each such file's texts
   are read as one more argument of the call, named after the argument that named the file or
   directory and the call that wrote it (``repo_path[written by call 3]``; no path or value of
   the file in the name). A write tool's call sends no file it names: it writes it.
3. A piece of a private text read from a path at or under a pushed directory (the
   checkout's own code, edited and pushed), or from the repository named as that directory
   (``get_file_contents`` of ``site``, for ``~/code/site``), goes back where it was read: it
   is dropped from what the published file carries, and so is a secret that text holds. A key
   or a secret file has no path here (see ``Place.paths``), so it never counts as returned.
4. Nothing here is ever redacted: the file is on disk already, so a redaction of the call
   could not take it out (see :func:`.redact.redaction`).
5. A forwarded call of a ``stage_tools`` tool that names a private file (``git_add`` of
   ``.env``: the call is labelled sensitive by its arguments) marks the absolute local paths
   it names (the checkout); a push of a directory at or above one of them sends private data
   by reference (see :meth:`Staging.pushes_private`). At most ``MAX_FILES`` are kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .arguments import ArgLeaf, local_path
from .canon import clean, matchable
from .controls import CallView
from .matches import ArgumentMatch, CallShape
from .provenance import Provenance
from .taint import Labeller
from .types import ArgPath, Capability, Label, Place

__all__ = ["MAX_FILES", "NOTHING_SENT", "Published", "Staging", "drop_returned", "within"]

MAX_FILES = 64


@dataclass(frozen=True)
class _Written:
    call: int
    text: str


@dataclass(frozen=True)
class Published:
    """What an egress call sends of written files: the argument it adds per file, and (for a
    push) the directories it publishes."""

    leaves: tuple[ArgLeaf, ...] = ()
    roots: frozenset[str] = frozenset()

    @property
    def paths(self) -> frozenset[ArgPath]:
        return frozenset(leaf.path for leaf in self.leaves)


NOTHING_SENT = Published()


class Staging:
    def __init__(self, max_chars: int, labeller: Labeller, prov: Provenance) -> None:
        self._max_chars = max_chars
        self._labeller = labeller
        self._prov = prov
        self._files: dict[str, _Written] = {}
        self._private: dict[str, None] = {}  # rule 5, oldest first
        self._chars = 0
        self.evicted_files = 0

    def match(
        self, index: int, capability: Capability, args: Sequence[ArgLeaf], shape: CallShape
    ) -> list[ArgumentMatch]:
        """The arguments of call ``index`` matched (``Provenance.match_arguments``), with the
        written files it sends read as more arguments, less what goes back where it was read
        (rules 2 and 3)."""
        published = self.sent_by(capability, args, egress=shape.egress)
        matches = self._prov.match_arguments(index, [*args, *published.leaves], shape)
        drop_returned(matches, published, self._prov)
        return matches

    def forwarded(self, call: int, view: CallView) -> None:
        """Call ``call`` was forwarded: a write tool's leaves its texts in the files it names;
        a stage tool's that names a private file (labelled sensitive) stages it (rule 5)."""
        capability, args = view.call.capability, view.args
        if self._labeller.writes(capability):
            self.wrote(call, args)
        if Label.SENSITIVE in view.labels and self._labeller.stages(capability):
            for path in filter(None, (local_path(leaf.value) for leaf in args)):
                self._private.pop(path, None)
                self._private[path] = None
            while len(self._private) > MAX_FILES:
                del self._private[next(iter(self._private))]

    def pushes_private(self, capability: Capability, args: Sequence[ArgLeaf]) -> bool:
        """Whether a call of a push tool publishes a directory a private file was staged in."""
        if not self._private or not self._labeller.pushes(capability):
            return False
        roots = [root for leaf in args if (root := local_path(leaf.value)) is not None]
        return any(within(path, root) for path in self._private for root in roots)

    def sent_by(
        self, capability: Capability, args: Sequence[ArgLeaf], *, egress: bool
    ) -> Published:
        """What a call sends of written files: nothing unless it is egress; a write tool's call
        writes the files it names, it does not send them."""
        if not egress or not self._files or self._labeller.writes(capability):
            return NOTHING_SENT
        return self.published(args, push=self._labeller.pushes(capability))

    def wrote(self, call: int, args: Sequence[ArgLeaf]) -> None:
        """Call ``call`` (a write tool's, forwarded) left its texts in the files it names."""
        paths = [(leaf, local_path(leaf.value)) for leaf in args]
        files = {path for _, path in paths if path is not None}
        texts = [leaf.value for leaf, path in paths if path is None and leaf.value.strip()]
        if not files or not texts:
            return
        written = _Written(call, "\n".join(texts)[: self._max_chars])
        for file in sorted(files):
            self._forget(file)
            self._files[file] = written
            self._chars += len(written.text)
        while len(self._files) > MAX_FILES or self._chars > self._max_chars:
            self._forget(next(iter(self._files)))
            self.evicted_files += 1

    def _forget(self, file: str) -> None:
        written = self._files.pop(file, None)
        if written is not None:
            self._chars -= len(written.text)

    def published(self, args: Sequence[ArgLeaf], *, push: bool) -> Published:
        """What an egress call with ``args`` sends of the files writes left: those it names,
        and for a ``push``, those under the directories it names."""
        leaves: list[ArgLeaf] = []
        roots: set[str] = set()
        for leaf in args:
            if "/" not in leaf.value:
                continue
            named = {self._files[w] for w in _path_words(leaf.value) if w in self._files}
            root = local_path(leaf.value) if push else None
            if root is not None:
                roots.add(root)
                named.update(w for file, w in self._files.items() if within(file, root))
            # One write may have left the same texts in several files: they go out once.
            texts = {w.call: w.text for w in named}
            for call in sorted(texts):
                path = f"{leaf.path}[written by call {call}]"
                leaves.append(ArgLeaf(path, leaf.key, texts[call]))
        return Published(tuple(leaves), frozenset(roots))


# A local path whole, as a word of a longer text (``curl -F f=@/tmp/work/k.txt https://...``):
# after no character of a path, up to a space, a quote, a comma or a shell operator.
_PATH_WORD = re.compile(r"(?<![\w.~/-])(?:~|[A-Za-z]:)?/[^\s'\"`<>|;&(),]+")


def _path_words(value: str) -> list[str]:
    return [word.rstrip("/") for word in _PATH_WORD.findall(value)]


def within(path: str, root: str) -> bool:
    """Whether local ``path`` is ``root`` or lies under it."""
    return path == root or path.startswith(root if root.endswith("/") else root + "/")


def drop_returned(matches: Iterable[ArgumentMatch], published: Published, prov: Provenance) -> None:
    """Rule 3: take out of the published files' matches the pieces (and the secrets) of
    private texts read at or under the published directories."""
    if not published.roots:
        return
    staged = published.paths
    for match in matches:
        if match.path not in staged:
            continue
        returned = [h for h in match.sensitive_hits if _read_under(prov.place(h.call), published)]
        if not returned:
            continue
        match.sensitive_hits = [h for h in match.sensitive_hits if h not in returned]
        segments = map(prov.index.segment, {h.segment for h in returned})
        texts = [segment.text for segment in segments if segment is not None]
        match.secrets = [
            found
            for found in match.secrets
            if not (found.secret and any(matchable(clean(found.secret)) in t for t in texts))
        ]


def _read_under(place: Place, published: Published) -> bool:
    """Whether a call at ``place`` read from a pushed directory: a local path under it, or
    the repository whose checkout it is (named as the directory: ``~/code/site`` is ``site``'s,
    as :meth:`.provenance.Provenance.private_hits` has it)."""
    if any(within(path, root) for path in place.paths for root in published.roots):
        return True
    return any(root.rsplit("/", 1)[-1].casefold() in place.checkouts for root in published.roots)
