import { describe, expect, it } from 'vitest';
import { maskRequestBodies, maskTypedValues } from '../../src/tools/recordings/event-privacy.js';

// posthog-js records request bodies in clear text even when it masked the inputs they came from:
// the privacy walk masks them by default, keeping the request's shape.

function network(requests: Array<Record<string, unknown>>) {
  return { type: 6, timestamp: 1, data: { plugin: 'rrweb/network@1', payload: { requests } } };
}
const bodyOf = (event: ReturnType<typeof network>, i = 0) => event.data.payload.requests[i]!.requestBody;

describe('maskRequestBodies', () => {
  it('keeps a JSON body’s keys and structure, and masks every string and number to its length', () => {
    const event = network([{ name: 'http://a.test/api/profile', method: 'POST', status: 500, requestBody: JSON.stringify({ full_name: 'Ada King', age: 36, tags: ['x', { phone: '+44 1' }], ok: true, none: null }), responseBody: '{"error":"down"}' }]);
    maskRequestBodies(event);
    expect(JSON.parse(bodyOf(event) as string)).toEqual({ full_name: '********', age: '**', tags: ['*', { phone: '*****' }], ok: true, none: null });
    // The server's answer is not what the user typed: it stays for debugging.
    expect(event.data.payload.requests[0]!.responseBody).toBe('{"error":"down"}');
  });

  it('masks the values of a form-encoded body and any other body whole', () => {
    const event = network([{ requestBody: 'email=ada%40example.com&name=Ada' }, { requestBody: 'just some text' }, { requestBody: '"a JSON string"' }, { name: 'no body' }]);
    maskRequestBodies(event);
    expect(bodyOf(event, 0)).toBe('email=*****************&name=***');
    expect(bodyOf(event, 1)).toBe('**************');
    expect(bodyOf(event, 2)).toBe('***************');
    expect(event.data.payload.requests[3]).toEqual({ name: 'no body' });
  });

  it('masks a body already parsed into an object, and one nested deeper than it will serialize', () => {
    let deep: unknown = 'secret';
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const event = network([{ requestBody: { email: 'ada@example.com' } }, { requestBody: deep }]);
    maskRequestBodies(event);
    expect(bodyOf(event, 0)).toEqual({ email: '***************' });
    expect(bodyOf(event, 1)).toBe('*');
  });

  it('leaves other plugins and malformed payloads alone', () => {
    const consoleEvent = { type: 6, timestamp: 1, data: { plugin: 'rrweb/console@1', payload: { level: 'log', payload: ['"typed"'], requestBody: 'x' } } };
    const copy = structuredClone(consoleEvent);
    maskRequestBodies(consoleEvent);
    expect(consoleEvent).toEqual(copy);
    for (const data of [null, { plugin: 'rrweb/network@1' }, { plugin: 'rrweb/network@1', payload: { requests: 'nope' } }, { plugin: 'rrweb/network@1', payload: { requests: [null, 3] } }]) {
      expect(() => maskRequestBodies({ type: 6, data })).not.toThrow();
    }
  });

  it('is part of maskTypedValues, the default walk of the snapshots tool', () => {
    const event = network([{ requestBody: '{"password":"hunter2"}' }]);
    maskTypedValues(event);
    expect(bodyOf(event)).toBe('{"password":"*******"}');
  });
});
