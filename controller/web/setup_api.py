"""The live page's guided calibration (issue 17): the pictures a game's calibration takes, each
captured from the live camera when it is still and no hand is over the board, then the quality
report, the places doubted drawn on the pictures, and the profile saved under a name with the
config switched to it. The session itself is `calibration/guided.py`; this module only serves it.

Routes (every POST needs the PIN, as the page's other controls; `controller.web.http.controls`):

- `GET  /api/calibration/steps?game=G`: the pictures G's calibration takes (default: this referee's game);
- `POST /api/calibration/start {game}`: a new calibration of this referee's game (its current profile);
- `POST /api/calibration/capture {step}`: waits for a still picture without a hand and keeps it;
- `GET  /api/calibration/picture/{step}`: the picture kept for a step (JPEG);
- `POST /api/calibration/finish {}`: learn and check: the report and the doubted places;
- `POST /api/calibration/save {name, overwrite}`: save as `profiles/NAME.yaml` and switch the config;
- `POST /api/calibration/stop {}`: give up calibrating and go back to the game.

While a calibration is under way the game is paused (the boards set up for the pictures are not
moves). On the simulated rig `WebApp.table_hands` (given by `referee run`) sets each step's board as a
person would, and puts the game's board back afterwards, as `referee setup calibrate` does.

Nothing runs while no one calibrates: a capture reads the camera's latest picture only while it waits.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import numpy as np
from aiohttp import web

from calibration import guided
from calibration.checks import PlacesRefused, place_name
from controller.errors import RefereeError, sentence
from controller.games import registry
from controller.language import _, _n, literal, said, said_all
from controller.profile import default_profile
from controller.web.camera import scaled_jpeg
from controller.web.http import BadRequest, controls, language_of
from controller.web.view import board_json, palette
from controller.words import game_name

ROUTES = web.AppKey("calibration", object)
#: Why the game is paused while the page calibrates (the page and `referee status` say it).
PAUSED = "the copy is being calibrated from the live page: the game goes on once it is saved or stopped"
#: Width the kept pictures are sent at (the doubted places are given in the full picture's pixels).
PICTURE_WIDTH = 640
PICTURE_QUALITY = 80


class CalibrationRoutes:
    """One guided calibration at a time (there is one camera), for the referee `web_app` serves."""

    def __init__(self, web_app: Any) -> None:
        self.web = web_app
        self.session: guided.GuidedCalibration | None = None
        self.outcome: guided.Outcome | None = None
        self.jpegs: dict[int, tuple[bytes, int, int]] = {}
        #: The last picture refused when taken (JPEG, width, height), its doubted places circled by the page.
        self.refused_jpeg: tuple[bytes, int, int] | None = None
        #: Longest wait for a still picture without a hand (None: `guided.WAIT_SECONDS`; the tests shorten it).
        self.wait_seconds: float | None = None
        self._lock = threading.Lock()
        self._capturing = False

    def routes(self) -> list[web.AbstractRouteDef]:
        return [
            web.get("/api/calibration/steps", self.steps),
            web.post("/api/calibration/start", self.start),
            web.post("/api/calibration/capture", self.capture),
            web.get("/api/calibration/picture/{step}", self.picture),
            web.post("/api/calibration/finish", self.finish),
            web.post("/api/calibration/save", self.save),
            web.post("/api/calibration/stop", self.stop),
            web.get("/api/calibration/refused.jpg", self.refused_picture),
        ]

    # --- helpers ---------------------------------------------------------------------------------
    def _bad(self, status: int, said: Any) -> Exception:
        return BadRequest(status, said)

    def _profile_for(self, game: Any) -> Any:
        """The profile a calibration of `game` starts from: this referee's current one."""
        setup = self.web.view.scene.setup
        if game is None:
            game = setup.game
        if not isinstance(game, str) or not registry.known(game):
            raise self._bad(400, _unknown_game(game))
        if game != setup.game:
            raise self._bad(
                400,
                _(
                    "this referee watches a {watched} board; to calibrate {game}, set 'game: {name}' in its config "
                    "file and restart it",
                    watched=game_name(setup.game),
                    game=game_name(game),
                    name=literal(game),
                ),
            )
        return setup.profile

    def _steps_json(self, profile: Any) -> dict[str, Any]:
        try:
            steps = guided.steps_for(profile)
        except RefereeError as exc:
            raise self._bad(400, sentence(exc)) from None
        names = [[place_name(profile.game, r, c) for c in range(profile.cols)] for r in range(profile.rows)]
        return {
            "game": profile.game,
            "title": game_name(profile.game),
            "palette": palette(profile.game, profile),
            "place_names": names,
            "steps": [
                {
                    "number": s.number,
                    "key": s.key,
                    "title": s.title,
                    "sentence": s.sentence,
                    "file": s.file,
                    "drawing": board_json(s.drawing),
                    "drawing_text": s.drawing_text(),
                }
                for s in steps
            ],
        }

    def _session(self) -> guided.GuidedCalibration:
        if self.session is None:
            raise self._bad(409, _("no calibration under way: start one first"))
        return self.session

    def _latest(self) -> np.ndarray | None:
        return getattr(self.web.sensor, "latest_frame", None)

    # --- routes ----------------------------------------------------------------------------------
    async def steps(self, request: web.Request) -> web.Response:
        game = request.query.get("game")
        if game is not None and not registry.known(game):
            raise self._bad(400, _unknown_game(game))
        profile = self.web.view.scene.setup.profile
        if game is not None and game != profile.game:
            profile = default_profile(game)
        data = said_all(self._steps_json(profile), language_of(request))
        return web.json_response(data, headers={"Cache-Control": "no-store"})

    @controls
    async def start(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        profile = self._profile_for(body.get("game"))
        data = self._steps_json(profile)
        with self._lock:
            if self._capturing:
                raise self._bad(409, _("a picture is being captured: wait for it, then start again"))
            self.session = guided.GuidedCalibration(profile)
            self.outcome = None
            self.jpegs = {}
        await self._pause_game()
        data["message"] = _n(
            "calibration of {game} started: {n} picture to take; the game is paused until the calibration is saved "
            "or stopped",
            "calibration of {game} started: {n} pictures to take; the game is paused until the calibration is saved "
            "or stopped",
            len(data["steps"]),
            game=data["title"],
        )
        return web.json_response(said_all(data, language_of(request)))

    # --- the game paused meanwhile ---------------------------------------------------------------
    async def _pause_game(self) -> None:
        hands = getattr(self.web, "table_hands", None)
        await self._loop_command("pause", reason=PAUSED)
        if hands is not None:
            await asyncio.get_running_loop().run_in_executor(None, hands.pause)

    async def _resume_game(self) -> None:
        hands = getattr(self.web, "table_hands", None)
        if hands is not None:
            await asyncio.get_running_loop().run_in_executor(None, hands.resume)
        await self._loop_command("resume")

    async def _loop_command(self, name: str, **args: Any) -> None:
        """Queued for the loop's next tick (not waited for: the answer does not depend on it)."""
        self.web.loop.submit(name, **args)

    @controls
    async def stop(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        with self._lock:
            if self._capturing:
                raise self._bad(409, _("a picture is being captured: wait for it, then stop"))
            self.session = None
            self.outcome = None
        await self._resume_game()
        message = said(_("calibration stopped; the game goes on"), language_of(request))
        return web.json_response({"ok": True, "message": message})

    @controls
    async def capture(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        session = self._session()
        number = body.get("step")
        try:
            step = session.step(number)
        except RefereeError as exc:
            raise self._bad(400, _("'step' should be a step number: {why}", why=sentence(exc))) from None
        if self._latest() is None:
            raise self._bad(404, _("no picture from the camera yet"))
        with self._lock:
            if self._capturing:
                raise self._bad(409, _("a picture is being captured already"))
            self._capturing = True
        hands = getattr(self.web, "table_hands", None)
        executor = asyncio.get_running_loop().run_in_executor
        try:
            if hands is not None:  # the simulated rig: a simulated person sets the board this step asks for
                await executor(None, hands.calibration_step, step)
            lines = guided.switch_lines(session.profile.game, self.web.switches)
            frame = await executor(None, self._wait_for_picture, session)
            if self.session is not session:
                raise self._bad(409, _("the calibration was started again meanwhile"))
            if guided.switch_lines(session.profile.game, self.web.switches) != lines:
                raise self._bad(
                    409, _("a slide moved while the picture was taken: leave the slides still and capture again")
                )
            session.take(step.number, frame, lines)
            try:  # the picture is checked now, not at the end under another picture's name
                await executor(None, session.check, step.number)
            except RefereeError as exc:
                session.forget(step.number)
                return await executor(None, self._refused, step, frame, exc, language_of(request))
        except RefereeError as exc:
            raise self._bad(409, sentence(exc)) from None
        finally:
            self._capturing = False
        self.jpegs[step.number] = _jpeg(frame)
        self.outcome = None
        left = session.missing()
        message = (
            _(
                "picture {number} ({title}) taken; next: {next}",
                number=step.number,
                title=step.title,
                next=left[0].title,
            )
            if left
            else _(
                "picture {number} ({title}) taken; every picture is taken: check the calibration",
                number=step.number,
                title=step.title,
            )
        )
        said_message = said(message, language_of(request))
        return web.json_response(
            {"ok": True, "step": step.number, "message": said_message, "next": left[0].number if left else None}
        )

    def _refused(self, step: Any, frame: np.ndarray, exc: RefereeError, lang: str) -> web.Response:
        """409 with the sentence; for places refused, where they are on the refused picture
        (`GET /api/calibration/refused.jpg`), so the page circles them as it does after the check."""

        error = _(
            "picture {number} ({title}) not taken: {why}", number=step.number, title=step.title, why=sentence(exc)
        )
        body: dict[str, Any] = {"ok": False, "error": error}
        if isinstance(exc, PlacesRefused) and self.session is not None:
            places = [(r, c, exc.why) for r, c in exc.places]
            doubts = guided.placed_doubts(self.session.profile, frame, step.number, places)
            self.refused_jpeg = _jpeg(frame)
            _data, width, height = self.refused_jpeg
            body["picture"] = {
                "step": step.number,
                "url": "/api/calibration/refused.jpg",
                "width": width,
                "height": height,
            }
            body["doubts"] = [_doubt_json(d) for d in doubts]
        return web.json_response(said_all(body, lang), status=409)

    async def refused_picture(self, request: web.Request) -> web.Response:
        kept = self.refused_jpeg
        if kept is None:
            raise self._bad(404, _("no picture was refused"))
        return web.Response(body=kept[0], content_type="image/jpeg", headers={"Cache-Control": "no-store"})

    def _wait_for_picture(self, session: guided.GuidedCalibration) -> np.ndarray:
        return guided.wait_for_still(self._latest, session.profile, timeout=self.wait_seconds)

    async def picture(self, request: web.Request) -> web.Response:
        text = request.match_info["step"]
        if not (text.isascii() and text.isdigit() and len(text) < 6):
            raise self._bad(400, _("a step is named by its number (1, 2, ...), not {value}", value=repr(text[:20])))
        kept = self.jpegs.get(int(text))
        if kept is None:
            raise self._bad(404, _("no picture kept for that step"))
        return web.Response(body=kept[0], content_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @controls
    async def finish(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        session = self._session()
        try:
            outcome = await asyncio.get_running_loop().run_in_executor(None, session.finish)
        except RefereeError as exc:
            raise self._bad(409, sentence(exc)) from None
        self.outcome = outcome
        sizes = {n: (w, h) for n, (_data, w, h) in self.jpegs.items()}
        answer = {
            "ok": outcome.ok,
            "problem": outcome.problem,
            "report": outcome.report,
            "pictures": [
                {"step": n, "url": f"/api/calibration/picture/{n}", "width": w, "height": h}
                for n, (w, h) in sorted(sizes.items())
            ],
            "doubts": [_doubt_json(d) for d in outcome.doubts],
            "message": _("the calibration checked itself: save it under a name")
            if outcome.ok
            else _("calibration refused: {why}", why=outcome.problem),
        }
        return web.json_response(said_all(answer, language_of(request)))

    @controls
    async def save(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        outcome = self.outcome
        if outcome is None or not outcome.ok:
            raise self._bad(409, _("there is no checked calibration to save: take the pictures and check it first"))
        name, overwrite = body.get("name"), body.get("overwrite", False)
        if not isinstance(overwrite, bool):
            raise self._bad(400, _("'overwrite' should be true or false"))
        config = getattr(self.web, "config_path", None)
        if config is None:
            raise self._bad(
                409,
                _(
                    "this referee was not started from a config file, so there is none to switch: use `referee setup "
                    "calibrate` with --config"
                ),
            )
        try:
            path = await asyncio.get_running_loop().run_in_executor(
                None,
                lambda: guided.save_and_switch(
                    guided.with_camera_settings(outcome.profile, self.web.sensor), name, Path(config), overwrite
                ),
            )
        except guided.ProfileNameError as exc:
            raise self._bad(400, sentence(exc)) from None
        except RefereeError as exc:
            raise self._bad(409, sentence(exc)) from None
        with self._lock:
            self.session = None
        await self._resume_game()
        return web.json_response(
            {
                "ok": True,
                "path": str(path),
                "message": said(
                    _(
                        "saved as {path}; {config} now uses it (restart the referee to read with it)",
                        path=str(path),
                        config=Path(config).name,
                    ),
                    language_of(request),
                ),
            }
        )


def _unknown_game(game: Any) -> Any:
    return _("unknown game {game}; expected one of {games}", game=repr(game), games=", ".join(registry.names()))


def _doubt_json(d: Any) -> dict[str, Any]:
    return {"step": d.step, "row": d.row, "col": d.col, "place": d.place, "why": d.why, "x": d.x, "y": d.y}


def _jpeg(frame: np.ndarray) -> tuple[bytes, int, int]:
    """The picture scaled for a phone, as JPEG, with the full picture's width and height."""
    h, w = frame.shape[:2]
    data = scaled_jpeg(frame, PICTURE_WIDTH, PICTURE_QUALITY)
    if data is None:
        raise RefereeError(_("the captured picture could not be encoded"))
    return data, w, h
