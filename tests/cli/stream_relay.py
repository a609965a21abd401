#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""A TCP relay that damages a delta stream on its way (tests/cli/test_cli_stream_relay.sh).

  stream_relay.py MODE N K TARGET_PORT

Listens on 127.0.0.1 (a free port, printed on the first line of stdout),
takes one receiver, connects it to the sender at TARGET_PORT and forwards both
ways; the sender's bytes are damaged at byte offset N of the stream:
  flip      flip bit 4 of byte N
  drop      leave out K bytes from N
  reorder   swap the K bytes at N with the K bytes after them
  truncate  close both connections after N bytes
  stall     forward N bytes, then nothing more (the connections stay open)
  pass      forward everything as it is
  dropmsg   leave out K whole messages from message N (0 = the HELLO)
Ends when either side closes, or after 30 s.
"""
import select
import socket
import sys
import time


def main():
    mode, n, k, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    print(ls.getsockname()[1], flush=True)
    ls.settimeout(30)
    rx, _ = ls.accept()
    tx = socket.create_connection(("127.0.0.1", port), timeout=30)
    pending = b""      # downstream bytes held back (reorder, drop)
    seen = 0           # downstream bytes received from the sender
    deadline = time.time() + 30
    stalled = False
    msgs = 0           # whole messages seen (dropmsg)
    tx_open = True
    while time.time() < deadline:
        r, _, _ = select.select([rx, tx] if tx_open else [rx], [], [], 0.5)
        if rx in r:
            data = rx.recv(65536)
            if not data:
                break
            if tx_open:
                tx.sendall(data)
        if tx in r:
            data = tx.recv(65536)
            if not data:
                if stalled:  # the receiver keeps waiting on a silent connection
                    tx_open = False
                    continue
                if pending:
                    rx.sendall(pending)
                break
            start, seen = seen, seen + len(data)
            if stalled:
                continue
            out = data
            if mode == "flip" and start <= n < seen:
                b = bytearray(data)
                b[n - start] ^= 0x10
                out = bytes(b)
            elif mode in ("drop", "reorder") and seen > n:
                # hold bytes from n on until the span is complete
                pending += data[max(0, n - start):]
                out = data[:max(0, n - start)]
                need = k if mode == "drop" else 2 * k
                if len(pending) >= need:
                    span = pending[:need]
                    rest = pending[need:]
                    fixed = b"" if mode == "drop" else span[k:] + span[:k]
                    out += fixed + rest
                    pending = b""
                    mode = "pass"
            elif mode == "dropmsg":
                # whole messages: 20 header bytes, the payload length at 8..11
                pending += data
                out = b""
                while len(pending) >= 20:
                    size = 20 + int.from_bytes(pending[8:12], "little")
                    if len(pending) < size:
                        break
                    if not n <= msgs < n + k:
                        out += pending[:size]
                    pending = pending[size:]
                    msgs += 1
            elif mode == "truncate" and seen >= n:
                rx.sendall(data[:n - start])
                break
            elif mode == "stall" and seen >= n:
                out = data[:n - start]
                stalled = True
            rx.sendall(out)
    for s in (rx, tx, ls):
        try:
            s.close()
        except OSError:
            pass


if __name__ == "__main__":
    main()
