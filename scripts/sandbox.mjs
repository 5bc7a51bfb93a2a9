#!/usr/bin/env node
// Runs the embedded sandbox on its own, as one upstream that several server processes share
// (e.g. replicas behind a load balancer, each with POSTHOG_HOST pointing here). Needs `npm run build`.
//
//   node scripts/sandbox.mjs [--port N] [--any-key] [--api today|2024] [--log FILE]
//
// --api picks the PostHog it imitates: today's Cloud (default) or the 2024 API (README: The sandbox).
// --any-key accepts any Bearer phx_… key (per-user keys); without it only the sandbox key.
// --log FILE writes every API request (method, path, query, authorization) as JSON lines when
// the process stops, for scripts that check which key made which call. Demo keys only: the log
// holds the Authorization header verbatim. Prints "sandbox: <url>" on stdout once listening,
// stops on SIGTERM/SIGINT.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startSandbox } from '../dist/sandbox/index.js';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '0' }, 'any-key': { type: 'boolean', default: false }, api: { type: 'string', default: 'today' }, log: { type: 'string' } },
});
if (values.api !== 'today' && values.api !== '2024') {
  process.stderr.write(`--api must be "today" or "2024", got "${values.api}"\n`);
  process.exit(2);
}
const sandbox = await startSandbox({ port: Number(values.port), acceptAnyKey: values['any-key'], api: values.api });
process.stdout.write(`sandbox: ${sandbox.url}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  if (values.log) {
    const lines = sandbox.requests
      .filter((r) => r.path.startsWith('/api/'))
      .map((r) => JSON.stringify({ method: r.method, path: r.path, query: r.query, authorization: r.authorization ?? null }));
    writeFileSync(values.log, lines.length ? `${lines.join('\n')}\n` : '');
  }
  await sandbox.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
