"""A real FTP server (pyftpdlib) on 127.0.0.1, an ephemeral port, in a thread: for protocol-ftp tests."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import DTPHandler, FTPHandler, ThrottledDTPHandler
from pyftpdlib.servers import FTPServer

USER, PASSWORD = "crawler", "s3cret"
logging.getLogger("pyftpdlib").setLevel(logging.WARNING)


class DroppingDTPHandler(DTPHandler):
    """Sends ``drop_after`` bytes of a file, then the server hangs up (data and control connection)."""

    drop_after = 1000

    def send(self, data: Any) -> int:
        room = self.drop_after - self.tot_bytes_sent
        if room <= 0:
            channel = self.cmd_channel
            self.close()
            channel.close()
            return 0
        return super().send(data[:room])


class FtpServer:
    """Serve ``root`` to anonymous users (read only) and to USER/PASSWORD (home ``root/private``).

    ``drop_after``: every download is cut after that many bytes by hanging up (None: never).
    ``bytes_per_second``: downloads are sent no faster (None: as fast as possible).
    ``commands`` counts the FTP commands received, by name (``USER`` counts logins).
    """

    def __init__(self, root: Path, drop_after: int | None = None, mlsd: bool = True,
                 bytes_per_second: int | None = None) -> None:
        authorizer = DummyAuthorizer()
        authorizer.add_anonymous(str(root))
        private = root / "private"
        private.mkdir(exist_ok=True)
        authorizer.add_user(USER, PASSWORD, str(private), perm="elr")
        commands: dict[str, int] = {}
        self.commands = commands

        class Handler(FTPHandler):
            use_sendfile = False
            dtp_handler = DTPHandler

            def pre_process_command(self, line: str, cmd: str, arg: str) -> None:
                commands[cmd] = commands.get(cmd, 0) + 1
                if cmd == "MLSD" and not mlsd:
                    self.respond("502 Command not implemented.")
                    return
                super().pre_process_command(line, cmd, arg)

        Handler.authorizer = authorizer
        Handler.banner = "gossamer test ftp"
        Handler.auth_failed_timeout = 0.01
        if drop_after is not None:
            Handler.dtp_handler = type("Dropping", (DroppingDTPHandler,), {"drop_after": drop_after})
        if bytes_per_second is not None:
            Handler.dtp_handler = type("Slow", (ThrottledDTPHandler,), {"write_limit": bytes_per_second})
        self.server = FTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.socket.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            self.server.serve_forever(timeout=0.02, blocking=False, handle_exit=False)
        self.server.close_all()

    def url(self, path: str = "/", user: str = "") -> str:
        return f"ftp://{user + '@' if user else ''}127.0.0.1:{self.port}{path}"

    def __enter__(self) -> FtpServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
