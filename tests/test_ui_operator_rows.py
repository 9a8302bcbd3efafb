"""The dashboard's Members list: what each key's row says."""

from moon_tui.services import KeyFacts, MemberFacts
from moon_tui.ui.operator import member_rows

NOW = 1_000_000.0


def key(comment: str = "") -> KeyFacts:
    return KeyFacts("SHA256:abcdefghijklmnopqrstuvwxyz", "ssh-ed25519", comment,
                    NOW - 3600, None)


def test_a_keys_row_names_its_type_and_a_note_kept_with_it() -> None:
    rows = member_rows([MemberFacts("ann", NOW - 7200, NOW, (key(), key("laptop")))], NOW)
    types = [cells[2] for _, cells in rows]
    assert types == ["ssh-ed25519", "ssh-ed25519 · laptop"]
    assert [cells[0] for _, cells in rows] == ["ann", ""]


def test_a_member_without_keys_has_one_row_that_says_so() -> None:
    rows = member_rows([MemberFacts("bob", NOW, NOW, ())], NOW)
    assert [cells[:2] for _, cells in rows] == [("bob", "no key")]
