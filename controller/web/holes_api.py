"""The live page's guided hole setup of a Stay Alive copy (`referee setup holes` in the browser).

The steps, their order and the derivation are `calibration.holes_guide`'s, shared with the command.
`POST /api/holes/start`, `/capture` and `/save` need the PIN. A capture takes the camera's latest
picture, and a second one `STILL_WAIT` seconds later: if the board moved in between, or the reader sees
a hand or cannot read every point surely, nothing is filed and the answer says why. Pictures are read
with a reader of their own (the game's reader goes on refereeing untouched), only when asked.

The answer to every request is the whole state: each step's instruction and what was seen, and once
all nine are in, the derivation's report with each contradicting point placed on the last picture
(`GET /api/holes/picture.jpg`), so the page can circle and name it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import numpy as np
from aiohttp import web

from calibration.holes import PAIRS, report
from calibration.holes_guide import STEPS, GuidedHoles, contradictions, instruction, step_name, wrong_slides
from controller.errors import RefereeError, sentence
from controller.games import registry
from controller.language import Text, _, _n, literal, said_all
from controller.vision.gating import MOVING, MotionGate
from controller.vision.geometry import project
from controller.vision.reader import BoardReader
from controller.web.aim_api import jpeg_response, profile_name, save_into_named_profile
from controller.web.http import NO_STORE, BadRequest, controls, language_of
from controller.words import game_name

#: Seconds between the two pictures a capture compares to see that the board is still.
STILL_WAIT = 0.3


class HolesSetup:
    """One guided hole setup at a time, kept between requests until saved or started again."""

    def __init__(self, web_app: Any) -> None:
        self.web_app = web_app
        self._lock = threading.Lock()
        self.guide: GuidedHoles | None = None
        self.reader: BoardReader | None = None
        self.open_counts: dict[int, int] = {}
        #: The last picture filed and the homography it was read with (to place the contradictions on it).
        self.last_frame: np.ndarray | None = None
        self.last_h: np.ndarray | None = None
        self.saved_to: str | None = None

    def routes(self) -> list[web.AbstractRouteDef]:
        return [
            web.get("/api/holes", self.state),
            web.post("/api/holes/start", self.start),
            web.post("/api/holes/capture", self.capture),
            web.get("/api/holes/picture.jpg", self.picture),
            web.post("/api/holes/save", self.save),
        ]

    # --- what the page shows ------------------------------------------------------------------------
    def _available(self) -> Text | None:
        """None when this referee's board has holes to set up, else why not."""
        game = self.web_app.view.scene.setup.game
        if "holes" not in registry.get(game).profile_keys:
            return _(
                "the holes are Stay Alive's; this referee watches a {game} board",
                game=game_name(game),
            )
        return None

    def _state(self) -> dict[str, Any]:
        """The whole state, its sentences as `Text`s (`said_all` says them in the request's language)."""
        why_not = self._available()
        guide = self.guide
        data: dict[str, Any] = {
            "available": why_not is None,
            "why_not": why_not,
            "active": guide is not None,
            "steps_total": STEPS,
            "saved_to": self.saved_to,
        }
        if guide is None:
            return data
        due = guide.next_step
        data["next_step"] = due
        data["instruction"] = instruction(due) if due is not None else None
        data["steps"] = [
            {
                "step": step,
                "instruction": instruction(step),
                "name": step_name(step),
                "taken": pair in guide.grids,
                "open_points": self.open_counts.get(step),
            }
            for step, pair in enumerate(PAIRS, start=1)
        ]
        data["picture"] = self.last_frame is not None
        if self.last_frame is not None:
            data["size"] = [int(self.last_frame.shape[1]), int(self.last_frame.shape[0])]
        if due is None:
            derivation = guide.derivation()
            found = contradictions(derivation)
            pitch = 0.0
            if self.last_h is not None and found:
                at = project(self.last_h, np.array([[c, r] for r, c in (x["point"] for x in found)], np.float64))
                ends = project(self.last_h, np.array([[0.0, 0.0], [1.0, 0.0]]))
                pitch = float(np.linalg.norm(ends[1] - ends[0]))
                for item, xy in zip(found, at):
                    item["at"] = [round(float(xy[0]), 1), round(float(xy[1]), 1)]
            data["derivation"] = {
                "ok": derivation.ok,
                "report": report(derivation),
                "contradictions": found,
                "radius": round(0.45 * pitch, 1),
            }
        return data

    async def state(self, request: web.Request) -> web.Response:
        return web.json_response(said_all(self._state(), language_of(request)), headers=NO_STORE)

    async def picture(self, request: web.Request) -> web.Response:
        frame = self.last_frame
        if frame is None:
            raise BadRequest(404, _("no picture taken yet"))
        return await jpeg_response(frame)

    # --- the steps ----------------------------------------------------------------------------------
    @controls
    async def start(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        why_not = self._available()
        if why_not is not None:
            raise BadRequest(409, why_not)
        with self._lock:
            self.guide = GuidedHoles()
            self.reader = BoardReader(self.web_app.view.scene.setup.profile)
            self.open_counts = {}
            self.last_frame = self.last_h = None
            self.saved_to = None
        message = _("step 1 of {steps}: {instruction}", steps=STEPS, instruction=instruction(1))
        return web.json_response(said_all({"ok": True, "message": message, **self._state()}, language_of(request)))

    @controls
    async def capture(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        if self.guide is None:
            raise BadRequest(409, _("start the holes setup first"))
        try:
            step = self.guide.check_step(body.get("step"))
        except RefereeError as exc:
            raise BadRequest(409, sentence(exc)) from None
        message = await asyncio.get_running_loop().run_in_executor(None, self._capture, step)
        return web.json_response(said_all({"ok": True, "message": message, **self._state()}, language_of(request)))

    def _still_picture(self) -> np.ndarray:
        """The latest picture, once a second one `STILL_WAIT` later shows the board did not move."""
        sensor = self.web_app.sensor
        first = getattr(sensor, "latest_frame", None)
        if first is None:
            raise BadRequest(404, _("no picture from the camera yet"))
        time.sleep(STILL_WAIT)
        second = getattr(sensor, "latest_frame", None)
        gate = MotionGate(settle=1)
        gate.update(np.asarray(first))
        if gate.update(np.asarray(second)).state == MOVING:
            raise BadRequest(
                409, _("the board is moving: take your hands away, wait until it is still and capture again")
            )
        return np.asarray(second)

    def _check_switches(self, step: int) -> None:
        """With the switch board connected, a step is taken only when every slide is where it asks."""
        switches = self.web_app.switches
        state = switches.latest() if switches is not None else None
        if state is None or not state.link_ok or not switches.healthy():
            return  # no switches to ask: the picture alone tells
        positions = [None if i in set(state.faults) else p for i, p in enumerate(state.positions)]
        wrong = wrong_slides(step, positions)
        if wrong is not None:
            raise BadRequest(409, wrong)

    def _capture(self, step: int) -> Text:
        with self._lock:  # one capture at a time; a second click waits and is then checked again
            guide, reader = self.guide, self.reader
            if guide is None or reader is None:
                raise BadRequest(409, _("start the holes setup first"))
            self._check_switches(step)
            frame = self._still_picture()
            self._check_switches(step)  # a slide moved while the picture was taken
            try:
                grid = guide.record(step, reader.read(frame))
            except RefereeError as exc:
                raise BadRequest(409, sentence(exc)) from None
            opened = sum(map(sum, grid))
            self.open_counts[step] = opened
            self.last_frame, self.last_h = frame, reader.h
            due = guide.next_step
            then = (
                _("next, step {step}: {instruction}", step=due, instruction=instruction(due))
                if due is not None
                else _("all nine taken")
            )
            return _n(
                "{step}: {n} open point; {then}",
                "{step}: {n} open points; {then}",
                opened,
                step=step_name(step),
                then=then,
            )

    @controls
    async def save(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        name = profile_name(body)
        if self.guide is None:
            raise BadRequest(409, _("start the holes setup first"))
        try:
            derivation = self.guide.derivation()
        except RefereeError as exc:
            raise BadRequest(409, sentence(exc)) from None
        if not derivation.ok:
            raise BadRequest(
                409, _("some points show what no hole pattern explains: take again the steps the report names")
            )
        path, _profile = await asyncio.get_running_loop().run_in_executor(
            None, save_into_named_profile, self.web_app, name, {"holes": derivation.pattern.to_mapping()}
        )
        self.saved_to = str(path)
        message = _(
            "holes saved in {path} (to referee with them, set 'profile: {path}' in the config)", path=literal(str(path))
        )
        return web.json_response(said_all({"ok": True, "message": message, **self._state()}, language_of(request)))
