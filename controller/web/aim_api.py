"""The live page's setup of a copy, drawn on the picture: the aim, fixed corners, and (holes_api.py) the holes.

`GET /api/aim` gives the aim advice of `controller.vision.aim` for the latest camera picture together
with what to draw over it (each marker outlined as found or where it should be, the homography the page
projects the lattice with, glared places), and keeps that very picture for `GET /api/aim/picture.jpg`,
so the drawing and the picture match. Everything is computed when a page asks, never per frame: a page
nobody has open costs nothing.

`POST /api/corners` (PIN) is for a copy without markers: the four lattice corner points dragged into
place on the page are checked (`check_corners`: a clockwise convex quadrilateral inside the picture),
written as the `corners:` key of a named profile (`profiles/NAME.yaml` beside the config file; nothing from
a request names a path) and handed to the live reader at once.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import numpy as np
from aiohttp import web

from calibration.guided import NAME_PATTERN, PROFILES_FOLDER
from controller.errors import RefereeError, sentence
from controller.language import _, literal, said, said_all
from controller.profile import Profile, load_profile, save_profile
from controller.vision.aim import aim_advice
from controller.vision.geometry import CornersError, LatticeGeometry, check_corners, project
from controller.vision.reader import BoardReader, as_bgr
from controller.web.camera import scaled_jpeg
from controller.web.http import NO_STORE, BadRequest, controls, language_of
from controller.words import game_name

#: A profile's name as the page may give it: it becomes a file name, so nothing else.
#: Width pictures are sent at for drawing on (the corners are dragged on it: a phone zooms in).
PICTURE_WIDTH = 960
PICTURE_QUALITY = 80


def picture_jpeg(frame: np.ndarray) -> bytes:
    """`frame` scaled to at most `PICTURE_WIDTH` wide, as a JPEG (the page draws in the frame's own pixels)."""
    data = scaled_jpeg(as_bgr(np.asarray(frame)), PICTURE_WIDTH, PICTURE_QUALITY)
    if data is None:
        raise BadRequest(500, _("the picture could not be encoded"))
    return data


async def jpeg_response(frame: np.ndarray) -> web.Response:
    """`frame` as the page's JPEG (`picture_jpeg`), encoded off the event loop, never cached."""
    data = await asyncio.get_running_loop().run_in_executor(None, picture_jpeg, frame)
    return web.Response(body=data, content_type="image/jpeg", headers=NO_STORE)


def profiles_folder(web_app: Any) -> Path:
    """Where the page writes named profiles: `profiles/` beside the config file, as the guided
    calibration does (`calibration/guided.py`), or beside the journal when there is no config file."""
    config = getattr(web_app, "config_path", None)
    base = Path(config).parent if config else Path(web_app.journal_path).parent
    return base / PROFILES_FOLDER


def profile_name(body: dict[str, Any]) -> str:
    name = body.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise BadRequest(
            400,
            _(
                "'name' should be a profile name of 1 to 40 letters, digits, '-' or '_', starting with a letter "
                "or digit (e.g. my-copy); it is saved as profiles/NAME.yaml beside the config file"
            ),
        )
    return name


def save_into_named_profile(web_app: Any, name: str, keys: dict[str, Any]) -> tuple[Path, Profile]:
    """Write `keys` into the named profile, keeping its other keys; a new one starts from the game's profile now.

    Validated as the referee will read it before the file is touched.
    """
    session_profile = web_app.view.scene.setup.profile
    path = profiles_folder(web_app) / f"{name}.yaml"
    try:
        base = load_profile(path) if path.exists() else session_profile
        if base.game != session_profile.game:
            raise BadRequest(
                409,
                _(
                    "the profile {name} is a {game} profile; this referee watches {watched}",
                    name=name,
                    game=game_name(base.game),
                    watched=game_name(session_profile.game),
                ),
            )
        profile = base.with_overrides(keys, source=str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        save_profile(profile, path)
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise BadRequest(500, _("cannot write the profile {path}: {why}", path=str(path), why=why)) from None
    except RefereeError as exc:
        raise BadRequest(400, sentence(exc)) from None
    return path, profile


def corners_from(body: dict[str, Any], size: tuple[int, int] | None) -> np.ndarray:
    """The four corner points of a request, checked as `referee read --corners` checks them."""
    corners = body.get("corners")
    if not (
        isinstance(corners, list)
        and len(corners) == 4
        and all(
            isinstance(p, list)
            and len(p) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v) for v in p)
            for p in corners
        )
    ):
        raise BadRequest(
            400,
            _(
                "'corners' should be four points [x, y] in the picture's pixels: top-left, top-right, "
                "bottom-right, bottom-left"
            ),
        )
    points = np.array(corners, np.float64)
    try:
        check_corners(points, size)
    except CornersError as exc:
        raise BadRequest(400, sentence(exc)) from None
    return points


class AimSetup:
    """The aim drawn over the picture and the corners of a copy without markers."""

    def __init__(self, web_app: Any) -> None:
        self.web_app = web_app
        self._lock = threading.Lock()
        #: The picture the last advice was given for (a reference to the sensor's frame, not a copy).
        self._frame: np.ndarray | None = None

    def routes(self) -> list[web.AbstractRouteDef]:
        return [
            web.get("/api/aim", self.aim),
            web.get("/api/aim/picture.jpg", self.picture),
            web.post("/api/corners", self.save_corners),
        ]

    def _geometry(self) -> LatticeGeometry:
        reader = getattr(self.web_app.sensor, "reader", None)
        return getattr(reader, "geom", None) or LatticeGeometry.from_profile(self.web_app.view.scene.setup.profile)

    def _corners_in_use(self) -> np.ndarray | None:
        """The fixed corners the live reader reads with (saved from the page or in the profile), if any."""
        reader = getattr(self.web_app.sensor, "reader", None)
        if reader is not None and getattr(reader, "fixed", False) and getattr(reader, "h", None) is not None:
            return project(reader.h, reader.geom.corner_points())
        corners = self.web_app.view.scene.setup.profile.get("corners")
        return None if corners is None else np.array(corners, np.float64)

    def _advise(self) -> dict[str, Any] | None:
        frame = getattr(self.web_app.sensor, "latest_frame", None)
        if frame is None:
            return None
        frame = np.asarray(frame)
        geom = self._geometry()
        engine = self.web_app.view.scene.engine
        with self._lock:  # one at a time: two pages asking together wait rather than double the work
            advice = aim_advice(frame, geom, engine.place_name, corners=self._corners_in_use())
            self._frame = frame
        data: dict[str, Any] = {**advice.to_json(), "said_lines": list(advice.lines)}
        data.update(advice.drawing(geom))
        data["glare"] = [{"place": list(c), "name": engine.place_name(c)} for c in advice.glare_places]
        return data

    async def aim(self, request: web.Request) -> web.Response:
        """The aim advice for the latest camera picture and what to draw over it, computed only when asked."""
        data = await asyncio.get_running_loop().run_in_executor(None, self._advise)
        if data is None:
            raise BadRequest(404, _("no picture from the camera yet"))
        data["lines"] = said_all(data.pop("said_lines"), language_of(request))
        return web.json_response(data, headers=NO_STORE)

    async def picture(self, request: web.Request) -> web.Response:
        """The picture the last `GET /api/aim` advised on."""
        frame = self._frame
        if frame is None:
            raise BadRequest(404, _("no aim checked yet: ask /api/aim first"))
        return await jpeg_response(frame)

    @controls
    async def save_corners(self, request: web.Request, body: dict[str, Any]) -> web.Response:
        name = profile_name(body)
        frame = getattr(self.web_app.sensor, "latest_frame", None)
        size = None if frame is None else (int(np.asarray(frame).shape[1]), int(np.asarray(frame).shape[0]))
        corners = corners_from(body, size)
        listed = [[round(float(x), 1), round(float(y), 1)] for x, y in corners]
        path, _profile = await asyncio.get_running_loop().run_in_executor(
            None, save_into_named_profile, self.web_app, name, {"corners": listed}
        )
        live = self._use_corners(listed)
        where = literal(str(path))
        message = (
            _(
                "corners saved in {path}; the referee reads with them now (for after a restart, set 'profile: {path}' "
                "in the config)",
                path=where,
            )
            if live
            else _("corners saved in {path} (for after a restart, set 'profile: {path}' in the config)", path=where)
        )
        said_message = said(message, language_of(request))
        return web.json_response({"ok": True, "message": said_message, "path": str(path), "corners": listed})

    def _use_corners(self, corners: list[list[float]]) -> bool:
        """Give the live reader a reader of the game's profile with these corners (the sensor takes it at its
        next picture; the one it may be reading now finishes with the old)."""
        sensor = self.web_app.sensor
        if sensor is None or getattr(sensor, "reader", None) is None:
            return False
        profile = self.web_app.view.scene.setup.profile.with_overrides({"corners": corners}, source="the page")
        sensor.reader = BoardReader(profile)
        return True
