"""A gpodder.net-compatible server for podfresh's sync tests: gpodder-fastapi-router (from PyPI) served by uvicorn on
127.0.0.1, with a user made by the package's own `create-user` command, and a small control API under /_test/ that
injects faults (a status, malformed JSON, a delay, the process dying before or after it handles a request) and lists
the requests it served. Only ever run by the tests and Scripts/bench-sync.sh.

Usage: python gpodder_server.py --db FILE [--port N] [--user NAME --password SECRET]
Prints "listening PORT" once it accepts connections.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys

from fastapi import FastAPI, Request
from starlette.responses import JSONResponse, Response

from gpodder_router import GPodderConfig, attach
from gpodder_router.__main__ import main as router_cli


def build_app(database_url: str) -> FastAPI:
    config = GPodderConfig(database_url=database_url, bcrypt_rounds=4, enable_dashboard=False)
    app = FastAPI()
    faults: list[dict] = []
    served: list[dict] = []

    @app.middleware("http")
    async def inject(request: Request, call_next):
        path = request.url.path
        if path.startswith("/_test/"):
            return await call_next(request)
        served.append({"method": request.method, "path": path, "query": request.url.query})
        for fault in faults:
            if fault.get("times", 1) == 0:
                continue
            if fault.get("method") not in (None, request.method) or fault.get("match", "") not in path:
                continue
            fault["times"] = fault.get("times", 1) - 1
            kind = fault["kind"]
            if kind == "status":
                return Response(status_code=int(fault["status"]), content=b"fault injected")
            if kind == "malformed":
                return Response(content=b'{"add": ["http://a.example/feed"', media_type="application/json")
            if kind == "delay":
                await asyncio.sleep(float(fault["seconds"]))
            if kind == "die":
                os._exit(3)
            if kind == "die_after":
                await call_next(request)
                os._exit(3)
        return await call_next(request)

    @app.post("/_test/fault")
    async def add_fault(request: Request):
        faults.append(await request.json())
        return JSONResponse({"faults": len(faults)})

    @app.post("/_test/clear")
    async def clear():
        faults.clear()
        served.clear()
        return JSONResponse({})

    @app.get("/_test/served")
    async def list_served():
        return JSONResponse(served)

    attach(app, config=config)
    return app


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--user")
    parser.add_argument("--password")
    args = parser.parse_args()
    database_url = f"sqlite+aiosqlite:///{os.path.abspath(args.db)}"
    os.environ.setdefault("GPODDER_BCRYPT_ROUNDS", "4")
    if args.user and args.password:
        # The package's own command; a second start on the same database finds the user there.
        router_cli(["--database-url", database_url, "create-user", args.user, "--password", args.password])
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    app = build_app(database_url)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    print(f"listening {sock.getsockname()[1]}", flush=True)
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
