"""The composition root: a whole referee assembled from a checked config, in one place.

Why here, above the service, the live page, the club and the hardware: the service's core
(`controller.service.app.Service`: journal, devices, loop, lights, button, control socket) knows
nothing of its listeners; this module adds them to its stream of events: the club's publisher
when config.yaml has an `mqtt:` section (`controller.club`), the live page when `web:` is
enabled (`controller.web`), served from a thread of its own, and the voice when `voice:` is
(`controller.service.voice`, through espeak-ng: `controller.hardware.speaker`). `referee run`, `referee demo` and
the tests that want a whole referee build it here; nothing below imports this module.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from controller import words
from controller.club.publisher import TablePublisher
from controller.errors import HardwareError, RefereeError
from controller.hardware.speaker import EspeakSpeaker
from controller.language import said
from controller.service.app import Service
from controller.service.config import ServiceConfig
from controller.service.devices import Devices
from controller.service.voice import Voice
from controller.web import WebApp, WebServer
from controller.web.https import fingerprint, server_context


def assemble(
    config: ServiceConfig,
    *,
    devices: Devices | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_line: Callable[[str], None] | None = None,
    light_listener: Callable[[str], None] | None = None,
    feedback_tempo: float = 1.0,
    control: bool = True,
    log: logging.Logger | None = None,
    web: bool | None = None,
) -> Service:
    """A referee: the service with the club's publisher and the live page config.yaml asks for.

    `web` None serves the page when the control socket is served (a referee people talk to);
    False never, True whenever config.yaml enables it. Everything opened is closed by
    `Service.close`, also when something fails half-way.
    """
    service = Service(
        config,
        devices=devices,
        clock=clock,
        on_line=on_line,
        light_listener=light_listener,
        feedback_tempo=feedback_tempo,
        control=control,
        log=log,
    )
    try:
        if config.voice.enabled:
            speak_aloud(service)
        if config.mqtt is not None:
            publish_to_the_club(service)
        if (control if web is None else web) and config.web.enabled:
            serve_the_page(service)
    except BaseException:
        service.close()
        raise
    return service


def speak_aloud(service: Service) -> None:
    """The verdicts, the turn and the winner said aloud (config.yaml's `voice:`): an inline listener that
    only queues, its own thread speaks. Without espeak-ng the referee runs without a voice, and says so."""
    config, loop = service.config, service.loop
    settings = config.voice
    try:
        speaker = EspeakSpeaker(config.voice_language, settings.volume, settings.rate, settings.to_files)
    except HardwareError as exc:
        service.log.warning(
            "[%s] %s; the referee runs without its voice", loop.game, said(exc.args[0], config.language)
        )
        return
    voice = Voice(speaker, config.voice_language, settings.events, engine_of=lambda: loop.session.referee.engine)
    service.voice = voice
    service.closers.append(voice.close)
    loop.bus.subscribe(voice, inline=True, name="voice")


def publish_to_the_club(service: Service) -> None:
    """The table's verdicts to the club's broker, fed from the journal; a broker away is a fault shown
    on the lights and said in the log, and the game goes on."""
    config = service.config
    assert config.mqtt is not None
    publisher = TablePublisher(
        config.mqtt, config.journal, config.game_keys, table=service.loop.table(), log=service.log
    ).start()
    service.publisher = publisher
    service.closers.append(publisher.close)
    service.loop.fault_sources.append((lambda: publisher.problem, words.BROKER_BACK))
    service.loop.bus.subscribe(publisher.on_event, name="mqtt")


def serve_the_page(service: Service) -> None:
    """The live page, in its own thread; a port in use (or a certificate that cannot be made) is a
    warning, not a stop: the referee runs without its page."""
    config, log, loop = service.config, service.log, service.loop
    settings = config.web
    app = WebApp(
        loop,
        sensor=service.sensor,
        switches=service.switches,
        pin=settings.pin,
        journal_path=config.journal,
        feedback=service.feedback,
        config_path=Path(config.source) if Path(config.source).is_file() else None,
        names=config.mqtt.names if config.mqtt is not None else (),
        hosts=settings.hosts,
        language=config.language,
    )
    context = None
    if settings.https:  # the certificate is made at the first start (controller/web/https.py)
        try:
            context, made = server_context(settings.certificate, settings.key, settings.hosts)
        except RefereeError as exc:  # never the page in clear instead: the referee runs without it
            log.warning("[%s] %s; the referee runs without its page", loop.game, exc)
            return
        log.info(
            "[%s] the page's certificate %s (%s): SHA-256 %s",
            loop.game,
            settings.certificate,
            "made now" if made else "kept",
            fingerprint(settings.certificate),
        )
    server = WebServer(app, settings.host, settings.port, ssl_context=context)
    if server.start():
        service.web = server
        service.closers.append(server.close)
        log.info("[%s] live page on %s (PIN %s for its controls)", loop.game, server.url, app.pin)
    else:
        log.warning("[%s] %s; the referee runs without it", loop.game, server.error)
