// A stand-in for Anthropic's Messages API on 127.0.0.1, enough for Claude Code's print mode: with
// tools listed, its first answer calls the tool whose name contains TOOL (default
// session-recording-replay) with ARGS; once a tool result comes back it answers with that result's
// text, so what the client handed the model is visible. With HOLD=<folder> it writes that text to
// <folder>/result.txt and answers only when <folder>/release exists. Every request body is
// appended to LOG. Streaming (server-sent events) and plain JSON answers are both served.
import fs from 'node:fs';
import http from 'node:http';

const LOG = process.env.LOG;
const TOOL = process.env.TOOL ?? 'session-recording-replay';
const ARGS = JSON.parse(process.env.ARGS ?? '{}');
const HOLD = process.env.HOLD;
let counter = 0;

function events(content, stop) {
  const message = { id: `msg_${++counter}`, type: 'message', role: 'assistant', model: 'stand-in', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  const out = [['message_start', { message }]];
  content.forEach((block, index) => {
    const start = block.type === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: block.id, name: block.name, input: {} };
    const delta = block.type === 'text' ? { type: 'text_delta', text: block.text } : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
    out.push(['content_block_start', { index, content_block: start }], ['content_block_delta', { index, delta }], ['content_block_stop', { index }]);
  });
  out.push(['message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } }], ['message_stop', {}]);
  return out;
}

function answer(res, streamed, content, stop) {
  if (!streamed) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ id: `msg_${++counter}`, type: 'message', role: 'assistant', model: 'stand-in', content, stop_reason: stop, usage: { input_tokens: 1, output_tokens: 1 } }));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [type, data] of events(content, stop)) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  res.end();
}

const resultText = (result) => (typeof result.content === 'string' ? result.content : (result.content ?? []).map((c) => c.text ?? JSON.stringify(c)).join('\n'));

http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (LOG) fs.appendFileSync(LOG, JSON.stringify({ url: req.url, body }) + '\n');
      if (!req.url?.startsWith('/v1/messages')) return res.writeHead(404).end('{}');
      if (req.url.includes('count_tokens')) return res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":1}');
      const ask = JSON.parse(body || '{}');
      const names = (ask.tools ?? []).map((t) => t.name);
      const last = ask.messages?.at(-1);
      const results = Array.isArray(last?.content) ? last.content.filter((c) => c.type === 'tool_result') : [];
      const tool = names.find((n) => n.includes(TOOL));
      if (results.length) {
        const text = results.map(resultText).join('\n');
        const reply = () => answer(res, ask.stream, [{ type: 'text', text }], 'end_turn');
        if (!HOLD) return reply();
        fs.writeFileSync(`${HOLD}/result.txt`, text);
        const wait = setInterval(() => fs.existsSync(`${HOLD}/release`) && (clearInterval(wait), reply()), 200);
        return;
      }
      // Claude Code also asks small side questions (titles, summaries) with few or no tools.
      if (tool && names.length > 3) return answer(res, ask.stream, [{ type: 'tool_use', id: `toolu_${++counter}`, name: tool, input: ARGS }], 'tool_use');
      answer(res, ask.stream, [{ type: 'text', text: `stand-in: ${names.length} tools` }], 'end_turn');
    });
  })
  .listen(Number(process.env.PORT ?? 0), '127.0.0.1');
