"""Reading configuration files from disk: patterns.toml (and, with the proxy, downstream.toml)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .core.patterns import Patterns, parse_patterns
from .core.tomlreader import ConfigError

__all__ = [
    "BUNDLED_PATTERNS",
    "DEFAULT_ASK_TIMEOUT",
    "DEFAULT_FILESYSTEM_SERVER",
    "load_patterns",
    "read_text",
]

BUNDLED_PATTERNS = "<bundled patterns.toml>"
DEFAULT_ASK_TIMEOUT = 120.0
"""Seconds an ``ask`` waits for the user's answer before the call is denied."""
DEFAULT_FILESYSTEM_SERVER = "npx --yes @modelcontextprotocol/server-filesystem@2026.8.31"
"""The command ``cyclops demo`` starts the filesystem server with."""


def read_text(path: Path) -> str:
    """A config file's text, or a ConfigError that says what is wrong with the path."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), "", None, "file not found", "check the path") from None
    except IsADirectoryError:
        raise ConfigError(str(path), "", None, "is a directory", "give a file") from None
    except UnicodeDecodeError:
        raise ConfigError(str(path), "", None, "not UTF-8 text", "save it as UTF-8") from None
    except OSError as exc:
        raise ConfigError(
            str(path), "", None, f"cannot be read ({exc.strerror})", "check permissions"
        ) from None


def load_patterns(path: Path | None = None) -> Patterns:
    """patterns.toml from ``path``, or the copy shipped inside the package."""
    if path is None:
        text = resources.files("cyclops").joinpath("patterns.toml").read_text(encoding="utf-8")
        return parse_patterns(text, BUNDLED_PATTERNS)
    return parse_patterns(read_text(path), str(path))
