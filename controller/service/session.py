"""One game of the service: its `Referee`, its journal entries, and recovery from the journal.

Every judgement goes through `Referee` (controller/referee.py); this module only journals what
the referee said and, after a restart, replays the journal through a fresh referee, checking that
each reproduced verdict equals the stored one, so the game resumes at exactly the same state.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from controller.ai.table import COACH_KEY, computer_levels, table_seed
from controller.errors import RefereeError, os_words, sentence
from controller.games.base import GameSetup, Result
from controller.games.registry import engine_for
from controller.language import _, literal
from controller.record import (
    ACCEPT_BOARD,
    COMPUTER_RACK,
    WITH_MOVE,
    Action,
    dump_record,
    parse_record,
    setup_from_mapping,
)
from controller.referee import Referee, Verdict, judge_record, same_verdict
from controller.service.journal import Entry, Journal, JournalDamaged, quarantine
from controller.snapshot import Snapshot, format_snapshot, parse_snapshot

#: The first line of a journalled board whose unsure places the rules completed (issue 28),
#: followed by those places as `row,col`; a comment, so the board reads as ever.
RESOLVED_MARK = "# resolved by the rules, unsure places:"
Cell = tuple[int, int]


def resolved_places(payload: str) -> tuple[Cell, ...]:
    """The places a journalled board's comment says the rules completed (none for most boards)."""
    first = payload.split("\n", 1)[0]
    if not first.startswith(RESOLVED_MARK):
        return ()
    places = []
    for token in first.removeprefix(RESOLVED_MARK).split():
        r, _, c = token.partition(",")
        if r.isdigit() and c.isdigit():
            places.append((int(r), int(c)))
    return tuple(places)


#: Marks the game keys of a game set up at the table (not by config.yaml), in the journal.
CHOSEN_AT_TABLE = "chosen_at_table"


class JournalMismatch(RefereeError):
    """Replaying the journal did not give back a stored verdict (the rules code changed?)."""


class SecretsNeeded(RefereeError):
    """A game in play whose record judges differently without the secret colours it must not show."""


@dataclass
class Revealed:
    seat: int
    colours: tuple[str, ...]


class GameSession:
    """A journalled game: every verdict is committed before anyone acts on it."""

    def __init__(self, journal: Journal, game_id: int, keys: dict[str, Any], setup: GameSetup) -> None:
        self.journal = journal
        self.game_id = game_id
        self.keys = keys
        self.setup = setup
        self.referee = Referee(engine_for(setup))
        #: The verdict index of the next snapshot or action (the setup board is index 0).
        self.next_index = 0
        #: The last snapshot judged, whatever its verdict: the same board is never judged twice.
        self.last_snapshot: Snapshot | None = None
        self.reveals: list[Revealed] = []
        self.verdicts: list[dict[str, Any]] = []
        #: The journal's sequence number of the last entry committed by this session.
        self.last_seq: int | None = None
        #: The seats the computer plays, with its level (the game key `computer`).
        self.computer: dict[int, str] = computer_levels(keys, setup.players, f"journal game {game_id}")
        #: Whether the players may ask the coach (hints, legal moves): the game key `coach`, true unless false.
        self.coach = keys.get(COACH_KEY) is not False
        #: Fixes the computer seats' own secrets (Colorpop's colour, Blockers!' rack) for this game.
        self.seed = table_seed(str(getattr(journal, "id", "") or ""), game_id)
        #: The indices of this game's verdicts that have a picture in the journal.
        self.pictured: set[int] = set()
        #: Verdicts given on a reading whose unsure places the rules completed: index -> those places.
        self.resolved: dict[int, tuple[Cell, ...]] = {}

    # --- opening ----------------------------------------------------------------------------
    @classmethod
    def start(cls, journal: Journal, keys: dict[str, Any], setup: GameSetup) -> GameSession:
        return cls(journal, journal.new_game(keys), keys, setup)

    @classmethod
    def open(cls, journal: Journal, keys: dict[str, Any], setup: GameSetup) -> tuple[GameSession, str]:
        """Resume the journal's open game when it has this setup, else start a new game.

        Returns the session and a sentence for the log saying which happened.
        """
        latest = journal.latest_game()
        if latest is not None and latest.open:
            wanted = json.loads(json.dumps(keys, sort_keys=True))
            stored = latest.setup
            # A game the players set up at the table (the live page's new game: other seats, players,
            # variant) is theirs to finish: it resumes as long as the config names the same game and board.
            chosen_here = bool(stored.get(CHOSEN_AT_TABLE)) and all(
                stored.get(k) == wanted.get(k) for k in ("game", "profile")
            )
            if stored == wanted or chosen_here:
                session = cls.replay(journal, latest.id)
                how = _(
                    "resumed game {game} from the journal after {count} verdicts",
                    game=str(latest.id),
                    count=session.next_index,
                )
                to_move = session.referee.to_move()
                if to_move is not None:
                    how = _("{said}, {player} to move", said=how, player=session.referee.engine.seat_name(to_move))
                return session, how
            journal.close_game(latest.id, "the config file now asks for a different game")
            session = cls.start(journal, keys, setup)
            return session, _(
                "started game {game}; game {old} in the journal had another setup and was closed",
                game=str(session.game_id),
                old=str(latest.id),
            )
        session = cls.start(journal, keys, setup)
        return session, _("started game {game}", game=str(session.game_id))

    @classmethod
    def replay(cls, journal: Journal, game_id: int) -> GameSession:
        """Rebuild a game from its journal entries, checking every verdict."""
        row = journal.game(game_id)
        setup = setup_from_mapping(row.setup, source=f"journal game {game_id}")
        session = cls(journal, game_id, row.setup, setup)
        session.pictured = journal.pictured(game_id)
        for entry in journal.resume(game_id):
            try:
                got = session._apply(entry)
            except (RefereeError, ValueError, KeyError, TypeError) as exc:
                raise JournalDamaged(
                    journal.path,
                    _(
                        "entry {seq} of game {number} is garbled ({why})",
                        seq=str(entry.seq),
                        number=str(game_id),
                        why=sentence(exc),
                    ),
                ) from None
            if not same_verdict(entry.verdict, got):
                raise JournalMismatch(
                    _(
                        "replaying game {number} of the journal {path} gave {got} at entry {seq} where the journal "
                        "says {journalled}; the rules code may have changed since. Export the game with `referee "
                        "export` and start a new game.",
                        number=str(game_id),
                        path=str(journal.path),
                        got=literal(str(got)),
                        seq=str(entry.seq),
                        journalled=literal(str(entry.verdict)),
                    )
                )
        return session

    def _apply(self, entry: Entry) -> dict[str, Any]:
        """Redo one journalled step without writing it again."""
        if entry.kind == "snapshot":
            snapshot = parse_snapshot(self.setup.game, entry.payload, letters=self.setup.profile.letters)
            verdict = self._observe(snapshot)
            resolved = resolved_places(entry.payload)
            if resolved and verdict.index is not None:
                self.resolved[verdict.index] = resolved
            return verdict.to_json()
        if entry.kind == "action":
            name, _, rest = entry.payload.partition("\n")
            if name in WITH_MOVE:  # a hint naming a place may name its tiles on a second line
                move, _, tiles = rest.partition("\n")
                return self._act(name, move, tiles or None).to_json()
            if name == COMPUTER_RACK:
                return self._act(name, tiles=rest).to_json()
            if rest:
                return self._accept(self._snapshot(rest)).to_json()
            return self._act(name).to_json()
        data = json.loads(entry.payload)
        return self._reveal(int(data["seat"]), tuple(data["colours"]))

    # --- play -------------------------------------------------------------------------------
    def _observe(self, snapshot: Snapshot) -> Verdict:
        verdict = self.referee.observe(snapshot, index=self.next_index)
        self.next_index += 1
        self.last_snapshot = snapshot
        self.verdicts.append(verdict.to_json())
        return verdict

    def _act(self, name: str, move: str | None = None, tiles: str | None = None) -> Verdict:
        verdict = self.referee.act(name, index=self.next_index, move=move, tiles=tiles)
        self.next_index += 1
        self.verdicts.append(verdict.to_json())
        return verdict

    def _snapshot(self, text: str) -> Snapshot:
        return parse_snapshot(self.setup.game, text, letters=self.setup.profile.letters)

    def _accept(self, snapshot: Snapshot) -> Verdict:
        verdict = self.referee.accept(snapshot, index=self.next_index)
        self.next_index += 1
        self.last_snapshot = snapshot
        self.verdicts.append(verdict.to_json())
        return verdict

    def _reveal(self, seat: int, colours: tuple[str, ...]) -> dict[str, Any]:
        self.referee.reveal(seat, colours)
        self.reveals.append(Revealed(seat, colours))
        out = {"verdict": "reveal", "seat": seat, "colours": list(colours)}
        self.verdicts.append(out)
        return out

    def observe(self, snapshot: Snapshot, picture: bytes | None = None, resolved: tuple[Cell, ...] = ()) -> Verdict:
        """Judge a settled snapshot and commit it with its verdict (and the picture behind it, a JPEG).

        `resolved`: the places the camera was unsure of, completed by the rules (`Referee.resolve`):
        the journalled board says so in a comment line, which replay and export read past."""
        verdict = self._observe(snapshot)
        payload = format_snapshot(snapshot)
        if resolved:
            payload = f"{RESOLVED_MARK} {' '.join(f'{r},{c}' for r, c in resolved)}\n{payload}"
            if verdict.index is not None:
                self.resolved[verdict.index] = tuple(resolved)
        self.last_seq = self.journal.append(self.game_id, "snapshot", payload, verdict.to_json(), picture=picture)
        if picture is not None and verdict.index is not None:
            self.pictured.add(verdict.index)
        return verdict

    def act(self, name: str, move: str | None = None, tiles: str | None = None) -> Verdict:
        """A player's action (`new-game`, `end-by-agreement`), or a computer seat's choice or a coach's
        hint with its `move` (`computer-move`, `hint`), or the `tiles` a person drew for a computer
        seat's rack (`computer-rack`); raises ActionNotAllowed if refused."""
        verdict = self._act(name, move, tiles)
        if name in WITH_MOVE:
            payload = f"{name}\n{verdict.move}" + (f"\n{verdict.tiles}" if verdict.tiles else "")
        elif name == COMPUTER_RACK:
            payload = f"{name}\n{verdict.tiles}"
        else:
            payload = name
        self.last_seq = self.journal.append(self.game_id, "action", payload, verdict.to_json())
        return verdict

    def accept(self, snapshot: Snapshot) -> Verdict:
        """A person declared `snapshot` right: play goes on from it; journalled with the board."""
        verdict = self._accept(snapshot)
        payload = f"{ACCEPT_BOARD}\n{format_snapshot(snapshot)}"
        self.last_seq = self.journal.append(self.game_id, "action", payload, verdict.to_json())
        return verdict

    def reveal(self, seat: int, colours: tuple[str, ...]) -> Result:
        """Tell the referee a seat's secret colour(s) (Colorpop) and commit it."""
        if not self.referee.started:
            raise RefereeError(_("the game has not started yet; reveal the secret colours at the end"))
        refused = self.referee.engine.check_reveal(self.referee.state, seat, colours)
        if refused is not None:
            raise RefereeError(refused)
        out = self._reveal(seat, colours)
        payload = json.dumps({"seat": seat, "colours": list(colours)})
        self.last_seq = self.journal.append(self.game_id, "reveal", payload, out)
        return self.referee.result()

    def new_game(self, keys: dict[str, Any] | None = None, setup: GameSetup | None = None) -> GameSession:
        """Close this game with a `new-game` action and open the next one, with the same setup or `keys`/`setup`."""
        self.act("new-game")
        self.journal.close_game(self.game_id, "new game")
        if not isinstance(keys, dict) or not isinstance(setup, GameSetup):
            keys, setup = self.keys, self.setup
        elif keys != self.keys:
            keys = {**keys, CHOSEN_AT_TABLE: True}  # resumed after a restart though the config says otherwise
        return GameSession.start(self.journal, keys, setup)


@dataclass
class Opened:
    """What `open_journal` found: the journal, the game to referee, and what to tell people."""

    journal: Journal
    session: GameSession
    #: A sentence for the log: which game is refereed and how (resumed, started).
    how: str
    #: Set when the journal on disk could not be used and was moved aside: a sentence naming
    #: both files, shown as a fault for a while.
    moved_aside: str | None = None


def open_journal(path: str | Path, keys: dict[str, Any], setup: GameSetup, wall_clock=time.time) -> Opened:
    """Open the service's journal and the game to referee, never refusing to referee.

    A journal that is damaged, is not a referee journal, or whose open game cannot be replayed
    (a garbled row, rules that changed) is moved aside, kept under a dated name, and refereeing
    starts on a fresh journal: under systemd a refusal would only restart the service in a loop.
    A journal that cannot be opened at all (no permission on its folder) is still an error.
    """
    journal: Journal | None = None
    try:
        journal = Journal(path, wall_clock)
        session, how = GameSession.open(journal, keys, setup)
        return Opened(journal, session, how)
    except RefereeError as exc:
        damaged = isinstance(exc, JournalDamaged)
        if not damaged and not isinstance(exc, JournalMismatch):
            raise
        why = exc.why if isinstance(exc, JournalDamaged) else _("it cannot be replayed: {why}", why=sentence(exc))
        if journal is not None:
            journal._close_quietly()
    try:
        aside = quarantine(path, "damaged", wall_clock)
    except OSError as err:
        raise RefereeError(
            _(
                "the journal {path} cannot be used ({why}) and cannot be moved aside ({error}); move it away by hand",
                path=str(path),
                why=why,
                error=os_words(err),
            )
        ) from None
    journal = Journal(path, wall_clock)
    session, how = GameSession.open(journal, keys, setup)
    said = _(
        "the journal {path} could not be read ({why}); it was moved aside to {aside} and a fresh journal was started",
        path=str(path),
        why=why,
        aside=str(aside),
    )
    return Opened(journal, session, how, said)


# --- export -------------------------------------------------------------------------------------
def export_record(journal: Journal, game_id: int | None = None, withhold_secrets: bool = False) -> str:
    """A game record (`notation.md` §2) of a journalled game that `referee replay` judges identically.

    Secret colours revealed during the game go into `secrets:` when that does not change a single
    verdict (it would if play went on after a secret colour was cleared); otherwise they are
    written as a comment, so the record still judges exactly as the game was judged.

    `withhold_secrets` (a game still being played, asked for from the page anyone on the network can
    open): the secret colours the referee was told are left out, and the record must still judge
    exactly as the game was judged so far, else it is refused until the game is over.
    """
    if game_id is None:
        latest = journal.latest_game()
        if latest is None:
            raise RefereeError(_("the journal {path} holds no game yet", path=str(journal.path)))
        game_id = latest.id
    row = journal.game(game_id)
    setup = setup_from_mapping(row.setup, source=f"journal game {game_id}")
    entries = journal.entries(game_id)
    judged = [e for e in entries if e.kind != "reveal"]
    if not judged or judged[0].kind != "snapshot":
        raise RefereeError(
            _("game {number} of the journal has no board yet: there is nothing to export", number=str(game_id))
        )
    letters = setup.profile.letters
    board = parse_snapshot(setup.game, judged[0].payload, letters=letters)

    def entry(e: Entry) -> Snapshot | Action:
        if e.kind != "action":
            return parse_snapshot(setup.game, e.payload, letters=letters)
        name, _, text = e.payload.partition("\n")
        if name in WITH_MOVE:
            move, _, tiles = text.partition("\n")
            return Action(name, move=move, tiles=tiles or None)
        if name == COMPUTER_RACK:
            return Action(name, tiles=text)
        return Action(name, parse_snapshot(setup.game, text, letters=letters) if text else None)

    observations = [entry(e) for e in judged[1:]]
    wanted = [e.verdict for e in judged]
    overrides = row.setup.get("profile")

    secrets = list(setup.secrets) if setup.secrets is not None else [None] * setup.players
    reveals = [json.loads(e.payload) for e in entries if e.kind == "reveal"]
    for r in reveals:
        secrets[r["seat"]] = tuple(r["colours"])
    candidates = []
    withheld = withhold_secrets and (setup.secrets is not None or bool(reveals))
    if withheld:
        candidates.append(replace(setup, secrets=None))
    else:
        if reveals:
            candidates.append(replace(setup, secrets=tuple(secrets)))
        candidates.append(setup)
    for candidate in candidates:
        text = dump_record(candidate, board, observations, overrides)
        got = _verdicts_of(text)
        if len(got) == len(wanted) and all(same_verdict(w, g) for w, g in zip(wanted, got)):
            if withheld:
                return "# the secret colours are left out while the game is being played\n" + text
            if candidate is setup and reveals:
                said = ", ".join(f"seat {r['seat']}: {' '.join(r['colours'])}" for r in reveals)
                text = f"# secret colours revealed at the end of the game: {said}\n" + text
            return text
    if withheld:
        raise SecretsNeeded(
            _(
                "game {game} is still being played and its record cannot be judged without the secret colours: "
                "download it once the game is over",
                game=game_id,
            )
        )
    raise JournalMismatch(
        _(
            "game {number} of the journal does not replay as it was judged; the rules code may have changed since",
            number=str(game_id),
        )
    )


def _verdicts_of(text: str) -> list[dict[str, Any]]:
    return [line for line in judge_record(parse_record(text)) if "result" not in line]
