#!/usr/bin/python3
# A gRPC service and its client for regress/e2e/http2.sh, with Debian's
# python3-grpcio and generic handlers (no protoc): messages are raw bytes.
#
#	h2grpc.py serve PORT STARTS-FILE
#	h2grpc.py call TARGET AUTHORITY [CAFILE]
#	h2grpc.py slow TARGET AUTHORITY COUNT MS
#
# The client prints one line per call: what came back, status, trailers;
# slow makes one server-streaming call of COUNT messages, MS ms apart.
# Traffic stays on 127.0.0.1.

import sys
import time
from concurrent import futures

import grpc

SVC = "orchd.test.Echo"


def unary(req, ctx):
    ctx.set_trailing_metadata((("x-trailer", "unary-" + str(len(req))),))
    return req[::-1]


def stream(req, ctx):
    # "COUNT" or "COUNT/MS": MS milliseconds before each message
    count, _, ms = req.partition(b"/")
    for i in range(int(count)):
        if ms:
            time.sleep(int(ms) / 1000.0)
        yield b"tick %d" % i
    ctx.set_trailing_metadata((("x-trailer", "stream"),))


def fail(req, ctx):
    ctx.set_trailing_metadata((("x-trailer", "failed"),))
    ctx.abort(grpc.StatusCode.NOT_FOUND, "no such thing")


def serve(port, starts):
    with open(starts, "a") as f:
        f.write("start\n")
    handler = grpc.method_handlers_generic_handler(SVC, {
        "Unary": grpc.unary_unary_rpc_method_handler(unary),
        "Stream": grpc.unary_stream_rpc_method_handler(stream),
        "Fail": grpc.unary_unary_rpc_method_handler(fail),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port("127.0.0.1:%d" % port)
    server.start()
    server.wait_for_termination()


def trailer(call):
    return dict(call.trailing_metadata() or ()).get("x-trailer")


def call(target, authority, cafile=None):
    opts = [("grpc.default_authority", authority)]
    if cafile:
        with open(cafile, "rb") as f:
            creds = grpc.ssl_channel_credentials(f.read())
        opts.append(("grpc.ssl_target_name_override", authority))
        ch = grpc.secure_channel(target, creds, options=opts)
    else:
        ch = grpc.insecure_channel(target, options=opts)
    un = ch.unary_unary("/%s/Unary" % SVC)
    resp, c = un.with_call(b"hello grpc", timeout=30)
    print("unary %s %s %s" % (resp.decode(), c.code().name, trailer(c)))
    st = ch.unary_stream("/%s/Stream" % SVC)
    it = st(b"5", timeout=30)
    msgs = [m.decode() for m in it]
    print("stream %d %s %s %s" % (len(msgs), msgs[-1] if msgs else "-",
                                  it.code().name, trailer(it)))
    fl = ch.unary_unary("/%s/Fail" % SVC)
    try:
        fl.with_call(b"x", timeout=30)
        print("fail none")
    except grpc.RpcError as e:
        print("fail %s %s %s" % (e.code().name, e.details(), trailer(e)))


def slow(target, authority, count, ms):
    ch = grpc.insecure_channel(target, options=[
        ("grpc.default_authority", authority)])
    st = ch.unary_stream("/%s/Stream" % SVC)
    it = st(("%s/%s" % (count, ms)).encode(), timeout=60)
    try:
        msgs = [m.decode() for m in it]
    except grpc.RpcError as e:
        print("slow cut %s %s" % (e.code().name, e.details()))
        return
    print("slow %d %s %s %s" % (len(msgs), msgs[-1] if msgs else "-",
                                it.code().name, trailer(it)))


if sys.argv[1] == "serve":
    serve(int(sys.argv[2]), sys.argv[3])
elif sys.argv[1] == "slow":
    slow(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
else:
    call(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
