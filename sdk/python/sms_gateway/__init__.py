"""Client for the SMS gateway's Extended API: send and read SMS, bulk sends, devices, incoming SMS,
and webhook signature checks. Standard library only."""

from .client import Client, EventStream
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
]
