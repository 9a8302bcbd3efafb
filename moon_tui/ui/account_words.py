"""Keys and members in words: why a change was refused, and what was done.

The server's accounts (`server/members.py`, `server/dashboard.py`) and its login refuse
with an `AccountRefusal` and the name it is about; this is where that becomes English.
"""

from __future__ import annotations

from ..services import AccountRefusal
from .plain import quoted

NAME_RULES = ("2 to 16 characters: lower-case letters, digits, '-' or '_', starting with "
              "a letter")


def refusal_words(why: AccountRefusal, name: str = "") -> str:
    """Why a change to keys or members was refused, in a sentence."""
    who = quoted(name)
    match why:
        case AccountRefusal.GUEST:
            return "Guests have no account: log in with an SSH key to keep a name and keys."
        case AccountRefusal.CONFIGURED_KEY:
            return ("That key is named in the server's configuration: it is removed there, "
                    "not here.")
        case AccountRefusal.NO_SUCH_KEY:
            return f"{who} has no such key."
        case AccountRefusal.ONLY_KEY:
            return ("That is your only key: add another one first (a: a new code), or you "
                    "could not log in again.")
        case AccountRefusal.NAME_INVALID:
            return f"'{who}' is not a valid player name ({NAME_RULES})."
        case AccountRefusal.NAME_RESERVED:
            return f"'{who}' is reserved: pick another name."
        case AccountRefusal.NO_SUCH_MEMBER:
            return f"There is no member called {who}."
        case AccountRefusal.NAME_TAKEN:
            return f"The name {who} is taken already."
        case AccountRefusal.OPERATOR:
            return "An operator's name is set in the server's configuration."
        case AccountRefusal.LOOKS_LIKE_OPERATOR:
            return f"The name {who} looks too much like an operator's."
        case AccountRefusal.ONLINE:
            return f"{who} is online or holds a seat: rename them once they have left."
        case AccountRefusal.IN_USE:
            return f"The name {who} is in use now."


def key_removed_words(name: str, left: int) -> str:
    """What an operator reads once a member's key is taken."""
    if left:
        return f"Removed that key of {name} ({left} left)."
    return (f"Removed the last key of {name}: nobody can log in as {name} until an "
            "operator renames the member or a key is added.")


def renamed_words(old: str, new: str) -> str:
    return f"{old} is now called {new}: their keys, addresses and bans follow."
