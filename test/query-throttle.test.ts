// A query PostHog throttles (429: its hourly budget, or too many queries running) is asked again
// by the one query operation every tool's queries go through, after the wait PostHog named and
// within the call's throttle allowance: a tool that is not the triage (the list's `sequence`)
// waits as replay reads do. Against the sandbox at scale on 127.0.0.1, its query endpoint made to
// answer 429 once, or always; and, through a front on 127.0.0.1 that refuses one kind of query
// only, a person's list whose unrecorded-sessions query is throttled past the call's allowance.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCALE, scaleTruth, type ScaleTruth } from '../src/sandbox/index.js';
import { startHarness, text, type Harness } from './harness.js';

const NOW = new Date();
const QUERY = /\/query\/?$/;
const ARGS = { project_id: String(SCALE.projectId), date_from: '-8d', sequence: [{ id: 'checkout_started' }, { id: 'order_completed', absent: true }] };
const BUSY = { type: 'throttled_error', code: 'throttled', detail: 'Too many queries are running right now — please try again in a moment.', attr: null };

let h: Harness;
let truth: ScaleTruth;
let front: Server;
/** A query body the front answers 429 itself (PostHog's hourly budget, naming a wait no call makes), or null: all go through. */
let refuse: ((body: string) => boolean) | null = null;

/** Forwards every request to the sandbox, except a query `refuse` picks. */
async function startFront(): Promise<string> {
  front = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && refuse?.(body)) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '120' });
        res.end(JSON.stringify({ type: 'throttled_error', code: 'throttled', detail: 'Request was throttled. Expected available in 120 seconds.', attr: null }));
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'content-type', 'accept']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name] as string;
      fetch(h.sandbox.url + req.url, { method: req.method, headers, body: body === '' ? undefined : body })
        .then(async (answer) => {
          const out: Record<string, string> = {};
          for (const name of ['content-type', 'retry-after']) if (answer.headers.get(name)) out[name] = answer.headers.get(name)!;
          res.writeHead(answer.status, out);
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
}
/** The queries the call makes when none is throttled (the sequence, and the rows' session context). */
let unthrottled: number;
beforeAll(async () => {
  // A throttle allowance of 2.5 s: two waits of the 1 s PostHog names fit, a third does not.
  const url = await startFront();
  h = await startHarness({ sandbox: { scale: true, now: NOW }, client: { baseUrl: url }, callLimits: { maxRequests: 100, wallClockMs: 60_000, throttleWaitMs: 2_500 } });
  truth = scaleTruth({ now: NOW });
  const r = await h.call('session-recordings-list', ARGS);
  expect(r.isError, text(r)).toBeFalsy();
  unthrottled = queries();
});
afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => front?.close(resolve));
});

const queries = () => h.sandbox.requests.filter((q) => q.method === 'POST' && QUERY.test(q.path)).length;

describe('the list\'s sequence query, throttled', () => {
  it('429 once: waits the second PostHog named, asks again, and answers as it would have', async () => {
    h.sandbox.requests.length = 0;
    h.sandbox.injectFault({ method: 'POST', path: QUERY, status: 429, times: 1, headers: { 'retry-after': '1' }, body: BUSY });
    const started = performance.now();
    const r = await h.call('session-recordings-list', ARGS);
    const took = performance.now() - started;
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { count?: number }).count).toBe(truth.sequence.checkoutWithoutOrder.sessions);
    expect(text(r)).not.toMatch(/429|rate limit|throttl/i);
    expect(queries()).toBe(unthrottled + 1);
    expect(took).toBeGreaterThanOrEqual(1_000);
  });

  it('429 always: gives up within the call\'s throttle allowance, says when to retry, and claims no recordings', async () => {
    h.sandbox.requests.length = 0;
    h.sandbox.injectFault({ method: 'POST', path: QUERY, status: 429, times: Infinity, headers: { 'retry-after': '1' }, body: BUSY });
    const started = performance.now();
    const r = await h.call('session-recordings-list', ARGS);
    const took = performance.now() - started;
    h.sandbox.clearFaults();
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(text(r)).toContain('Too many queries are running');
    expect(text(r)).toMatch(/rate limiting this key: retry in about 1 seconds/);
    // The first query and two more after 1 s each; a third wait would pass the 2.5 s allowance.
    expect(queries()).toBe(3);
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(took).toBeLessThan(2_500 + 2_000);
  });

  it('names no wait: asks again after a short backoff (1 s, then 2 s) within the allowance', async () => {
    h.sandbox.requests.length = 0;
    h.sandbox.injectFault({ method: 'POST', path: QUERY, status: 429, times: 2, body: BUSY });
    const started = performance.now();
    const r = await h.call('session-recordings-list', ARGS);
    const took = performance.now() - started;
    h.sandbox.clearFaults();
    // 1 s fits the 2.5 s allowance; 2 s more does not: PostHog's answer, and the advice to wait.
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('PostHog is rate limiting this key');
    expect(queries()).toBe(2);
    expect(took).toBeGreaterThanOrEqual(1_000);
  });
});

describe("a person's unrecorded-sessions query, throttled past the call's allowance", () => {
  it('lists the recordings all the same, and says the sessions without one were not counted, and when to retry', async () => {
    const p = truth.examples.personWithSeveralIds;
    refuse = (body) => body.includes('NOT IN (SELECT session_id FROM session_replay_events');
    h.sandbox.requests.length = 0;
    const r = await h.call('session-recordings-list', { project_id: String(SCALE.projectId), date_from: '-8d', person: p.email, limit: 100 });
    refuse = null;
    expect(r.isError, text(r)).toBeFalsy();
    const data = r.structuredContent as { results: Array<{ id: string }>; person_match: Record<string, unknown> };
    expect(data.results.length).toBeGreaterThan(0);
    expect(data.person_match.unrecorded_sessions).toBeUndefined();
    const said = 'Sessions without a recording not counted: the query API is rate limiting this key (retry in about 120 s).';
    expect(data.person_match.unrecorded_partial).toBe(said);
    expect(text(r)).toContain(said);
    expect(text(r)).not.toMatch(/events but no recording \(/);
  });
});
