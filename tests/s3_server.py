"""A real S3 server on loopback (moto's server mode) for tests of tables on ``s3://``."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
               "AWS_EC2_METADATA_DISABLED": "true"}  # never ask an instance-metadata address


@dataclass(frozen=True)
class S3Server:
    """Where the server listens and the settings that reach it."""

    endpoint: str  # host:port

    @property
    def defines(self) -> list[str]:
        """``-D`` overrides pointing s3:// at this server."""
        return [f"fs.s3.endpoint=http://{self.endpoint}", "fs.s3.region=us-east-1"]

    def bucket(self) -> str:
        """Create a fresh bucket; its name."""
        import pyarrow.fs as pafs

        name = f"b-{uuid.uuid4().hex[:12]}"
        fs = pafs.S3FileSystem(endpoint_override=self.endpoint, scheme="http", region="us-east-1",
                               allow_bucket_creation=True)
        fs.create_dir(name)
        return name


@contextmanager
def s3_server() -> Iterator[S3Server]:
    """Start moto on 127.0.0.1 (a free port), with test credentials in the environment."""
    server_mod = pytest.importorskip("moto.server")
    saved = {k: os.environ.get(k) for k in CREDENTIALS}
    os.environ.update(CREDENTIALS)
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield S3Server(f"{host}:{port}")
    finally:
        server.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
