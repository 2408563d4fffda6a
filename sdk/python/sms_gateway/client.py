"""The client of the Extended API (/api/ext/v1): one method per operation, named as the API names
it, each returning the body the gateway sent (dicts and lists), or raising a GatewayError for any
answer that is not a 2xx. Standard library only."""

import json
import urllib.error
import urllib.parse
import urllib.request

from .end_to_end import encrypt
from .errors import error_from_response
from .resources import ApiKeys, Devices, SmppCredentials, TwilioCredentials, Webhooks

PREFIX = "/api/ext/v1"


class Client:
    def __init__(self, base_url, api_key, timeout=30.0, headers=None):
        if not base_url:
            raise ValueError("base_url is required")
        if not api_key:
            raise ValueError("api_key is required")
        base = base_url.rstrip("/")
        if base.endswith(PREFIX):
            base = base[: -len(PREFIX)]
        self.base_url = base
        self.api_key = api_key
        self.timeout = timeout
        self.headers = dict(headers or {})
        self.webhooks = Webhooks(self)
        self.keys = ApiKeys(self)
        self.devices = Devices(self)
        self.smpp_credentials = SmppCredentials(self)
        self.twilio_credentials = TwilioCredentials(self)

    # --- SMS ---------------------------------------------------------------------------------

    def send_sms(self, phone, message, idempotency_key=None, **options):
        """POST /sms: stores an SMS (status pending); options are the other fields of the body
        (device_id, sim_slot, send_at, valid_until, ttl, priority, callback_id, no_store...).
        idempotency_key makes a retry replay the first answer instead of sending again."""
        body = {"phone": phone, "message": message, **options}
        return self.request("POST", "/sms", json_body=body, idempotency_key=idempotency_key)

    def send_encrypted_sms(self, phone, message, passphrase, idempotency_key=None, **options):
        """POST /sms/encrypted: encrypts the recipient and the text with `passphrase` (which only
        you and the account's phones know) and sends the ciphertext; the gateway can read
        neither. Options are the other fields of send_sms. The answer shows the ciphertext
        (is_encrypted true); decrypt() reads it back."""
        body = {"phone": encrypt(phone, passphrase), "message": encrypt(message, passphrase), **options}
        return self.request("POST", "/sms/encrypted", json_body=body, idempotency_key=idempotency_key)

    def get_sms(self, sms_id):
        """GET /sms/{id}: the SMS with every status it went through (history), oldest first."""
        return self.request("GET", f"/sms/{urllib.parse.quote(sms_id, safe='')}")

    def list_sms(self, **query):
        """GET /sms: one page {"data": [...], "next_cursor": ...}, newest first. Filters: limit,
        cursor, status, device_id, from, to, phone, search (from/to as ISO 8601 strings)."""
        return self.request("GET", "/sms", query=query)

    def iter_sms(self, **query):
        """Every SMS matching the filters, newest first, reading page after page as needed."""
        return self._pages(self.list_sms, query)

    def cancel_sms(self, sms_id):
        """POST /sms/{id}/cancel: cancels an SMS no phone has taken yet (Conflict once one has)."""
        return self.request("POST", f"/sms/{urllib.parse.quote(sms_id, safe='')}/cancel")

    def send_bulk(self, messages, idempotency_key=None, dry_run=False):
        """POST /sms/bulk: up to 1,000 SMS in one call, all created or none. `messages` is a list
        of dicts with the fields of send_sms, or the text of a CSV with a header row (phone,
        message, and optionally device_id, sim_slot, callback_id, send_at, valid_until, ttl,
        priority). A bad message
        raises BadRequest whose details name each one (field messages.{index}...)."""
        query = {"dry_run": "true"} if dry_run else None
        if isinstance(messages, str):
            return self.request("POST", "/sms/bulk", csv_body=messages, query=query, idempotency_key=idempotency_key)
        return self.request("POST", "/sms/bulk", json_body={"messages": list(messages)}, query=query, idempotency_key=idempotency_key)

    # --- devices and incoming SMS --------------------------------------------------------------

    def list_devices(self, **query):
        """GET /devices: one page of the account's devices (the same as devices.list())."""
        return self.request("GET", "/devices", query=query)

    def list_incoming(self, **query):
        """GET /incoming: one page of SMS the account's phones received, newest first."""
        return self.request("GET", "/incoming", query=query)

    def iter_incoming(self, **query):
        """Every incoming SMS, newest first, page after page."""
        return self._pages(self.list_incoming, query)

    # --- live events -------------------------------------------------------------------------

    def events(self, timeout=None):
        """GET /events: the account's changes as they happen (sms.status, device.presence,
        sms.received). Returns once the gateway has opened the stream (from then on no change is
        missed): iterate it for {"event": name, "data": dict} items, and close() it to stop (or use
        it in a with block). Events are not replayed after a reconnect: reload what you show then.
        `timeout` bounds each read (None: wait as long as the stream stays open)."""
        headers = {**self.headers, "accept": "text/event-stream", "authorization": f"Bearer {self.api_key}"}
        req = urllib.request.Request(self.base_url + PREFIX + "/events", method="GET", headers=headers)
        try:
            response = urllib.request.urlopen(req, timeout=timeout)
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", errors="replace")
            raise error_from_response(error.code, error.headers.get("retry-after"), text) from None
        return EventStream(response)

    # --- anything else -------------------------------------------------------------------------

    def request(self, method, path, json_body=None, csv_body=None, query=None, idempotency_key=None):
        """Any operation of the Extended API: `path` below /api/ext/v1, e.g. "/webhooks"."""
        url = self.base_url + PREFIX + path
        params = {name: _query_value(value) for name, value in (query or {}).items() if value is not None}
        if params:
            url += "?" + urllib.parse.urlencode(params)
        headers = {**self.headers, "accept": "application/json", "authorization": f"Bearer {self.api_key}"}
        data = None
        if json_body is not None:
            headers["content-type"] = "application/json"
            data = json.dumps(json_body).encode("utf-8")
        elif csv_body is not None:
            headers["content-type"] = "text/csv"
            data = csv_body.encode("utf-8")
        if idempotency_key is not None:
            headers["idempotency-key"] = idempotency_key
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", errors="replace")
            raise error_from_response(error.code, error.headers.get("retry-after"), text) from None
        return json.loads(text) if text else None

    @staticmethod
    def _pages(read, query):
        query = {name: value for name, value in query.items() if name != "cursor"}
        cursor = None
        while True:
            page = read(**query, **({"cursor": cursor} if cursor else {}))
            yield from page["data"]
            cursor = page.get("next_cursor")
            if not cursor:
                return


def _query_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class EventStream:
    """An open live event stream: iterate it for {"event", "data"} dicts; close() ends it."""

    def __init__(self, response):
        self._response = response

    def __iter__(self):
        name, data = "message", []
        for raw in self._response:
            line = raw.decode("utf-8").rstrip("\r\n")
            if line == "":
                # A blank line dispatches what was gathered; comments and retry: alone gather none.
                if data:
                    text = "\n".join(data)
                    try:
                        parsed = json.loads(text)
                    except ValueError:
                        parsed = {"text": text}
                    yield {"event": name, "data": parsed}
                name, data = "message", []
            elif line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:][1:] if line[5:].startswith(" ") else line[5:])

    def close(self):
        self._response.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
