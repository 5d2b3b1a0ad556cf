"""Stay Alive slide-switch scanner for a Raspberry Pi Pico running MicroPython.

Copy this file to the Pico as `main.py` (for example `mpremote cp main.py :main.py`); it runs at
power-up. It scans the 28 microswitches of the 14 slides as a diode matrix (see WIRING.md),
debounces every switch in time, and talks to the Raspberry Pi over the USB serial port with the
framed protocol of PROTOCOL.md:

* a STATE frame with all 14 slides whenever a debounced switch changes, and every heartbeat
  period (1 s by default) even when nothing changes, so the Pi can tell a quiet board from a
  dead link;
* a PONG for every PING, a STATE for every GET_STATE, and a STATE after a CONFIG that sets the
  debounce time (20-50 ms) and heartbeat period (50-5000 ms); a CONFIG outside those ranges is
  garbage that passed the CRC by chance, and is ignored.

A slide whose two switches are both closed cannot be in any position, so it is reported as a
fault ('X'), never guessed.

Only modules MicroPython has are used (machine, time, sys, select, micropython), and no type
annotations or f-strings, so the file runs unchanged on the Pico. The simulator
(`simulation/pico.py`) runs this same file under CPython with stand-ins for those modules;
that is why everything below `main()` takes its clock, pins and output as arguments.
"""

import sys
import time

import machine
import micropython

try:
    import select
except ImportError:  # very old MicroPython firmware only has the u-prefixed name
    import uselect as select

# --- Wiring (keep in step with WIRING.md) -------------------------------------------------------
# Four row lines are driven low one at a time; seven column lines have pull-ups and read low when
# a closed switch (with its diode) connects them to the driven row.
ROW_PINS = (2, 3, 4, 5)  # GP2..GP5: orange A, orange C, white A, white C
COL_PINS = (6, 7, 8, 9, 10, 11, 12)  # GP6..GP12: slide 0..6 of that colour
SLIDE_COUNT = 14
SWITCH_COUNT = 28
SETTLE_US = 20  # let a column settle after its row is driven

# --- Timing -------------------------------------------------------------------------------------
DEBOUNCE_MS = 30
DEBOUNCE_MIN_MS = 20
DEBOUNCE_MAX_MS = 50
HEARTBEAT_MS = 1000
HEARTBEAT_MIN_MS = 50
HEARTBEAT_MAX_MS = 5000
SCAN_INTERVAL_MS = 2

# --- Protocol (keep in step with firmware_bridge/protocol.py) -----------------------------------
START0 = 0xA5
START1 = 0x5A
MAX_PAYLOAD = 32
MSG_STATE = 0x01
MSG_PONG = 0x02
MSG_PING = 0x81
MSG_GET_STATE = 0x82
MSG_CONFIG = 0x83
REASON_HEARTBEAT = 0
REASON_CHANGE = 1
REASON_REQUEST = 2
REASON_BOOT = 3
REASON_CONFIG = 4
MAX_PING_TOKEN = 8
CONFIG_PAYLOAD_LEN = 3
# The frames the Pi sends: message type -> (shortest, longest) payload. Any other header is
# impossible and is dropped at once (protocol.TO_PICO; a test checks they agree).
RX_SHAPES = {
    MSG_PING: (0, MAX_PING_TOKEN),
    MSG_GET_STATE: (0, 0),
    MSG_CONFIG: (CONFIG_PAYLOAD_LEN, CONFIG_PAYLOAD_LEN),
}

# Ctrl-C no longer interrupts the program (frames may contain 0x03), so a run of this many 0x03
# bytes, which the Pi never sends, ends it and returns to the REPL for mpremote (see WIRING.md).
ESCAPE_CTRL_C_RUN = 8


def _make_crc_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
        table.append(crc)
    return table


_CRC_TABLE = _make_crc_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE, identical to firmware_bridge.protocol.crc16."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def encode_frame(msg_type, seq, payload):
    """START, type, seq, length, payload, CRC-16 big-endian over type..payload."""
    body = bytearray((msg_type & 0xFF, seq & 0xFF, len(payload)))
    body.extend(payload)
    crc = crc16(body)
    frame = bytearray((START0, START1))
    frame.extend(body)
    frame.append(crc >> 8)
    frame.append(crc & 0xFF)
    return bytes(frame)


def settings_in_range(debounce_ms, heartbeat_ms):
    """The settings this program accepts, as firmware_bridge.protocol.settings_in_range."""
    return DEBOUNCE_MIN_MS <= debounce_ms <= DEBOUNCE_MAX_MS and HEARTBEAT_MIN_MS <= heartbeat_ms <= HEARTBEAT_MAX_MS


# What FrameReader.check says of a candidate frame other than its size.
WAIT = -1
IMPOSSIBLE = -2
BAD_CRC = -3


def find_start(buf, begin):
    """Index of the first start marker at or after `begin`, or -1."""
    for i in range(begin, len(buf) - 1):
        if buf[i] == START0 and buf[i + 1] == START1:
            return i
    return -1


class FrameReader:
    """Finds checked frames in the incoming bytes; drops garbage and resynchronises.

    The same rules as firmware_bridge.protocol.FrameParser: an impossible header (a type or length
    not in `shapes`) or a bad CRC gives up only the first marker byte; a frame still waiting for
    bytes is given up once a whole good frame begins inside it; and the CRC of a frame found stays
    in the scan, so a frame cut short by a byte never hides the next one.
    """

    def __init__(self, shapes=None):
        self.shapes = RX_SHAPES if shapes is None else shapes
        self.buf = bytearray()
        self.bad_frames = 0

    def feed(self, data):
        """Add bytes; return a list of (type, seq, payload) for each good frame completed."""
        self.buf.extend(data)
        frames = []
        buf = self.buf
        while True:
            start = find_start(buf, 0)
            if start < 0:
                keep = 1 if (len(buf) and buf[-1] == START0) else 0
                buf = buf[len(buf) - keep :]
                break
            buf = buf[start:]
            size = self.check(buf, 0)
            if size == WAIT:
                inside = self.good_frame_inside(buf)
                if inside < 0:
                    break
                self.bad_frames += 1  # cut short: a whole good frame begins within its length
                buf = buf[inside:]
                continue
            if size < 0:
                self.bad_frames += 1
                buf = buf[1:]
                continue
            frames.append((buf[2], buf[3], bytes(buf[5 : size - 2])))
            buf = buf[size - 2 :]
        self.buf = bytearray(buf)
        return frames

    def check(self, buf, at):
        """The size of the good frame at `at` (a start marker), or WAIT, IMPOSSIBLE or BAD_CRC."""
        if len(buf) < at + 5:
            return WAIT
        shape = self.shapes.get(buf[at + 2])
        length = buf[at + 4]
        if shape is None or length < shape[0] or length > shape[1]:
            return IMPOSSIBLE
        end = at + 7 + length
        if len(buf) < end:
            return WAIT
        if crc16(buf[at + 2 : end - 2]) != (buf[end - 2] << 8) | buf[end - 1]:
            return BAD_CRC
        return end - at

    def good_frame_inside(self, buf):
        """Where the first whole good frame after the first byte starts, or -1."""
        at = find_start(buf, 1)
        while at > 0:
            if self.check(buf, at) > 0:
                return at
            at = find_start(buf, at + 1)
        return -1


class SwitchMatrix:
    """The 4 x 7 diode matrix: returns which of the 28 switches are closed."""

    def __init__(self, pin_class, row_pins=ROW_PINS, col_pins=COL_PINS, sleep_us=None):
        self.rows = [pin_class(p, pin_class.OUT, value=1) for p in row_pins]
        self.cols = [pin_class(p, pin_class.IN, pin_class.PULL_UP) for p in col_pins]
        self.sleep_us = sleep_us

    def read(self):
        """Switch k = row * 7 + column is True when closed (its column reads low)."""
        closed = []
        for row in self.rows:
            row.value(0)
            if self.sleep_us is not None:
                self.sleep_us(SETTLE_US)
            for col in self.cols:
                closed.append(col.value() == 0)
            row.value(1)
        return closed


def slide_codes(closed):
    """Position code of every slide from its two switches: A-switch, C-switch.

    Switch rows: 0 = orange A-switches, 1 = orange C-switches, 2 = white A, 3 = white C.
    Only A closed -> 'A', only C closed -> 'C', neither -> 'B', both -> 'X' (a fault).
    """
    codes = ""
    for slide in range(SLIDE_COUNT):
        base = (slide // 7) * 14 + slide % 7
        a_closed = closed[base]
        c_closed = closed[base + 7]
        if a_closed and c_closed:
            codes += "X"
        elif a_closed:
            codes += "A"
        elif c_closed:
            codes += "C"
        else:
            codes += "B"
    return codes


class Debouncer:
    """Time-based debounce: a switch's new level counts once it has held for debounce_ms."""

    def __init__(self, raw, now, debounce_ms, ticks_diff):
        self.stable = list(raw)
        self.candidate = list(raw)
        self.since = [now] * len(raw)
        self.debounce_ms = debounce_ms
        self.ticks_diff = ticks_diff

    def update(self, raw, now):
        """Feed one scan; return True when any debounced level changed."""
        changed = False
        for i in range(len(raw)):
            level = raw[i]
            if level != self.candidate[i]:
                self.candidate[i] = level
                self.since[i] = now
            elif level != self.stable[i] and self.ticks_diff(now, self.since[i]) >= self.debounce_ms:
                self.stable[i] = level
                changed = True
        return changed


class Firmware:
    """Everything the program does, one scan at a time, with its clock and I/O passed in."""

    def __init__(self, read_switches, write, ticks_ms, ticks_diff, debounce_ms=DEBOUNCE_MS, heartbeat_ms=HEARTBEAT_MS):
        self.read_switches = read_switches
        self.write = write
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        self.heartbeat_ms = heartbeat_ms
        self.seq = 0
        self.uptime_ms = 0
        self.reader = FrameReader()
        self.ctrl_c_run = 0
        now = ticks_ms()
        self.last_tick = now
        self.last_sent = now
        self.debouncer = Debouncer(read_switches(), now, debounce_ms, ticks_diff)
        self.codes = slide_codes(self.debouncer.stable)
        self.send_state(REASON_BOOT)

    def send(self, msg_type, payload):
        self.write(encode_frame(msg_type, self.seq, payload))
        self.seq = (self.seq + 1) & 0xFF

    def send_state(self, reason):
        mask = 0
        for i in range(SLIDE_COUNT):
            if self.codes[i] == "X":
                mask |= 1 << i
        up = self.uptime_ms & 0xFFFFFFFF
        payload = bytearray(self.codes.encode())
        payload.extend(bytes((mask >> 8, mask & 0xFF)))
        payload.extend(bytes((up >> 24, (up >> 16) & 0xFF, (up >> 8) & 0xFF, up & 0xFF)))
        payload.extend(bytes((reason, self.debouncer.debounce_ms)))
        payload.extend(bytes((self.heartbeat_ms >> 8, self.heartbeat_ms & 0xFF)))
        self.send(MSG_STATE, payload)
        self.last_sent = self.ticks_ms()

    def tick(self):
        """Scan once; send a STATE on a debounced change or when the heartbeat is due."""
        now = self.ticks_ms()
        self.uptime_ms += self.ticks_diff(now, self.last_tick)
        self.last_tick = now
        if self.debouncer.update(self.read_switches(), now):
            codes = slide_codes(self.debouncer.stable)
            if codes != self.codes:
                self.codes = codes
                self.send_state(REASON_CHANGE)
                return
        if self.ticks_diff(now, self.last_sent) >= self.heartbeat_ms:
            self.send_state(REASON_HEARTBEAT)

    def receive(self, data):
        """Handle bytes from the Pi: PING, GET_STATE, CONFIG; anything else is ignored.

        Returns False when the escape (a run of Ctrl-C bytes) asks the program to stop.
        """
        for byte in data:
            self.ctrl_c_run = self.ctrl_c_run + 1 if byte == 0x03 else 0
        if self.ctrl_c_run >= ESCAPE_CTRL_C_RUN:
            return False
        for msg_type, _seq, payload in self.reader.feed(data):
            if msg_type == MSG_PING:
                self.send(MSG_PONG, payload[:MAX_PING_TOKEN])
            elif msg_type == MSG_GET_STATE:
                self.send_state(REASON_REQUEST)
            elif msg_type == MSG_CONFIG:
                debounce = payload[0]
                heartbeat = (payload[1] << 8) | payload[2]
                if not settings_in_range(debounce, heartbeat):
                    self.reader.bad_frames += 1  # the Pi never sends these: garbage with a lucky CRC
                    continue
                self.debouncer.debounce_ms = debounce
                self.heartbeat_ms = heartbeat
                self.send_state(REASON_CONFIG)
        return True


def main():
    """Scan every few milliseconds and answer the Pi, until the Ctrl-C escape arrives."""
    micropython.kbd_intr(-1)  # a 0x03 byte in a frame must not raise KeyboardInterrupt
    matrix = SwitchMatrix(machine.Pin, sleep_us=time.sleep_us)
    out = sys.stdout.buffer
    inp = sys.stdin.buffer
    firmware = Firmware(matrix.read, out.write, time.ticks_ms, time.ticks_diff)
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    while True:
        if poller.poll(SCAN_INTERVAL_MS) and not firmware.receive(inp.read(1)):
            break
        firmware.tick()
    micropython.kbd_intr(3)  # Ctrl-C works again at the REPL


if __name__ == "__main__":
    main()
