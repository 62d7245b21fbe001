#!/usr/bin/python3
# A channel from the parent to a child taken over
# (regress/e2e/attack_delta.sh, attack_delta_children.sh): installed
# beside orchd as "runtimed" (or "stored", "reaperd"), it runs the real
# one (runtimed.real, ..., beside it) on a channel of its own
# and relays both ways, descriptors included, the parent's configuration
# deltas changed as the file "scenario" beside it says at the time: a
# delta whose base is not runtimed's generation, a delta replayed, one
# truncated (its last run of kept definitions dropped), each run kept
# twice, a definition sent twice, the globals of a delta changed.  A scenario line may name the program
# it is for ("base stored"): the others relay it unchanged.  The child
# must refuse each, ask for a
# full generation and end with it, never with a wrong one.  Bounded: it
# ends when either side closes, or after 300 seconds.
import os
import select
import socket
import struct
import sys
import time

HDR = struct.Struct("=IIHHII")	# type, len, flags, unused, peerid, pid
HASFD = 1
GLOBAL = 301			# IMSG_CFG_GLOBAL
WORKLOAD = 302			# IMSG_CFG_WORKLOAD
DELTA = 312			# IMSG_CFG_DELTA
KEEP = 313			# IMSG_CFG_KEEP
DONE = 304			# IMSG_CFG_DONE

here = os.path.dirname(os.path.abspath(sys.argv[0]))
me = os.path.basename(sys.argv[0])
real = os.path.join(here, me + ".real")


def scenario():
    try:
        with open(os.path.join(here, "scenario")) as f:
            words = f.read().split()
    except OSError:
        return "control"
    if not words or (len(words) > 1 and words[1] != me):
        return "control"
    return words[0]


class Mutator:
    def __init__(self):
        self.delta = False	# in a delta: its KEEPs and WORKLOADs
        self.held = None	# truncate: the last KEEP, not yet sent
        self.glob = None	# global: GLOBAL, until what follows it
        self.s = "control"

    def change(self, typ, frame):
        """the frames to send for one of the parent's"""
        if typ == GLOBAL and scenario() == "global":
            self.glob = frame
            return []
        if self.glob is not None:
            # a delta's globals changed (the last byte), a full one's not
            g, self.glob = bytearray(self.glob), None
            if typ == DELTA:
                g[-1] ^= 0x55
            return [bytes(g)] + self.change(typ, frame)
        if typ == DELTA:
            self.s = scenario()
            self.delta = True
            if self.s == "base":
                b = bytearray(frame)
                gen, base = struct.unpack_from("=II", b, HDR.size)
                struct.pack_into("=I", b, HDR.size + 4, base + 7)
                return [bytes(b)]
            if self.s == "replay":
                return [frame, frame]
            return [frame]
        if not self.delta:
            return [frame]
        if typ == KEEP and self.s == "truncate":
            out = [self.held] if self.held else []
            self.held = frame
            return out
        if typ == KEEP and self.s == "keeptwice":
            return [frame, frame]
        if typ == WORKLOAD and self.s == "twice":
            return [frame, frame]
        if typ == DONE:
            self.delta = False
            self.held = None	# truncate: the last KEEP never goes
        return [frame]


def relay(src, dst, state, mutate):
    """what src has, to dst, frame by frame, each with its fd"""
    data, fds, _, _ = socket.recv_fds(src, 262144, 64)
    if not data:
        return False
    state["buf"] += data
    state["fds"] += fds
    buf = state["buf"]
    while len(buf) >= HDR.size:
        typ, length, flags = HDR.unpack_from(buf)[:3]
        if len(buf) < length:
            break
        frame, buf = buf[:length], buf[length:]
        fd = state["fds"].pop(0) if flags & HASFD else None
        out = mutate(typ, frame) if mutate else [frame]
        for i, o in enumerate(out):
            if fd is not None and i == 0:
                socket.send_fds(dst, [o[:HDR.size]], [fd])
                dst.sendall(o[HDR.size:])
            else:
                dst.sendall(o)
        if fd is not None:
            os.close(fd)
    state["buf"] = buf
    return True


def main():
    parent = socket.socket(fileno=3)
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        parent.close()
        mine.close()
        os.dup2(theirs.fileno(), 3)
        os.set_inheritable(3, True)
        os.execv(real, [real] + sys.argv[1:])
    theirs.close()
    m = Mutator()
    down = {"buf": b"", "fds": []}
    up = {"buf": b"", "fds": []}
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        r, _, _ = select.select([parent, mine], [], [], 1)
        if parent in r and not relay(parent, mine, down, m.change):
            break
        if mine in r and not relay(mine, parent, up, None):
            break
    mine.close()
    parent.close()
    try:
        os.kill(pid, 15)
    except OSError:
        pass
    os.waitpid(pid, 0)


main()
