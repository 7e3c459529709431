"""Create an S3 object only if it does not exist (``PUT`` with ``If-None-Match: *``).

pyarrow's S3 filesystem cannot send conditional writes, and the lock of a table
on S3 needs one create that is atomic; so this module signs that single request
itself (AWS Signature Version 4) and sends it with the standard library.  It
reads credentials from ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` /
``AWS_SESSION_TOKEN`` only; without them it raises
:class:`ConditionalPutUnavailable` and the caller falls back to check-then-write.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import os
import time
from urllib.parse import quote

from gossamer.store.location import Location


class ConditionalPutUnavailable(RuntimeError):
    """No way to send a conditional PUT here (no credentials in the environment, or not S3)."""


def put_if_absent(location: Location, data: bytes, timeout: float = 30.0) -> bool:
    """Create the object with ``data``; True if created, False if it already existed (HTTP 412/409).

    Raises :class:`ConditionalPutUnavailable` when it cannot be tried, ``OSError``
    on any other answer of the store.
    """
    access, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
    if location.scheme != "s3" or not access or not secret:
        raise ConditionalPutUnavailable(f"{location.display()}: no S3 credentials in the environment")
    options = dict(location.options)
    region = (options.get("region") or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
              or "us-east-1")
    bucket, _, key = location.path.partition("/")
    endpoint = options.get("endpoint_override")
    if endpoint:
        host, path = endpoint, f"/{bucket}/{quote(key, safe='/~')}"
    else:
        host, path = f"{bucket}.s3.{region}.amazonaws.com", f"/{quote(key, safe='/~')}"
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    headers = {"host": host, "if-none-match": "*", "x-amz-content-sha256": hashlib.sha256(data).hexdigest(),
               "x-amz-date": stamp}
    if token := os.environ.get("AWS_SESSION_TOKEN"):
        headers["x-amz-security-token"] = token
    headers["authorization"] = _authorization(headers, path, access, secret, region, stamp)
    scheme = options.get("scheme") or "https"
    connection_class = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    connection = connection_class(host, timeout=timeout)
    try:
        connection.request("PUT", path, body=data, headers=headers)
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    if response.status == 200:
        return True
    if response.status in (409, 412):  # 409: a concurrent conditional write is in progress
        return False
    if response.status == 501:
        raise ConditionalPutUnavailable(f"{location.display()}: the store does not implement conditional writes")
    raise OSError(f"PUT {location.display()}: HTTP {response.status} {body[:300]!r}")


def _authorization(headers: dict[str, str], path: str, access: str, secret: str, region: str,
                   stamp: str) -> str:
    """The ``Authorization`` header of AWS Signature Version 4 for this PUT."""
    names = sorted(headers)
    signed = ";".join(names)
    canonical = "\n".join(["PUT", path, "", *(f"{n}:{headers[n].strip()}" for n in names), "", signed,
                           headers["x-amz-content-sha256"]])
    scope = f"{stamp[:8]}/{region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = f"AWS4{secret}".encode()
    for part in (stamp[:8], region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return f"AWS4-HMAC-SHA256 Credential={access}/{scope}, SignedHeaders={signed}, Signature={signature}"
