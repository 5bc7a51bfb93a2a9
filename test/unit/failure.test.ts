import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/errors.js';
import { CallBudget } from '../../src/posthog/budget.js';
import { TimeoutMarker, classify, toUpstreamError, type Upstream } from '../../src/posthog/failure.js';
import { Redactor } from '../../src/posthog/redact.js';

const KEY = 'phx_unit_test_key_0123456789abcdefghij';
const redactor = new Redactor(KEY);
const direct: Upstream = { baseUrl: 'https://ph.example', origin: 'https://ph.example', proxy: undefined, timeoutMs: 2_000, redact: (t) => redactor.text(t) };
const viaProxy = (shown: string, origin = 'https://ph.example'): Upstream => ({ ...direct, origin, baseUrl: origin, proxy: { url: shown, shown, from: 'HTTPS_PROXY' } });
const get = { method: 'GET', path: '/api/projects/?limit=5' };
const post = { method: 'POST', path: '/api/projects/1/query/' };
const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('classify', () => {
  it('a reset or refused connection may pass: retryable, the key never quoted', () => {
    const reset = classify(coded('ECONNRESET', `read ECONNRESET while sending ${KEY}`), get, direct, undefined);
    expect(reset.retryable).toBe(true);
    expect(reset.code).toBe('ECONNRESET');
    expect(reset.error.message).toMatch(/Could not reach PostHog at https:\/\/ph\.example for GET \/api\/projects\/ \(ECONNRESET/);
    expect(reset.error.message).not.toContain(KEY);
    expect(classify(new Error('other side closed'), get, direct, undefined).retryable).toBe(true);
    expect(classify(coded('ENOTFOUND'), get, direct, undefined).retryable).toBe(false);
  });

  it('a certificate problem says what to change, and is not retried', () => {
    const untrusted = classify(coded('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'), get, direct, undefined);
    expect(untrusted.retryable).toBe(false);
    expect(untrusted.error.message).toMatch(/NODE_EXTRA_CA_CERTS.*Nothing was read\./);
    const plain = classify(coded('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number'), post, direct, undefined);
    expect(plain.error.message).toMatch(/POSTHOG_HOST may need http:\/\/ instead of https:\/\/.*Nothing was sent\./);
    // Behind an https:// proxy an http:// PostHog's TLS failure is the proxy's.
    const proxied = classify(coded('CERT_HAS_EXPIRED'), get, viaProxy('https://proxy.example:3128', 'http://ph.example'), undefined);
    expect(proxied.error.message).toMatch(/the proxy https:\/\/proxy\.example:3128 \(HTTPS_PROXY\): its certificate is outside its validity dates/);
  });

  it("a proxy's refusal of the tunnel is reported as the proxy's answer", () => {
    const failure = classify(new Error('Proxy response (407) !== 200 when HTTP Tunneling'), get, viaProxy('http://proxy.example:3128'), undefined);
    expect(failure).toMatchObject({ retryable: false, code: 'PROXY_REFUSED' });
    expect(failure.error.message).toMatch(/refused the connection \(407: it wants credentials/);
  });

  it("a timeout names the request's own bound, and the call's wall clock when that came first", () => {
    const slow = classify(new DOMException('No complete answer within 2000 ms', 'TimeoutError'), get, direct, undefined);
    expect(slow).toMatchObject({ retryable: false });
    expect(slow.error.message).toMatch(/PostHog did not answer GET \/api\/projects\/ within 2000 ms/);
    const budget = new CallBudget({ maxRequests: 10, wallClockMs: 30_000, throttleWaitMs: 0 });
    expect(classify(new TimeoutMarker(), get, direct, budget).error.message).toMatch(/time budget of 30 s \(POSTHOG_CALL_TIMEOUT_MS\) at GET \/api\/projects\//);
  });

  it("the MCP call's cancellation is a cancellation, whatever undici made of it", () => {
    const controller = new AbortController();
    controller.abort();
    const failure = classify(coded('UND_ERR_ABORTED'), { ...get, signal: controller.signal }, direct, undefined);
    expect(failure.error.message).toBe('The request GET /api/projects/ was cancelled by the client.');
  });
});

describe('toUpstreamError', () => {
  it("reads PostHog's error body into a typed error, the key removed and the wait it named kept", async () => {
    const body = JSON.stringify({ type: 'throttled_error', code: 'throttled', detail: `Request was throttled for ${KEY}. Expected available in 12 seconds.` });
    const response = { statusCode: 429, headers: {}, body: Readable.from([Buffer.from(body)]) } as unknown as Dispatcher.ResponseData;
    const error = await toUpstreamError(response, get, (t) => redactor.text(t));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 429, code: 'throttled', type: 'throttled_error', path: '/api/projects/', retryAfterSeconds: 12 });
    expect(error.detail).not.toContain(KEY);
  });
});
