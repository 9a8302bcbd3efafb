"""What the interface may ask of whoever hosts it (the SSH server, or nothing locally).

The interface layer defines these; the server layer implements them. Keeping the contract
here keeps the layers pointing one way: the interface never imports `server`.
"""

from __future__ import annotations

from typing import Protocol


class KeyManager(Protocol):
    """The player's SSH keys, so they can add another key from inside the app."""

    async def list_keys(self) -> list[str]:
        """Fingerprints of the keys that may log in as this player."""
        ...

    async def add_key(self, openssh_public_key: str) -> str:
        """Add a key (one `ssh-ed25519 AAAA... comment` line); return a message to show.

        Raises `ValueError` with a plain-words message for a line that is not a public key.
        """
        ...


class ServerHealth(Protocol):
    """What is wrong with the server now, for its operators (e.g. game records that the
    disk refused). The operator screen shows it."""

    def alarms(self) -> tuple[str, ...]:
        """One line of plain words per problem; empty when all is well."""
        ...
