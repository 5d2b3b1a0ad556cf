"""Game records (`notation.md` §2): a setup and every settled snapshot, as YAML."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from controller.errors import ConfigError, FormatError
from controller.files import parse_yaml, read_text
from controller.games import registry
from controller.games.base import GameSetup
from controller.language import _, literal
from controller.profile import default_profile, load_profile
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
ACTIONS = ("end-by-agreement", "new-game", ACCEPT_BOARD, COMPUTER_MOVE, HINT)
RECORD_KEYS = (
    "game",
    "variant",
    "players",
    "first",
    "seats",
    "secrets",
    "targets",
    "profile",
    "setup",
    "observations",
)


@dataclass(frozen=True)
class Action:
    name: str
    #: `accept-board` only: the board declared right.
    board: Snapshot | None = None
    #: `computer-move` and `hint` only: the move, in the game's notation.
    move: str | None = None


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
    for key in data:
        if key not in RECORD_KEYS:
            raise ConfigError(str(key), _("unknown key; a record has {value}", value=", ".join(RECORD_KEYS)), source)
    setup = setup_from_mapping(data, source)
    if "setup" not in data:
        raise ConfigError("setup", _("the starting board is required"), source)
    board = _snapshot(setup, data["setup"], f"{source}, setup")
    raw_obs = data.get("observations") or []
    if not isinstance(raw_obs, list):
        raise ConfigError("observations", _("expected a list of snapshots and actions"), source)
    entries: list[Entry] = []
    for i, item in enumerate(raw_obs):
        where = f"{source}, observations[{i}] (index {i + 1})"
        if isinstance(item, dict):
            action = item.get("action")
            wanted = (
                {"action", "board"}
                if action == ACCEPT_BOARD
                else {"action", "move"}
                if action in WITH_MOVE
                else {"action"}
            )
            if set(item) != wanted or action not in ACTIONS or ("move" in item and not isinstance(item["move"], str)):
                raise FormatError(
                    _(
                        (
                            "an entry that is not a snapshot must be {{action: NAME}} with NAME one of {value} "
                            "({ACCEPT_BOARD} with its board: {{action: {ACCEPT_BOARD}, board: |...}}; {COMPUTER_MOVE} "
                            'and {HINT} with their move: {{action: {COMPUTER_MOVE}, move: "..."}}); got {item}'
                        ),
                        value=", ".join(ACTIONS),
                        ACCEPT_BOARD=ACCEPT_BOARD,
                        COMPUTER_MOVE=COMPUTER_MOVE,
                        HINT=HINT,
                        item=repr(item),
                    ),
                    where,
                )
            declared = _snapshot(setup, item["board"], f"{where}, board") if "board" in item else None
            entries.append(Action(action, declared, item.get("move")))
        else:
            entries.append(_snapshot(setup, item, where))
    return GameRecord(setup=setup, board=board, observations=tuple(entries))


def _snapshot(setup: GameSetup, value: Any, where: str) -> Snapshot:
    if not isinstance(value, str):
        raise FormatError(_("expected a board snapshot as a block of text (use `|`)"), where)
    return parse_snapshot(setup.game, value, letters=setup.profile.letters, where=where)


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def setup_from_mapping(data: dict, source: str = "record") -> GameSetup:
    """The `GameSetup` of a record or of `config.yaml` (both use the same keys)."""
    game = data.get("game")
    if not registry.known(game):
        raise ConfigError(
            "game", _("expected one of {value}, got {game}", value=", ".join(registry.names()), game=repr(game)), source
        )
    spec = registry.get(game)
    variant = data.get("variant", "standard")
    if variant not in spec.variants:
        raise ConfigError(
            "variant",
            _(
                "{game} variants are {value}; got {variant}",
                game=game,
                value=", ".join(spec.variants),
                variant=repr(variant),
            ),
            source,
        )
    profile = default_profile(game)
    if data.get("profile") is not None:
        overrides = data["profile"]
        if isinstance(overrides, str):
            profile = load_profile(overrides)
        else:
            try:
                profile = profile.with_overrides(overrides, source=f"{source}, profile")
            except ConfigError as exc:
                raise ConfigError(f"profile.{exc.key}", str(exc).split(": ", 2)[-1], source) from None
    players = data.get("players", spec.default_players(variant))
    if isinstance(players, bool) or not isinstance(players, int) or players < 1:
        raise ConfigError("players", _("expected a number of players, got {players}", players=repr(players)), source)
    first = data.get("first", 0)
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < players:
        said = (
            _(
                "; {first} would be player {player}, but the players are 1 to {players}",
                first=literal(str(first)),
                player=first + 1,
                players=players,
            )
            if isinstance(first, int)
            else ""
        )
        raise ConfigError(
            "first",
            _(
                "expected a seat from 0 to {value} (seat 0 is player 1), got {first}{said}",
                value=players - 1,
                first=repr(first),
                said=said,
            ),
            source,
        )

    seats = data.get("seats")
    seats_t: tuple | None = None
    if seats is not None:
        if not isinstance(seats, list) or len(seats) != players:
            raise ConfigError(
                "seats",
                _(
                    "expected a list of {players} seats (one per player), got {seats}",
                    players=players,
                    seats=repr(seats),
                ),
                source,
            )
        seats_t = tuple(tuple(s) if isinstance(s, list) else s for s in seats)
        for i, s in enumerate(seats):
            for letter in _as_list(s):
                if not isinstance(letter, str) or letter not in profile.letters:
                    raise ConfigError(
                        f"seats[{i}]",
                        _(
                            "{letter} is not a colour of this board; expected one of {value}",
                            letter=repr(letter),
                            value=" ".join(profile.letters),
                        ),
                        source,
                    )
    secrets = data.get("secrets")
    secrets_t = None
    if secrets is not None:
        if not isinstance(secrets, list) or len(secrets) != players:
            raise ConfigError(
                "secrets", _("expected a list of {players} entries, one per seat", players=players), source
            )
        secrets_t = tuple(None if s is None else tuple(_as_list(s)) for s in secrets)
        for i, s in enumerate(secrets_t):
            for letter in s or ():
                if not isinstance(letter, str) or letter not in profile.letters:
                    raise ConfigError(
                        f"secrets[{i}]",
                        _(
                            "{letter} is not a colour of this board; expected one of {value}",
                            letter=repr(letter),
                            value=" ".join(profile.letters),
                        ),
                        source,
                    )
    targets = data.get("targets")
    targets_t = None
    if targets is not None:
        targets_t = tuple(_as_list(targets))
        for letter in targets_t:
            if not isinstance(letter, str) or letter not in profile.letters:
                raise ConfigError(
                    "targets",
                    _(
                        "{letter} is not a colour of this board; expected one of {value}",
                        letter=repr(letter),
                        value=" ".join(profile.letters),
                    ),
                    source,
                )
    return GameSetup(
        game=game,
        profile=profile,
        variant=variant,
        players=players,
        first=first,
        seats=seats_t,
        secrets=secrets_t,
        targets=targets_t,
    )


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
            return {"action": e.name, "move": e.move}
        if e.board is None:
            return {"action": e.name}
        return {"action": e.name, "board": _Literal(format_snapshot(e.board))}

    data["observations"] = [entry(e) for e in entries]
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
