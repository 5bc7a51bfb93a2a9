#!/usr/bin/env node
// A person's browser, for a client that opens one to sign in (mcp-remote does, through
// $BROWSER): it opens the consent page it is given, pastes STAND_IN_KEY into the form, and
// follows the redirect back to the client's own loopback listener. Each step is appended to
// STAND_IN_LOG for the test to read. Never prints the key.
import { appendFileSync } from 'node:fs';

const url = process.argv[process.argv.length - 1];
const note = (line) => process.env.STAND_IN_LOG && appendFileSync(process.env.STAND_IN_LOG, `${line}\n`);
note(`open ${new URL(url).pathname}`);
const page = await (await fetch(url)).text();
const request = /name="request" value="([^"]+)"/.exec(page)?.[1]?.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));
if (!request) {
  note('no consent form');
  process.exit(1);
}
const answer = await fetch(new URL('/oauth/authorize', url), {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ request, api_key: process.env.STAND_IN_KEY ?? '' }),
  redirect: 'manual',
});
const location = answer.headers.get('location');
note(`form ${answer.status}`);
if (!location) process.exit(1);
// A browser tries localhost on every address; the client's listener may be on 127.0.0.1 only,
// and may start a moment after it opened the browser.
const back = new URL(location);
if (back.hostname === 'localhost') back.hostname = '127.0.0.1';
for (let i = 0; i < 40; i++) {
  try {
    const r = await fetch(back);
    note(`callback ${r.status}`);
    process.exit(0);
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
note('callback unreachable');
process.exit(1);
