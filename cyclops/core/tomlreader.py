"""Strict reading of parsed TOML tables: every key known, every value checked.

An error names the file, the key (as a dotted path), the value, what was expected, and how to
fix it. Used for patterns.toml and downstream.toml.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NoReturn, TypeVar

__all__ = ["ConfigError", "TableReader", "parse_toml", "refuse_duplicate_names"]

T = TypeVar("T")
_MISSING: Any = object()


class ConfigError(ValueError):
    """A configuration file that cannot be used, with where and why."""

    def __init__(self, source: str, key: str, value: object, problem: str, fix: str) -> None:
        shown = _show(value)
        where = f"{source}: {key}" if key else source
        super().__init__(
            f"{where} = {shown}: {problem}. Fix: {fix}"
            if key
            else f"{where}: {problem}. Fix: {fix}"
        )
        self.source = source
        self.key = key
        self.problem = problem
        self.fix = fix


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """``text`` parsed as TOML, or a ConfigError naming ``source``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, "", None, f"not valid TOML ({exc})", "fix the syntax") from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        problem = "nested too deeply to read"
        raise ConfigError(source, "", None, problem, "flatten the nesting") from None


def refuse_duplicate_names(source: str, table: str, names: Iterable[str], fix: str) -> None:
    """A ConfigError naming ``table[i].name`` for the first name seen twice."""
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in seen:
            raise ConfigError(source, f"{table}[{i}].name", name, "duplicate name", fix)
        seen.add(name)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class TableReader:
    """Reads one TOML table; :meth:`finish` refuses keys nobody asked for."""

    def __init__(self, source: str, table: Mapping[str, Any], path: str = "") -> None:
        self.source = source
        self.path = path
        self._table = table
        self._seen: set[str] = set()

    def key_path(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, value: object, problem: str, fix: str) -> NoReturn:
        raise ConfigError(self.source, self.key_path(key), value, problem, fix)

    def has(self, key: str) -> bool:
        return key in self._table

    def names(self) -> list[str]:
        return list(self._table)

    def _get(self, key: str, default: Any, kind: type | tuple[type, ...], expected: str) -> Any:
        self._seen.add(key)
        if key not in self._table:
            if default is _MISSING:
                raise ConfigError(
                    self.source, self.key_path(key), None, "missing", f"add `{key} = <{expected}>`"
                )
            return default
        value = self._table[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _types(kind)):
            self.fail(key, value, f"expected {expected}", f"write `{key}` as {expected}")
        return value

    def string(self, key: str, default: Any = _MISSING, choices: Iterable[str] = ()) -> Any:
        value = self._get(key, default, str, "a string")
        allowed = list(choices)
        if allowed and value not in allowed and value is not default:
            self.fail(key, value, f"expected one of {', '.join(allowed)}", _suggest(value, allowed))
        return value

    def integer(self, key: str, default: Any = _MISSING, minimum: int = 0) -> Any:
        value = self._get(key, default, int, "an integer")
        if isinstance(value, int) and value < minimum:
            self.fail(key, value, f"expected an integer >= {minimum}", f"use a value >= {minimum}")
        return value

    def number(self, key: str, default: Any = _MISSING, minimum: float = 0.0) -> Any:
        value = self._get(key, default, (int, float), "a number")
        if isinstance(value, int | float) and value < minimum:
            self.fail(key, value, f"expected a number >= {minimum}", f"use a value >= {minimum}")
        return float(value) if value is not None else None

    def boolean(self, key: str, default: Any = _MISSING) -> Any:
        return self._get(key, default, bool, "true or false")

    def strings(self, key: str, default: Any = _MISSING) -> Any:
        value = self._get(key, default, list, "a list of strings")
        if value is default:
            return value
        for item in value:
            if not isinstance(item, str):
                self.fail(key, value, "expected a list of strings", f"quote every item of `{key}`")
        return tuple(value)

    def table(self, key: str, default: Any = _MISSING) -> TableReader:
        value = self._get(key, {} if default is _MISSING else default, dict, "a table")
        return TableReader(self.source, value, self.key_path(key))

    def tables(self, key: str) -> list[TableReader]:
        value = self._get(key, [], list, "an array of tables")
        readers = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                self.fail(key, value, "expected an array of tables", f"write each as [[{key}]]")
            readers.append(TableReader(self.source, item, f"{self.key_path(key)}[{i}]"))
        return readers

    def each(self, key: str, convert: Callable[[str, Any], T], expected: str) -> T:
        """Convert a value already read, turning a ValueError into a ConfigError."""
        value = self._table.get(key)
        try:
            return convert(key, value)
        except ValueError as exc:
            self.fail(key, value, str(exc), f"write `{key}` as {expected}")

    def finish(self, known: Iterable[str] = ()) -> None:
        """Refuse any key that was neither read nor listed in ``known``."""
        allowed = self._seen | set(known)
        for key in self._table:
            if key not in allowed:
                self.fail(key, self._table[key], "unknown key", _suggest(key, sorted(allowed)))


def _types(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _suggest(value: object, allowed: list[str]) -> str:
    close = difflib.get_close_matches(str(value), allowed, n=1)
    if close:
        return f"did you mean `{close[0]}`?"
    return f"use one of: {', '.join(allowed)}" if allowed else "remove it"
