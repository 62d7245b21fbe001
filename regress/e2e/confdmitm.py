#!/usr/bin/python3
# A confd taken over (regress/e2e/attack_confd.sh): installed beside
# orchd as "confd", it runs the real one (confd.real, beside it) on a
# socket of its own and relays the parent's messages to it unchanged,
# and confd's to the parent changed as the file "scenario" beside it
# says: what a confd that an attacker runs could send.  The parent must
# refuse each, say so, and neither crash nor take it.  Bounded: it ends
# when the real confd does, or after 30 seconds.
import os
import select
import socket
import struct
import sys
import time

HDR = struct.Struct("=IIHHII")	# type, len, flags, unused, peerid, pid
CONF = 1500
MACRO, READ, LOG, SET, LISTENER, KEYPAIR, WORKLOAD, IGNORE, HTFILE, \
    HTUSER, ACME, ACME_CA, END = range(CONF, CONF + 13)
# the no-change reload's (regress/e2e/attack_nochange.sh)
DIGEST, INPUT, SAME = range(CONF + 15, CONF + 18)
HOST_MAX = 256
LOG_MAX = 1024

here = os.path.dirname(os.path.abspath(sys.argv[0]))
with open(os.path.join(here, "scenario")) as f:
    scenario = f.read().strip()
real = os.path.join(here, "confd.real")


def frame(typ, payload):
    return HDR.pack(typ, HDR.size + len(payload), 0, 0, 0, os.getpid()) + \
        payload


def log_msg(pri, text):
    line = text.encode()[:LOG_MAX - 1]
    return frame(LOG, struct.pack("=i", pri) + line +
                 b"\0" * (LOG_MAX - len(line)))


class Mutator:
    def __init__(self):
        self.first_num = True
        self.first_set = True

    def change(self, typ, p):
        """the frames to send for one of confd's"""
        if scenario == "root" and typ == WORKLOAD:
            return [frame(typ, p.replace(b"mail\0", b"root\0"))]
        if scenario == "nosettings" and typ == SET:
            return []
        if scenario == "range" and typ == SET and self.first_num:
            field, length, num = struct.unpack_from("=IIq", p)
            if length == 0:
                self.first_num = False
                return [frame(typ, struct.pack("=IIq", field, 0, -5))]
        if scenario == "nonul" and typ == SET and self.first_set:
            self.first_set = False
            return [frame(typ, p[:-1] + b"x")]
        if scenario == "family" and typ == LISTENER:
            b = bytearray(p)
            struct.pack_into("=H", b, HOST_MAX, 99)
            return [frame(typ, bytes(b))]
        if scenario == "twice" and typ == WORKLOAD:
            return [frame(typ, p), frame(typ, p)]
        if scenario == "unknown" and typ == END:
            return [frame(CONF + 99, b"\0" * 8), frame(typ, p)]
        if scenario == "short" and typ == LISTENER:
            return [frame(typ, p[:100])]
        if scenario == "log" and typ == END:
            return [log_msg(0, "\x1b[31mred\x07 bell\nforged: line"),
                    frame(typ, p)]
        if scenario == "eof" and typ == END:
            return None
        if scenario == "same" and typ == END:
            return [frame(SAME, struct.pack("=i", 0))]
        if scenario == "sameafter" and typ == SET and self.first_set:
            self.first_set = False
            return [frame(typ, p), frame(SAME, struct.pack("=i", 0))]
        if scenario == "manyinputs" and typ == DIGEST:
            b = bytearray(p)
            struct.pack_into("=i", b, 28, 100000)
            return [frame(typ, bytes(b))]
        if scenario == "inputkind" and typ == INPUT:
            return [frame(typ, struct.pack("=i", 99) + p[4:])]
        if scenario == "inputnonul" and typ == INPUT:
            return [frame(typ, p[:8] + b"x" * (len(p) - 8))]
        if scenario == "inputextra" and typ == INPUT:
            return [frame(typ, p), frame(typ, p)]
        return [frame(typ, p)]


def main():
    parent = socket.socket(fileno=3)
    mine, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        mine.close()
        os.dup2(theirs.fileno(), 3)
        os.set_inheritable(3, True)
        os.execve(real, [real] + sys.argv[1:], {})
    theirs.close()
    m = Mutator()
    buf = b""
    deadline = time.monotonic() + 30
    done = False
    while not done and time.monotonic() < deadline:
        r, _, _ = select.select([parent, mine], [], [], 1)
        if parent in r:
            d = parent.recv(65536)
            if not d:
                break
            mine.sendall(d)
        if mine in r:
            d = mine.recv(65536)
            if not d:
                break
            buf += d
            while len(buf) >= HDR.size:
                typ, length = HDR.unpack_from(buf)[:2]
                if len(buf) < length:
                    break
                out = m.change(typ, buf[HDR.size:length])
                buf = buf[length:]
                if out is None:
                    done = True
                    break
                for o in out:
                    parent.sendall(o)
    parent.close()
    os.kill(pid, 9) if done else None
    os.waitpid(pid, 0)


main()
