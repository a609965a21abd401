# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Delta streaming over TCP (docs/stream.md): a :class:`Sender` sends only
the tiles that changed beyond a threshold T against what its receivers show;
:func:`receive` connects to one and yields the frames. With T = 0 the
received frames equal the sent ones byte for byte; with T > 0 every sample a
receiver shows is within T of the frame sent.

>>> with fovea.stream.Sender(threshold=2, like=frames[0]) as s:
...     print(s.address)          # "127.0.0.1:PORT": give it to the receivers
...     s.wait_for_receivers(1)
...     for f in frames:
...         s.send(f)
>>> for number, frame in fovea.stream.receive("127.0.0.1:PORT"):
...     ...

Blocking calls (sending, waiting, receiving) release the GIL. Senders and
receivers are used by one thread at a time (a second thread gets
RuntimeError); run a sender and its receivers in different threads or
processes. Needs a library built with the streamer (libzstd and libxxhash,
CMake's FOVEA_STREAM): :func:`available` says whether it is; without it
:class:`Sender` and :func:`receive` raise fovea.Error.
"""
from . import _fovea
from ._frames import context as _context, empty as _empty, spec as _spec

__all__ = ["Sender", "Receiver", "receive", "available"]


def available():
    """True when the library has the delta streamer built in."""
    return bool(_fovea.HAVE_STREAM)


def _need():
    if not _fovea.HAVE_STREAM:
        raise _fovea.Error("fovea: this build of the library has no delta streamer "
                           "(built without libzstd/libxxhash, FOVEA_STREAM=OFF): "
                           "fovea.stream is not available")


def _int(name, v, lo, hi):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"fovea: {name} must be an int, not {type(v).__name__}")
    if not lo <= v <= hi:
        raise ValueError(f"fovea: {name} must be {lo}..{hi}, got {v}")
    return v


def _addr(name, a):
    if not isinstance(a, str):
        raise TypeError(f"fovea: {name} must be a str \"HOST:PORT\", not {type(a).__name__}")
    host, sep, port = a.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"fovea: {name} must be \"HOST:PORT\" (\"[v6]:PORT\"), got {a!r}")
    return a


class Sender:
    """A delta-stream sender listening on ``listen`` ("HOST:PORT"; port 0 =
    any free one, ``address`` says which).

    The frames' size and format are fixed when the socket opens: give them
    with ``like=`` (a frame) or ``width``, ``height`` and ``pixfmt`` (and
    ``bit_depth`` for uint16 YUV); without them the socket opens at the
    first :meth:`send` (and ``address`` is None until then).

    ``threshold`` T (0 = lossless, up to 65535 in sample units): every
    sample a receiver shows stays within T of the frame sent.
    ``keyframe_interval`` K (a keyframe every K frames, 0 = only the first
    and those receivers ask for), ``tile`` (8, 16, 32 or 64), ``zstd_level``
    (1..19), ``max_clients`` (receivers at once; more are turned away, their
    :func:`receive` raises fovea.Error), ``max_queue`` (bytes queued per
    receiver, 0 = the library's 64 MiB), ``fps`` (carried to receivers).

    A receiver that connects mid-stream gets a keyframe first. :meth:`close`
    (or leaving a ``with`` block) ends the stream: END is sent and the
    receivers get up to ``linger`` seconds to take what is queued. One
    thread at a time."""

    def __init__(self, listen="127.0.0.1:0", *, threshold=0, keyframe_interval=300, tile=16,
                 zstd_level=1, max_clients=16, max_queue=0, like=None, width=None,
                 height=None, pixfmt=None, bit_depth=None, fps=None, linger=10.0, ctx=None):
        _need()
        self._listen = _addr("listen", listen)
        self._opts = (_int("threshold", threshold, 0, 65535),
                      _int("keyframe_interval", keyframe_interval, 0, 1 << 30),
                      _int("tile", tile, 8, 64), _int("zstd_level", zstd_level, 1, 19),
                      _int("max_clients", max_clients, 1, 1024),
                      _int("max_queue", max_queue, 0, 1 << 40))
        if tile not in (8, 16, 32, 64):
            raise ValueError(f"fovea: tile must be 8, 16, 32 or 64, got {tile}")
        from . import _fps
        self._fps = _fps(fps)
        self._bit_depth = bit_depth
        self._ctx = _context(ctx)
        self.linger = float(linger)
        self.threshold = threshold
        self._s = None
        self._shape = None
        self.address = None
        self.last = None
        if like is not None:
            _, pixfmt, width, height = _spec(like, bit_depth, "like", self._ctx)
        if (width, height, pixfmt) != (None, None, None):
            if None in (width, height, pixfmt):
                raise ValueError("fovea: give width, height and pixfmt together (or like=)")
            self._open(pixfmt, _int("width", width, 1, 16384),
                       _int("height", height, 1, 16384))

    def _open(self, pixfmt, width, height):
        if not isinstance(pixfmt, str):
            raise TypeError(f"fovea: pixfmt must be a str, not {type(pixfmt).__name__}")
        if _fovea.pixfmt_desc(pixfmt) is None:
            raise ValueError(f"fovea: unknown pixel format '{pixfmt}'")
        self._s = _fovea.StreamSender(self._ctx, self._listen, pixfmt, width, height,
                                      self._fps[0], self._fps[1], *self._opts)
        self._shape = (pixfmt, width, height)
        self.address = self._s.address()

    def send(self, frame):
        """Encode frame (a numpy frame of the stream's size and format) and
        queue it for every receiver; returns what it cost: a dict with
        "frame" (its number), "keyframe", "tiles_sent", "tiles_changed",
        "tiles_total" and "bytes"."""
        s, pixfmt, w, h = _spec(frame, self._bit_depth, "frame", self._ctx)
        if self._s is None:
            if self._shape is not None:
                raise ValueError("fovea: the Sender is closed")
            self._open(pixfmt, w, h)
        elif (pixfmt, w, h) != self._shape:
            p, sw, sh = self._shape
            raise ValueError(f"fovea: frame is {pixfmt} {w}x{h}, the stream is {p} {sw}x{sh}")
        r = self._s.send(s)
        self.last = dict(zip(("frame", "keyframe", "tiles_sent", "tiles_changed",
                              "tiles_total", "bytes"), r))
        self.last["keyframe"] = bool(self.last["keyframe"])
        return self.last

    def wait_for_receivers(self, n=1, timeout=None):
        """Serve the socket until n receivers are connected; False when
        timeout seconds (None: no limit) passed first."""
        _int("n", n, 0, 1024)
        if self._s is None:
            raise ValueError("fovea: the Sender's socket is not open (give like= or the size)")
        t = -1 if timeout is None else max(0, int(float(timeout) * 1000))
        return self._s.wait(n, t)

    def poll(self, timeout=0.0):
        """Serve the receivers (accept, read their requests, send what is
        queued) for up to timeout seconds."""
        if self._s is not None:
            self._s.poll(max(0, int(float(timeout) * 1000)))

    @property
    def stats(self):
        """The server's counters: clients, accepted, refused, disconnected,
        resyncs, resync_requests, bytes_sent."""
        return self._s.stats() if self._s is not None else None

    def close(self):
        """End the stream (END), let the receivers take what is queued (up to
        ``linger`` seconds) and close. Returns True when every receiver got
        the whole stream. Safe to call twice."""
        s, self._s = self._s, None
        if self._shape is None:
            self._shape = ()
        if s is None:
            return True
        try:
            return s.finish(int(self.linger * 1000))
        finally:
            s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<fovea.stream.Sender {self.address or 'not open'} T={self.threshold}>"


class Receiver:
    """A connection to a sender (what :func:`receive` returns). Iterating
    yields ``(frame_number, frame)``: numpy frames as :func:`fovea.read`
    yields them (YUV as :class:`fovea.Planes`), each a new array, until the
    sender ends its stream. ``info`` (after the first frame, or
    :meth:`hello`): width, height, pixfmt, fps, threshold,
    keyframe_interval, tile; ``last``: what the last frame cost; ``end``:
    the frames the sender encoded, once it ended. A receiver the sender
    turns away (max_clients) raises fovea.Error saying so. One thread at a
    time."""

    def __init__(self, address, *, timeout=30.0, resync=True, ctx=None):
        _need()
        _addr("address", address)
        if timeout is None:
            ms = 0
        else:
            if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
                raise TypeError("fovea: timeout must be a number of seconds or None")
            if timeout <= 0:
                raise ValueError("fovea: timeout must be > 0 seconds (None: wait forever)")
            ms = max(1, int(timeout * 1000))
        self.address = address
        self._r = _fovea.StreamReceiver(_context(ctx), address, ms, int(bool(resync)))
        self.info = None
        self.last = None
        self.end = None

    def hello(self):
        """Wait for the stream's header; returns ``info``."""
        while self.info is None:
            if self._next() is None:
                break
        return self.info

    def _next(self):
        while True:
            if self._r is None:
                return None
            ev = self._r.next()
            kind = ev[0]
            if kind == "hello":
                self.info = ev[1]
                if self.info["fps_den"] > 0:
                    self.info["fps"] = self.info["fps_num"] / self.info["fps_den"]
                return "hello"
            if kind == "frame":
                i = self.info
                frame, spec = _empty(i["pixfmt"], i["width"], i["height"])
                self._r.copy_into(spec)
                self.last = dict(zip(("frame", "keyframe", "skipped", "bytes", "tiles_sent",
                                      "tiles_total"), ev[1:]))
                self.last["keyframe"] = bool(self.last["keyframe"])
                return ev[1], frame
            if kind == "end":
                self.end = ev[1]
                continue  # the sender closes next: EOF
            if kind == "eof":
                self.close()
                return None

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            r = self._next()
            if r is None:
                raise StopIteration
            if r != "hello":
                return r

    @property
    def bytes_received(self):
        """Bytes received so far (headers included)."""
        return self._r.bytes() if self._r is not None else 0

    def close(self):
        """Close the connection (safe to call twice)."""
        r, self._r = self._r, None
        if r is not None:
            r.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def receive(address, *, timeout=30.0, resync=True, ctx=None):
    """Connect to a sender at address ("HOST:PORT") and iterate over the
    frames it sends: ``for number, frame in fovea.stream.receive(addr)``.

    ``timeout``: seconds without a byte before fovea.Error (None: wait
    forever); ``resync``: on a frame refused inside an intact message, ask
    for a keyframe and go on (False: raise). Raises fovea.Error when the
    connection fails, the stream is damaged or the sender turned this
    receiver away (its message says why: max_clients, or finishing). Returns
    a :class:`Receiver`."""
    return Receiver(address, timeout=timeout, resync=resync, ctx=ctx)
