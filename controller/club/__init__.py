"""A club's tables on one MQTT broker.

Each referee publishes its table (state, verdicts, results, online) under `referee/<table>/`
(`publisher.py`, fed from the journal so nothing is lost while the broker is away); `referee club`
subscribes to every table, keeps results and standings in SQLite (`store.py`) and serves a
read-only page (`server.py`). The payloads are fixed in `docs/mqtt.md` (`payloads.py`).
"""
