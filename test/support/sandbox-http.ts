import { SANDBOX_API_KEY, type Sandbox } from '../../src/sandbox/index.js';

/** One request to the sandbox over real HTTP with its key: the status and the JSON body (undefined when empty). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function request(sb: Sandbox, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = { Authorization: `Bearer ${SANDBOX_API_KEY}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(sb.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}
