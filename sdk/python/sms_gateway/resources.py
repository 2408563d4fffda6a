"""Helpers for the account's settings-like resources: webhooks, API keys, devices, and the
credentials of the SMPP and Twilio-compatible interfaces. Each method is one operation of the
Extended API and returns the body the gateway sent; they are reached as client.webhooks,
client.keys, client.devices, client.smpp_credentials and client.twilio_credentials."""

import urllib.parse


def _at(base, ident):
    return f"{base}/{urllib.parse.quote(str(ident), safe='')}"


def _fields(**fields):
    """The body's fields that were given: None means "not sent", so the gateway keeps its value."""
    return {name: value for name, value in fields.items() if value is not None}


class Webhooks:
    """Where the gateway posts events (permissions webhooks:read / webhooks:write)."""

    def __init__(self, client):
        self._client = client

    def list(self, **query):
        """GET /webhooks: one page {"data", "next_cursor"}, newest first (limit, cursor)."""
        return self._client.request("GET", "/webhooks", query=query)

    def get(self, webhook_id):
        """GET /webhooks/{id}."""
        return self._client.request("GET", _at("/webhooks", webhook_id))

    def create(self, url, events, description=None):
        """POST /webhooks: {"webhook": ..., "secret": "whsec_..."}; the secret is shown this once."""
        return self._client.request("POST", "/webhooks", json_body=_fields(url=url, events=list(events), description=description))

    def update(self, webhook_id, **fields):
        """PATCH /webhooks/{id}: url, events, enabled, description; others stay as they are."""
        return self._client.request("PATCH", _at("/webhooks", webhook_id), json_body=fields)

    def delete(self, webhook_id):
        """DELETE /webhooks/{id}: the webhook and its delivery log."""
        self._client.request("DELETE", _at("/webhooks", webhook_id))

    def rotate_secret(self, webhook_id):
        """POST /webhooks/{id}/rotate-secret: a new signing secret, shown once."""
        return self._client.request("POST", _at("/webhooks", webhook_id) + "/rotate-secret")


class ApiKeys:
    """The account's API keys (permission keys:manage)."""

    def __init__(self, client):
        self._client = client

    def list(self, **query):
        """GET /keys: one page, newest first (limit, cursor; revoked=False: only keys that work)."""
        return self._client.request("GET", "/keys", query=query)

    def get(self, key_id):
        """GET /keys/{id}, without its secret."""
        return self._client.request("GET", _at("/keys", key_id))

    def create(self, permissions, name=None):
        """POST /keys: the answer's "key" is the whole key, shown this once. Only permissions the
        calling key holds itself (more raises Forbidden)."""
        return self._client.request("POST", "/keys", json_body=_fields(permissions=list(permissions), name=name))

    def revoke(self, key_id):
        """DELETE /keys/{id}: refused from now on; revoking again returns it unchanged."""
        return self._client.request("DELETE", _at("/keys", key_id))


class Devices:
    """The account's phones (devices:read / devices:write / devices:settings)."""

    def __init__(self, client):
        self._client = client

    def list(self, **query):
        """GET /devices: one page of devices."""
        return self._client.request("GET", "/devices", query=query)

    def get(self, device_id):
        """GET /devices/{id}."""
        return self._client.request("GET", _at("/devices", device_id))

    def register(self, name):
        """POST /devices: {"device", "credentials", "broker", "pairing_url"}; the token is shown once."""
        return self._client.request("POST", "/devices", json_body={"name": name})

    def update(self, device_id, **settings):
        """PATCH /devices/{id}/settings: name_custom, can_send_sms, selected_sim, limits...; others
        stay as they are."""
        return self._client.request("PATCH", _at("/devices", device_id) + "/settings", json_body=settings)

    def replace_token(self, device_id):
        """POST /devices/{id}/token: a new token; the old one stops working at once."""
        return self._client.request("POST", _at("/devices", device_id) + "/token")

    def delete(self, device_id):
        """DELETE /devices/{id}: revokes its credentials; deleting it again changes nothing."""
        self._client.request("DELETE", _at("/devices", device_id))


class SmppCredentials:
    """What ESMEs bind with (docs/smpp.md; permission keys:manage)."""

    def __init__(self, client):
        self._client = client

    def list(self):
        """GET /smpp/credentials: every credential, revoked ones included, never a password."""
        return self._client.request("GET", "/smpp/credentials")

    def create(self, **fields):
        """POST /smpp/credentials: system_id, name, device_ids, throughput_per_second, window_size
        (all optional); the answer's "password" is shown this once."""
        return self._client.request("POST", "/smpp/credentials", json_body=fields)

    def update(self, credential_id, **fields):
        """PATCH /smpp/credentials/{id}: name, default_data_coding; a bound session keeps what it
        bound with until it binds again."""
        return self._client.request("PATCH", _at("/smpp/credentials", credential_id), json_body=fields)

    def revoke(self, credential_id):
        """DELETE /smpp/credentials/{id}: unbinds its sessions at once."""
        return self._client.request("DELETE", _at("/smpp/credentials", credential_id))


class TwilioCredentials:
    """AccountSid and auth token for the Twilio-compatible API (permission keys:manage)."""

    def __init__(self, client):
        self._client = client

    def list(self):
        """GET /twilio/credentials: never their tokens."""
        return self._client.request("GET", "/twilio/credentials")

    def create(self, friendly_name=None, sms_url=None):
        """POST /twilio/credentials: the answer's "auth_token" is shown this once."""
        return self._client.request("POST", "/twilio/credentials", json_body=_fields(friendly_name=friendly_name, sms_url=sms_url))

    def rotate(self, account_sid):
        """POST /twilio/credentials/{sid}/rotate: a new auth token; the old one stops working at once."""
        return self._client.request("POST", _at("/twilio/credentials", account_sid) + "/rotate")

    def delete(self, account_sid):
        """DELETE /twilio/credentials/{sid}: the credential and its callbacks."""
        self._client.request("DELETE", _at("/twilio/credentials", account_sid))
