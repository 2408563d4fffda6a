"""Client for the SMS gateway's Extended API: send and read SMS, bulk sends, devices, incoming SMS,
webhook signature checks and end-to-end encryption. Standard library only."""

from .client import Client, EventStream
from .end_to_end import (
    DEFAULT_ITERATIONS,
    E2E_SCHEME,
    MAX_ITERATIONS,
    MIN_ITERATIONS,
    DecryptionError,
    decrypt,
    encrypt,
    is_encrypted,
    parse_encrypted,
)
from .errors import (
    BadRequest,
    Conflict,
    Forbidden,
    GatewayError,
    NotFound,
    RateLimited,
    ServerError,
    Unauthorized,
    Unavailable,
    Unprocessable,
)
from .webhooks import WebhookVerificationError, sign_webhook, verify_webhook

__all__ = [
    "Client",
    "EventStream",
    "GatewayError",
    "BadRequest",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "Conflict",
    "Unprocessable",
    "RateLimited",
    "Unavailable",
    "ServerError",
    "verify_webhook",
    "sign_webhook",
    "WebhookVerificationError",
    "encrypt",
    "decrypt",
    "is_encrypted",
    "parse_encrypted",
    "DecryptionError",
    "E2E_SCHEME",
    "DEFAULT_ITERATIONS",
    "MIN_ITERATIONS",
    "MAX_ITERATIONS",
]
