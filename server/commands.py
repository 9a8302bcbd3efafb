"""Commands over plain ssh, no screen needed: `ssh -p 2222 host games --json`.

A command runs under the identity its login proved, within the same limits as a game
session (it holds a session's place while it runs), and answers with text and an exit
status: 0 done, 1 refused for a reason the text gives, 2 a command or argument that does
not exist (one line on standard error, as the command-line tools do).

Commands register themselves with `command` in modules of their own (the games list,
the leaderboard...); `server/door.py` hands each exec request to `run`.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import asyncssh

from .config import ServerConfig
from .identity import Player
from .logtext import shown
from .store import Database

MAX_COMMAND_CHARS = 1000
"""An exec request longer than this is refused before it is read into words."""
MAX_WORDS = 32

USAGE = 2
"""Exit status of a command or an argument that does not exist."""


class CommandError(ValueError):
    """A command line that cannot run: the message is the one line the client reads."""


@dataclass(frozen=True)
class CommandContext:
    """What a command may use: who asked (None: `help` before a login was settled), the
    club's database and settings, the port players connect to, and whether the client has
    a terminal (a screen-based command needs one: `ssh -t`)."""

    player: Player | None
    db: Database
    config: ServerConfig
    port: int
    terminal: bool


@dataclass(frozen=True)
class Answer:
    """A command's output and exit status."""

    text: str
    status: int = 0


Handler = Callable[[CommandContext, list[str]], Awaitable[Answer]]


@dataclass(frozen=True)
class Command:
    name: str
    summary: str
    """One line for `help`: the arguments, then what it does."""
    handler: Handler


COMMANDS: dict[str, Command] = {}
"""Every command by name, in the order registered."""


def command(name: str, summary: str) -> Callable[[Handler], Handler]:
    """Register `handler` as the command `name` (`summary` is its line in `help`)."""
    def register(handler: Handler) -> Handler:
        COMMANDS[name] = Command(name, summary, handler)
        return handler
    return register


def words_of(line: str) -> list[str]:
    """The command line split as a shell would (quotes kept together), bounded."""
    if len(line) > MAX_COMMAND_CHARS:
        raise CommandError(f"the command is longer than {MAX_COMMAND_CHARS} characters")
    try:
        words = shlex.split(line)
    except ValueError as error:
        raise CommandError(f"the command could not be read: {error}") from None
    if not words:
        raise CommandError("no command given: try 'help'")
    if len(words) > MAX_WORDS:
        raise CommandError(f"more than {MAX_WORDS} words in the command")
    return words


async def answer(context: CommandContext, line: str) -> Answer:
    """Run the command `line` as `context.player`: its answer, or a usage error."""
    try:
        name, *args = words_of(line)
        found = COMMANDS.get(name)
        if found is None:
            raise CommandError(f"unknown command '{shown(name)}': try 'help'")
        return await found.handler(context, args)
    except CommandError as error:
        return Answer(f"{error}\n", USAGE)


async def run(process: asyncssh.SSHServerProcess[bytes], context: CommandContext) -> None:
    """Answer the exec request of `process` and end its channel with the exit status."""
    reply = await answer(context, process.command or "")
    text = reply.text.replace("\r\n", "\n").replace("\n", "\r\n" if context.terminal else "\n")
    out = process.stderr if reply.status == USAGE else process.stdout
    out.write(text.encode("utf-8", "replace"))
    process.exit(reply.status)


HELP = """\
This is a Moon domino club. Connect with a terminal to play:

    ssh -p {port} yourname@{host}

Your SSH user name is your player name. The first SSH key that logs in with a free name
keeps it; come back with the same key. Without a key you play as a guest.
"""


@command("help", "this text")
async def _help(context: CommandContext, args: list[str]) -> Answer:
    if args:
        raise CommandError("help takes no arguments")
    lines = [HELP.format(port=context.port, host="this-host"),
             "Commands (ssh -p PORT host COMMAND):", ""]
    width = max(len(name) for name in COMMANDS)
    lines += [f"    {c.name:<{width}}  {c.summary}" for c in COMMANDS.values()]
    return Answer("\n".join(lines) + "\n")

