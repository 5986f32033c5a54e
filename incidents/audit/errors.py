"""Errors kubegap reports to the user as one clear line (exit code 2), never as a traceback."""

from __future__ import annotations


class KubegapError(Exception):
    """Base class: a problem the user can fix (configuration, input file, access)."""


class ConfigError(KubegapError):
    """Bad or missing kubeconfig, unknown context, unusable credentials."""


class SnapshotError(KubegapError):
    """A snapshot file that cannot be read or has the wrong format."""


class UsageError(KubegapError):
    """Bad command-line arguments (unknown check id, bad format spec)."""


class ApiError(KubegapError):
    """An API request failed in a way that is not a per-kind coverage gap."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
