"""Create an S3 object only if it does not exist (``PUT`` with ``If-None-Match: *``), through boto3.

pyarrow's S3 filesystem cannot send conditional writes, and the lock of a table on S3 needs
one create that is atomic; this module sends that one request with boto3 (the ``s3`` extra:
``pip install 'gossamer[s3]'``), so every credential source boto3 knows works: environment
keys, shared config and profiles, SSO, EC2/ECS instance roles, Kubernetes web identity.
Keys given in the place's own options (``access_key`` / ``secret_key`` / ``session_token``,
as for pyarrow) come first; the endpoint, region and scheme come from the place too.

Without boto3, or for a store that does not implement conditional writes (HTTP 501), it
raises :class:`ConditionalPutUnavailable`; the caller then falls back to check-then-write and
says so once (:mod:`gossamer.store.lock_remote`).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from gossamer.store.location import Location

_CLIENT_LOCK = threading.Lock()


class ConditionalPutUnavailable(RuntimeError):
    """No way to send a conditional PUT here (boto3 missing, not S3, no credentials, not implemented)."""


def put_if_absent(location: Location, data: bytes, timeout: float = 30.0) -> bool:
    """Create the object with ``data``; True if created, False if it already existed (HTTP 412/409).

    Raises :class:`ConditionalPutUnavailable` when it cannot be tried, ``OSError``
    on any other answer of the store.
    """
    if location.scheme != "s3":
        raise ConditionalPutUnavailable(f"{location.display()}: conditional writes are an S3 feature")
    try:
        import botocore.exceptions
    except ImportError:
        raise ConditionalPutUnavailable(
            f"{location.display()}: boto3 is not installed (pip install 'gossamer[s3]')") from None
    options = dict(location.options)
    bucket, _, key = location.path.partition("/")
    client = _client(tuple(sorted((k, str(v)) for k, v in options.items())), timeout)
    try:
        client.put_object(Bucket=bucket, Key=key, Body=data, IfNoneMatch="*")
        return True
    except botocore.exceptions.NoCredentialsError as exc:
        raise ConditionalPutUnavailable(f"{location.display()}: {exc}") from None
    except botocore.exceptions.ClientError as exc:
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if status in (409, 412):  # 409: a concurrent conditional write is in progress
            return False
        if status == 501:
            raise ConditionalPutUnavailable(
                f"{location.display()}: the store does not implement conditional writes") from None
        raise OSError(f"PUT {location.display()}: {exc}") from None
    except botocore.exceptions.BotoCoreError as exc:
        raise OSError(f"PUT {location.display()}: {exc}") from None


@lru_cache(maxsize=16)
def _client(options: tuple[tuple[str, str], ...], timeout: float) -> Any:
    """A boto3 S3 client for a place's options (endpoint, region, scheme, keys), made once per options."""
    import boto3
    from botocore.config import Config

    given = dict(options)
    endpoint = given.get("endpoint_override")
    if endpoint and "://" not in endpoint:
        endpoint = f"{given.get('scheme') or 'https'}://{endpoint}"
    keys = {name: given[option] for name, option in (("aws_access_key_id", "access_key"),
                                                       ("aws_secret_access_key", "secret_key"),
                                                       ("aws_session_token", "session_token"))
            if given.get(option)}
    with _CLIENT_LOCK:  # boto3's default session is not thread-safe to create clients from
        session = boto3.session.Session(**keys)
        return session.client("s3", endpoint_url=endpoint or None, region_name=given.get("region") or None,
                              config=Config(connect_timeout=timeout, read_timeout=timeout,
                                            retries={"max_attempts": 3, "mode": "standard"}))
