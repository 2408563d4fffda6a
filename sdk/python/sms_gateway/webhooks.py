"""Verifying a webhook delivery, signed the Standard Webhooks way:

    webhook-id: <delivery id>   webhook-timestamp: <Unix seconds>
    webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>"> (space-separated, one per live secret)

with the HMAC key the base64 part of the secret "whsec_<base64>". Check the raw body exactly as
received (parse it only afterwards); a timestamp far from now is refused so that a captured
delivery cannot be replayed later."""

import base64
import hashlib
import hmac
import json
import time

DEFAULT_TOLERANCE_SECONDS = 5 * 60


class WebhookVerificationError(Exception):
    """The delivery's signature or timestamp does not hold."""


def _header(headers, name):
    for key, value in dict(headers).items():
        if key.lower() == name:
            return value[0] if isinstance(value, (list, tuple)) else value
    return None


def sign_webhook(secret, msg_id, timestamp, body):
    """The webhook-signature value the gateway would send: for tests of a receiver."""
    return "v1," + base64.b64encode(_sign(secret, msg_id, str(timestamp), body)).decode()


def _sign(secret, msg_id, timestamp, body):
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    if isinstance(body, (bytes, bytearray)):
        body = body.decode("utf-8")
    return hmac.new(key, f"{msg_id}.{timestamp}.{body}".encode("utf-8"), hashlib.sha256).digest()


def verify_webhook(secret, headers, body, tolerance_seconds=DEFAULT_TOLERANCE_SECONDS, now=None):
    """Checks a delivery with the webhook's secret and returns the parsed event (a dict);
    raises WebhookVerificationError when it does not hold. `headers` is any mapping (names in any
    case), `body` the raw body as received (str or bytes)."""
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header")
    if not timestamp.isdigit() or len(timestamp) > 15:
        raise WebhookVerificationError("webhook-timestamp is not a Unix time in seconds")
    current = int(now if now is not None else time.time())
    if abs(current - int(timestamp)) > tolerance_seconds:
        raise WebhookVerificationError("webhook-timestamp is too far from now")
    expected = _sign(secret, msg_id, timestamp, body)
    for entry in signatures.split(" "):
        if not entry.startswith("v1,"):
            continue
        try:
            given = base64.b64decode(entry[3:], validate=True)
        except ValueError:
            continue
        if hmac.compare_digest(given, expected):
            break
    else:
        raise WebhookVerificationError("no signature matches the secret")
    try:
        return json.loads(body)
    except ValueError:
        raise WebhookVerificationError("the body is not JSON") from None
