// What a provider's answer to "create a Message" means (src/modules/upstreams/links/twilio/answer.ts)
// and what a request that got none means (network-failure.ts).
import { expect } from 'chai';
import { DEFAULT_RETRY_AFTER_MS, readAnswer, retryAfterMs } from '../../src/modules/upstreams/links/twilio/answer.ts';
import { readNetworkFailure } from '../../src/modules/upstreams/links/twilio/network-failure.ts';

const twilioError = (code: number, message: string, status: number) => JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

describe('Twilio link: reading the answer', () => {
  it('201 or 200 is accepted, with the sid and num_segments (1 when absent)', () => {
    expect(readAnswer(201, JSON.stringify({ sid: 'SMabc', num_segments: '3' }), undefined)).to.deep.equal({
      outcome: { accepted: true, providerIds: ['SMabc'], segments: 3 },
      effect: 'working',
    });
    expect(readAnswer(200, JSON.stringify({ sid: 'SMabc', num_segments: null }), undefined).outcome).to.deep.equal({ accepted: true, providerIds: ['SMabc'], segments: 1 });
    expect(readAnswer(201, '<html>', undefined).outcome).to.include({ accepted: false, retry: 'never', code: 'invalid_answer' });
  });

  it('429 is later, after Retry-After in seconds or as a date, and throttles the link', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(readAnswer(429, twilioError(20429, 'Too Many Requests', 429), '3', now)).to.deep.equal({
      outcome: { accepted: false, retry: 'later', code: '20429', detail: 'Too Many Requests', retryAfterMs: 3000 },
      effect: 'throttled',
    });
    expect(retryAfterMs(new Date(now + 7000).toUTCString(), now)).to.equal(7000);
    expect(retryAfterMs(undefined, now)).to.equal(DEFAULT_RETRY_AFTER_MS);
    expect(retryAfterMs('soon', now)).to.equal(DEFAULT_RETRY_AFTER_MS);
    expect(retryAfterMs('999999', now)).to.equal(3_600_000);
    expect(readAnswer(429, '', undefined).outcome).to.include({ retry: 'later', code: 'http_429', retryAfterMs: DEFAULT_RETRY_AFTER_MS });
  });

  it('5xx is later and counts as a failure of the provider', () => {
    expect(readAnswer(503, 'Service Unavailable', undefined)).to.deep.equal({
      outcome: { accepted: false, retry: 'later', code: 'http_503', detail: 'the provider answered 503' },
      effect: 'failing',
    });
    expect(readAnswer(500, twilioError(20500, 'Internal Server Error', 500), undefined).outcome).to.include({ retry: 'later', code: '20500' });
  });

  it('401, 403 and code 20003 refuse the credentials: never, and the link goes down', () => {
    for (const [status, body, code] of [[401, twilioError(20003, 'Authenticate', 401), '20003'], [403, '', 'http_403'], [400, twilioError(20003, 'Authenticate', 400), '20003']] as const) {
      const read = readAnswer(status, body, undefined);
      expect(read.effect, String(status)).to.equal('credentials refused');
      expect(read.outcome).to.deep.equal({ accepted: false, retry: 'never', code, detail: 'the provider refused the credentials (check accountSid and authToken)' });
    }
  });

  it("other 4xx are never, with Twilio's code; a number in its message is masked", () => {
    const invalid = readAnswer(400, twilioError(21211, "The 'To' number +15005550001 is not a valid phone number.", 400), undefined);
    expect(invalid).to.deep.equal({
      outcome: { accepted: false, retry: 'never', code: '21211', detail: "The 'To' number +1500*****01 is not a valid phone number." },
      effect: 'working',
    });
    for (const code of [21610, 21408, 21614]) expect(readAnswer(400, twilioError(code, 'no', 400), undefined).outcome).to.include({ retry: 'never', code: String(code) });
    expect(readAnswer(404, 'Not Found', undefined).outcome).to.include({ retry: 'never', code: 'http_404' });
    expect(readAnswer(301, '', undefined).outcome).to.include({ retry: 'never', code: 'http_301' });
    expect((readAnswer(400, twilioError(21211, 'x'.repeat(1000), 400), undefined).outcome as { detail: string }).detail).to.have.length(300);
  });

  it('reads a request that got no answer: timeouts, refusals, resets, and the guard', () => {
    const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
    expect(readNetworkFailure(coded('UND_ERR_HEADERS_TIMEOUT'))).to.deep.equal({ code: 'timeout', detail: 'the provider did not answer in time', blocked: false });
    expect(readNetworkFailure(coded('ECONNREFUSED'))).to.include({ code: 'ECONNREFUSED', blocked: false });
    expect(readNetworkFailure(Object.assign(new TypeError('fetch failed'), { cause: coded('ECONNRESET') }))).to.include({ code: 'ECONNRESET', blocked: false });
    expect(readNetworkFailure(coded('EBLOCKED', 'webhook host x resolves only to addresses webhooks may not reach'))).to.deep.equal({
      code: 'destination_refused',
      detail: 'webhook host x resolves only to addresses webhooks may not reach',
      blocked: true,
    });
    expect(readNetworkFailure('odd')).to.include({ code: 'network_error', blocked: false });
  });
});
