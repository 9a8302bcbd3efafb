"""What a person reads in their terminal outside the game's screens: a login refused, the
limits of the door, a new key's code prompt, a farewell.

The server (`server/auth.py`, `limits.py`, `bus_limits.py`, `linking.py`, `door.py`,
`registry.py`, `bans.py`, `game_session.py`) decides; the words are here, with the rest
of the interface's. The plain-ssh commands (`ssh host games`) are a command line, as
`moon-rules` is, and word their own output (`games_text.py` is shared with a screen).
"""

from __future__ import annotations

# --- logins -------------------------------------------------------------------------------

KEY_HAS_A_NAME = (
    "This key already belongs to another player's name, and a key never moves to "
    "another name. Log in with that name, or make a new key for this one (ssh-keygen)."
)
DATABASE_PROBLEM = (
    "The server has a problem with its database and cannot log you in right now. "
    "Please tell the club's operator."
)
GUEST_MEANWHILE = (
    " You can play as a guest meanwhile: ssh -o PubkeyAuthentication=no guest@this-host"
)
GUESTS_OFF = "This server needs an SSH key (guests are off): see ssh-keygen."
LOGIN_FAILED = "Login failed."


def name_not_saved_words(name: str) -> str:
    return (f"The server could not save your new name '{name}' (its disk is full or "
            "read-only). Please tell the club's operator.")


def minutes_left_words(minutes: int) -> str:
    """`12 more minutes`, as a kicked player reads how long they must wait."""
    return "1 more minute" if minutes == 1 else f"{minutes} more minutes"


def banned_words(*, kick: bool, reason: str, minutes_left: int = 0) -> str:
    """What the banned (or kicked) player alone reads, with the operator's reason."""
    because = f": {reason}" if reason else "."
    if kick:
        return (f"An operator sent you away: you may come back in "
                f"{minutes_left_words(minutes_left)}{because}")
    return f"You are banned from this server{because}"


def name_banned_words(name: str, *, kick: bool) -> str:
    """What whoever types a banned (or kicked) player's name reads: not the reason."""
    return (f"The player '{name}' cannot log in for now." if kick
            else f"The player '{name}' is banned from this server.")


def looks_like_operator_words(name: str) -> str:
    return (f"The name '{name}' looks too much like the name of an operator of this "
            "server: pick another name.")


def address_kept_out_words(minutes_left: int | None) -> str:
    """Guests and new names from an address an operator kicked (None: banned)."""
    if minutes_left is None:
        return ("Guests and new names from your address are banned for now by an "
                "operator. Players with their own key can still log in.")
    return ("Guests and new names from your address are kept out for "
            f"{minutes_left_words(minutes_left)} by an operator. Players with their own "
            "key can still log in.")


def key_banned_words(reason: str) -> str:
    return f"This key is banned from the server: {reason}"


def name_has_a_key_words(name: str) -> str:
    return (f"The name '{name}' belongs to a player with a key. Log in with that key, or "
            "pick another name: ssh othername@this-host")


# --- the door's limits ------------------------------------------------------------------

BUS_AWAY = ("The server cannot check its login limits right now: guests and new names "
            "wait a moment (players with their own key can log in meanwhile).")
"""Why a guest or a new name waits while a club's bus does not answer (`bus_limits`)."""


def blocked_words(wait: int) -> str:
    return (f"Too many failed logins from your address: try again in {wait} seconds "
            "(players with their own key can log in meanwhile).")


def crowded_words(at_most: int) -> str:
    return ("Too many connections from your address are logging in at once (at most "
            f"{at_most}): try again in a moment.")


def name_full_words(name: str, count: int) -> str:
    return f"The name {name} already has {count} sessions open: close one of them first."


def address_full_words(at_most: int) -> str:
    return (f"Your address already has {at_most} "
            "sessions open, the most one address may have: close one first.")


def guests_of_address_words(at_most: int) -> str:
    return (f"Your address already has {at_most}"
            " guests playing, the most one address may have. Log in with an "
            "SSH key to play under a name of your own (ssh-keygen).")


def address_claims_words(wait: int) -> str:
    return ("Too many new names from your address this hour: try again in "
            f"{wait} seconds (players with their own key can log in meanwhile).")


def server_claims_words(wait: int) -> str:
    return ("The server takes no more new names this hour: try again in "
            f"{wait} seconds (players with their own key can log in meanwhile).")


def server_full_words(players: int) -> str:
    return f"The server is full ({players} players): please try again in a few minutes."


SERVER_FULL_FOR_GUESTS = (
    "The server is full for guests: the places left are kept for players with a key. Try "
    "again in a few minutes, or log in with an SSH key (ssh-keygen)."
)

# --- the door -----------------------------------------------------------------------------

NO_PTY = (
    "Moon is a full-screen game and needs an interactive terminal: "
    "connect with 'ssh -t' (and without a command)."
)
NO_SUBSYSTEMS = "This server offers no file transfer or other subsystems."
SHUTTING_DOWN = "The server is shutting down."
ONE_GAME_PER_CONNECTION = "One game per connection: open another ssh connection."
NEW_KEY_NEEDS_A_TERMINAL = ("This key is new to its name: log in with a terminal first "
                            "(ssh without a command) to add it.")
STARTING = "Starting your game, one moment…"
GOODBYE = "Goodbye from Moon."
CRASHED = (
    "Sorry, the game crashed for your session only; the error was logged for the club. "
    "Please reconnect."
)


SHUTDOWN_MESSAGE = ("The server is shutting down. Your table and your game will be here "
                    "when it is back: your seat waits for you. See you soon!")
RESTART_MESSAGE = ("The server is restarting. Your table and your game will be here when it "
                   "is back: your seat waits for you. Come back in a minute!")
"""What everyone reads when the server stops (a notice in the game, then the farewell)."""


def idle_words(minutes: float) -> str:
    return f"Closed after {minutes:g} minutes without a key press. Come back any time!"


def banned_now_words(reason: str) -> str:
    """The farewell of a session whose player an operator just banned."""
    return f"You were banned from this server: {reason}"


# --- the welcome banner (drawn by the server before the player's app starts) -----------

TAGLINE = "the domino game, in your terminal"
WELCOME_KEYS = "Press Enter to go to the lobby, l to learn to play, ? for help."
BANNER_KEYS = "⏎ go to the lobby  l learn to play  ? help  q quit"
"""The banner's bottom line (as the app's footer reads)."""


def welcome_words(name: str) -> str:
    return f"Welcome, {name}!"


# --- a new key and its code ---------------------------------------------------------------

CODE_PROMPT = "the code from your keys dialog"
"""The words every key new to a name reads, whether or not the name waits for a code."""


def new_key_words(name: str) -> str:
    return (f"This key is new to {name}.\nIf {name} is you, type {CODE_PROMPT}\n(k, then "
            "a, where you are logged in). If not, press Ctrl+C\nand pick another name: "
            "ssh othername@this-host")


CODE = "Code: "
NO_CODE_IN_TIME = "No code in time: the key was not added."
KEY_NOT_ADDED = "The key was not added."


def wrong_code_words(tries_left: int) -> str:
    return ("That is not the code (or it was used, or it expired)"
            + (f": {tries_left} {'try' if tries_left == 1 else 'tries'} left." if tries_left
               else ". The key was not added: make a new code in your keys dialog."))


KEY_NOT_SAVED = ("The server could not save your key (its disk is full or its database has "
                 "a problem): please tell the club's operator.")


def key_added_words(name: str) -> str:
    return f"Key added: it can now log in as {name}."
