"""Game records (`notation.md` §2): a setup and every settled snapshot, as YAML."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar

import yaml
from pydantic import Field, ValidationInfo, model_validator

from controller.errors import ConfigError, FormatError
from controller.files import parse_yaml, read_text
from controller.games import registry
from controller.games.base import GameSetup
from controller.language import N_, _, literal
from controller.profile import default_profile, load_profile
from controller.schema import Section, checked, kind_of, sentence, validate
from controller.snapshot import Snapshot, format_snapshot, parse_snapshot

#: The actions a record may hold; `accept-board` carries the board a person declared right
#: (`{action: accept-board, board: |...}`): play goes on from it.
ACCEPT_BOARD = "accept-board"
#: `computer-move` and `hint` carry the move a computer seat chose or the coach hinted for the seat
#: to move (`{action: computer-move, move: "..."}`, the game's move notation): from a
#: `computer-move` on, the referee awaits exactly that move on the board.
COMPUTER_MOVE = "computer-move"
HINT = "hint"
WITH_MOVE = (COMPUTER_MOVE, HINT)
#: `computer-rack` carries the tiles a person drew for a computer seat and told the referee (Blockers!:
#: `{action: computer-rack, tiles: "B3 BA Ba B*"}`, one colour's whole rack as `notation.md` §1 writes
#: tiles): the computer plays from exactly those.
COMPUTER_RACK = "computer-rack"
ACTIONS = ("end-by-agreement", "new-game", ACCEPT_BOARD, COMPUTER_MOVE, HINT, COMPUTER_RACK)


@dataclass(frozen=True)
class Action:
    name: str
    #: `accept-board` only: the board declared right.
    board: Snapshot | None = None
    #: `computer-move` and `hint` only: the move, in the game's notation.
    move: str | None = None
    #: `computer-rack`: the rack's tiles (`B3 BA Ba`); `hint`, optionally: the tiles a hint named for
    #: its place when the person's rack was not told (`R7 RA Ra`, the move's tile one of them).
    tiles: str | None = None


Entry = Snapshot | Action


@dataclass(frozen=True)
class GameRecord:
    setup: GameSetup
    board: Snapshot
    observations: tuple[Entry, ...]


def load_record(path: str | Path) -> GameRecord:
    return parse_record(read_text(path, _("the game record")), source=str(path))


def parse_record(text: str, source: str = "record") -> GameRecord:
    data = parse_yaml(text, source)
    if not isinstance(data, dict):
        raise FormatError(_("a game record is a YAML mapping with game, setup and observations"), source)
    record = validate(RecordFile, data, source, context={"source": source})
    setup = record.game_setup()
    board = _snapshot(setup, record.setup, f"{source}, setup")
    entries = [
        _entry(setup, item, f"{source}, observations[{i}] (index {i + 1})")
        for i, item in enumerate(record.observations)
    ]
    return GameRecord(setup=setup, board=board, observations=tuple(entries))


def _entry(setup: GameSetup, item: Any, where: str) -> Entry:
    """One of a record's observations: a snapshot, or an action (`notation.md` §2)."""
    if not isinstance(item, dict):
        return _snapshot(setup, item, where)
    action = item.get("action")
    wanted = (
        {"action", "board"}
        if action == ACCEPT_BOARD
        else ({"action", "move", "tiles"} if action == HINT and "tiles" in item else {"action", "move"})
        if action in WITH_MOVE
        else {"action", "tiles"}
        if action == COMPUTER_RACK
        else {"action"}
    )
    texts = [item[key] for key in ("move", "tiles") if key in item]
    if set(item) != wanted or action not in ACTIONS or not all(isinstance(t, str) for t in texts):
        raise FormatError(
            _(
                (
                    "an entry that is not a snapshot must be {{action: NAME}} with NAME one of {value} "
                    "({ACCEPT_BOARD} with its board: {{action: {ACCEPT_BOARD}, board: |...}}; {COMPUTER_MOVE} "
                    'and {HINT} with their move: {{action: {COMPUTER_MOVE}, move: "..."}}; {COMPUTER_RACK} with '
                    'its tiles: {{action: {COMPUTER_RACK}, tiles: "..."}}); got {item}'
                ),
                value=", ".join(ACTIONS),
                ACCEPT_BOARD=ACCEPT_BOARD,
                COMPUTER_MOVE=COMPUTER_MOVE,
                HINT=HINT,
                COMPUTER_RACK=COMPUTER_RACK,
                item=repr(item),
            ),
            where,
        )
    declared = _snapshot(setup, item["board"], f"{where}, board") if "board" in item else None
    return Action(action, declared, item.get("move"), item.get("tiles"))


def _snapshot(setup: GameSetup, value: Any, where: str) -> Snapshot:
    if not isinstance(value, str):
        raise FormatError(_("expected a board snapshot as a block of text (use `|`)"), where)
    return parse_snapshot(setup.game, value, letters=setup.profile.letters, where=where)


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]


class _Absent:
    """A key the file leaves out (its default may depend on other keys), told apart from `null`."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


def _game(value: Any) -> str:
    if not registry.known(value):
        raise sentence(_("expected one of {value}, got {game}", value=", ".join(registry.names()), game=repr(value)))
    return value


def _variant(value: Any, info: ValidationInfo) -> Any:
    game = info.data.get("game")
    if game is not None and value not in registry.get(game).variants:
        raise sentence(
            _(
                "{game} variants are {value}; got {variant}",
                game=game,
                value=", ".join(registry.get(game).variants),
                variant=repr(value),
            )
        )
    return value


def _players(value: Any, info: ValidationInfo) -> Any:
    if value is ABSENT and "game" in info.data and "variant" in info.data:
        return registry.get(info.data["game"]).default_players(info.data["variant"])
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise sentence(_("expected a number of players, got {players}", players=repr(value)))
    return value


def _first(value: Any, info: ValidationInfo) -> Any:
    players = info.data.get("players")
    if players is None or (not isinstance(value, bool) and isinstance(value, int) and 0 <= value < players):
        return value
    said = (
        _(
            "; {first} would be player {player}, but the players are 1 to {players}",
            first=literal(str(value)),
            player=value + 1,
            players=players,
        )
        if isinstance(value, int)
        else ""
    )
    raise sentence(
        _(
            "expected a seat from 0 to {value} (seat 0 is player 1), got {first}{said}",
            value=players - 1,
            first=repr(value),
            said=said,
        )
    )


def _seats(value: Any, info: ValidationInfo) -> Any:
    players = info.data.get("players")
    if value is None or players is None:
        return value
    if not isinstance(value, list) or len(value) != players:
        raise sentence(
            _("expected a list of {players} seats (one per player), got {seats}", players=players, seats=repr(value))
        )
    return tuple(tuple(s) if isinstance(s, list) else s for s in value)


def _secrets(value: Any, info: ValidationInfo) -> Any:
    players = info.data.get("players")
    if value is None or players is None:
        return value
    if not isinstance(value, list) or len(value) != players:
        raise sentence(_("expected a list of {players} entries, one per seat", players=players))
    return tuple(None if s is None else tuple(_as_list(s)) for s in value)


def _targets(value: Any) -> Any:
    return None if value is None else tuple(_as_list(value))


def _profile(value: Any, info: ValidationInfo) -> Any:
    """The board profile: the game's default, a profile file (its own errors name that file), or the
    default with the keys given here replacing its own (their errors are this key's: ``profile.tokens.G``)."""
    game = info.data.get("game")
    if game is None:
        return value
    if isinstance(value, str):
        return load_profile(value)
    profile = default_profile(game)
    if not value:
        return profile
    if not isinstance(value, dict):
        raise sentence(_("expected a mapping of profile keys, got {value}", value=kind_of(value)))
    source = (info.context or {}).get("source", "record")
    try:
        return profile.with_overrides(value, source=f"{source}, profile")
    except ConfigError as exc:
        raise sentence(exc.message, key=exc.key) from None


class GameKeys(Section):
    """The keys that say who plays what (a record's and config.yaml's, `notation.md` §2): each
    checked against those before it (the variant against the game, the first seat against the
    players), the seats' colours against the board profile's."""

    game: Annotated[str, checked(_game)] = Field(default=None, validate_default=True)
    variant: Annotated[str, checked(_variant)] = Field(default="standard", validate_default=True)
    players: Annotated[int, checked(_players)] = Field(default=ABSENT, validate_default=True)
    first: Annotated[int, checked(_first)] = 0
    seats: Annotated[tuple[Any, ...] | None, checked(_seats)] = None
    secrets: Annotated[tuple[tuple[Any, ...] | None, ...] | None, checked(_secrets)] = None
    targets: Annotated[tuple[Any, ...] | None, checked(_targets)] = None
    profile: Annotated[Any, checked(_profile)] = Field(default=None, validate_default=True)

    @model_validator(mode="after")
    def _colours_of_this_board(self) -> GameKeys:
        letters = self.profile.letters
        for i, seat in enumerate(self.seats or ()):
            _check_colours(seat if isinstance(seat, tuple) else (seat,), letters, f"seats[{i}]")
        for i, secret in enumerate(self.secrets or ()):
            _check_colours(secret or (), letters, f"secrets[{i}]")
        _check_colours(self.targets or (), letters, "targets")
        return self

    def game_setup(self) -> GameSetup:
        return GameSetup(
            game=self.game,
            profile=self.profile,
            variant=self.variant,
            players=self.players,
            first=self.first,
            seats=self.seats,
            secrets=self.secrets,
            targets=self.targets,
        )


def _check_colours(given: tuple[Any, ...], letters: str, key: str) -> None:
    for letter in given:
        if not isinstance(letter, str) or letter not in letters:
            raise sentence(
                _(
                    "{letter} is not a colour of this board; expected one of {value}",
                    letter=repr(letter),
                    value=" ".join(letters),
                ),
                key=key,
            )


class RecordFile(GameKeys):
    """A whole game record: who plays what, the starting board and every settled snapshot or action
    (read as snapshots by `parse_record`, whose sentences name the entry and its line)."""

    unknown_key: ClassVar[str] = N_("unknown key; a record has {known}")

    setup: Any = ABSENT
    observations: Any = None

    @model_validator(mode="after")
    def _a_board_and_a_list(self) -> RecordFile:
        """After who plays what (a wrong colour is said first): the starting board, and a list of entries."""
        if self.setup is ABSENT:
            raise sentence(_("the starting board is required"), key="setup")
        if self.observations is not None and not isinstance(self.observations, list):
            raise sentence(_("expected a list of snapshots and actions"), key="observations")
        return self


def setup_from_mapping(data: dict, source: str = "record") -> GameSetup:
    """The `GameSetup` of a record or of `config.yaml` (both use the same keys; others are left to their owners)."""
    keys = {key: data[key] for key in GameKeys.known_keys() if key in data}
    return validate(GameKeys, keys, source, context={"source": source}).game_setup()


def dump_record(setup: GameSetup, board: Snapshot, entries: list[Entry], profile_overrides: dict | None = None) -> str:
    """A record's YAML text, as `referee export` writes it."""

    class _Literal(str):
        """Text YAML writes as a `|` block, so boards read as boards."""

    def _repr(dumper: yaml.SafeDumper, value: _Literal) -> yaml.ScalarNode:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")

    class _Dumper(yaml.SafeDumper):
        """A dumper of our own, so the block style does not leak into yaml.SafeDumper."""

    _Dumper.add_representer(_Literal, _repr)
    data: dict[str, Any] = {
        "game": setup.game,
        "variant": setup.variant,
        "players": setup.players,
        "first": setup.first,
    }
    if setup.seats is not None:
        data["seats"] = [list(s) if isinstance(s, tuple) else s for s in setup.seats]
    if setup.secrets is not None:
        data["secrets"] = [None if s is None else (s[0] if len(s) == 1 else list(s)) for s in setup.secrets]
    if setup.targets is not None:
        data["targets"] = list(setup.targets)
    if profile_overrides:
        data["profile"] = profile_overrides
    data["setup"] = _Literal(format_snapshot(board))

    def entry(e: Entry) -> Any:
        if not isinstance(e, Action):
            return _Literal(format_snapshot(e))
        if e.move is not None:
            return {"action": e.name, "move": e.move, **({"tiles": e.tiles} if e.tiles else {})}
        if e.tiles is not None:
            return {"action": e.name, "tiles": e.tiles}
        if e.board is None:
            return {"action": e.name}
        return {"action": e.name, "board": _Literal(format_snapshot(e.board))}

    data["observations"] = [entry(e) for e in entries]
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
