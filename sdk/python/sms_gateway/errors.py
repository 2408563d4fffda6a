"""Errors of the gateway: every answer other than a 2xx becomes a GatewayError (or a subclass per
status a caller reacts to differently) carrying the body's {"error": {"message", "code", "details"}}."""

import json


class GatewayError(Exception):
    """An answer of the gateway that was not a 2xx."""

    def __init__(self, status, code, message, details=None, retry_after=None, body=None):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details or []
        #: Seconds the gateway asks to wait before retrying (Retry-After), when it sent one.
        self.retry_after = retry_after
        self.body = body


class BadRequest(GatewayError):
    """400: the request is malformed; details name each bad field."""


class Unauthorized(GatewayError):
    """401: no key, or a key the gateway does not know."""


class Forbidden(GatewayError):
    """403: the key lacks the permission."""


class NotFound(GatewayError):
    """404: no such SMS, device or route for this account."""


class Conflict(GatewayError):
    """409: e.g. cancelling an SMS a phone has already taken."""


class Unprocessable(GatewayError):
    """422: e.g. an idempotency key reused with another request, an opted-out recipient."""


class RateLimited(GatewayError):
    """429: too many requests; retry_after says when to try again."""


class Unavailable(GatewayError):
    """503: no phone can take it now, or the database is unreachable; retry_after when sent."""


class ServerError(GatewayError):
    """Any other 5xx."""


_BY_STATUS = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: Unprocessable,
    429: RateLimited,
    503: Unavailable,
}


def error_from_response(status, retry_after, text):
    """The exception for an answer that was not a 2xx."""
    try:
        body = json.loads(text) if text else None
    except ValueError:
        body = text
    error = body.get("error") if isinstance(body, dict) and isinstance(body.get("error"), dict) else {}
    code = error.get("code") if isinstance(error.get("code"), str) else "unknown"
    message = error.get("message") if isinstance(error.get("message"), str) else f"the gateway answered {status}"
    details = error.get("details") if isinstance(error.get("details"), list) else []
    seconds = int(retry_after.strip()) if retry_after and retry_after.strip().isdigit() else None
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else GatewayError)
    return cls(status, code, message, details, seconds, body)
