"""One PIN guard for every control of the live page, whichever route module declares it."""

from __future__ import annotations

from web_helpers import with_client

from controller.web import WebApp
from controller.web.http import PIN_HEADER
from simulation.world import StubRig

PIN = "424242"


def test_every_post_route_needs_the_pin(tmp_path):
    """Each POST route of every route table is refused without the PIN (401) and with a wrong one
    (403), before it looks at its body: none forgot the guard."""
    rig = StubRig({"game": "flipop", "players": 2}, tmp_path / "j.sqlite", seed=1, troubles=False, max_moves=2)
    app = WebApp(rig.loop, pin=PIN)
    built = app.build()
    posts = sorted(
        {r.resource.canonical for r in built.router.routes() if r.method == "POST" and r.resource is not None}
    )
    assert len(posts) >= 12  # the game's, the aim's, the holes' and the calibration's controls

    async def body(client):
        paths = [path.replace("{step}", "1") for path in posts]
        for path in paths:
            without = await client.post(path, json={})
            assert without.status == 401, path
            assert "PIN" in (await without.json())["error"]
        for path in paths:  # wrong ones: refused, then the address must wait
            wrong = await client.post(path, json={}, headers={PIN_HEADER: "000001"})
            assert wrong.status in (403, 429), path

    with_client(app, body)
