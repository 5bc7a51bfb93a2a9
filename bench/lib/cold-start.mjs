// Cold start over stdio, as an MCP client sees it: from spawning the server to the complete
// tools/list answer, with the initialize handshake in between. Plain JSON-RPC lines, so the
// driver costs the same for every server measured.

import { spawn } from 'node:child_process';
import { cpuTreeTime } from './cpu.mjs';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
};
const TIMEOUT_MS = 20_000;

/**
 * One cold start of `command args` with `env` (in `cwd`, default the bench's). Resolves with the
 * milliseconds to the tools/list answer, the CPU time of the process and its descendants up to
 * then (see cpu.mjs; a launcher such as npx and the server it started) and that answer's raw line;
 * the server is stopped and reaped before it resolves.
 */
export function coldStart({ command, args, env, cwd }) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let result;
    const timer = setTimeout(() => fail(new Error(`no tools/list answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    function fail(error) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${[command, ...args].join(' ')}: ${error.message}${err ? `\nstderr: ${err.slice(-2000)}` : ''}`));
    }
    child.on('error', fail);
    child.stderr.on('data', (chunk) => {
      if (err.length < 20_000) err += chunk;
    });
    child.stdout.on('data', (chunk) => {
      out += chunk;
      let newline;
      while ((newline = out.indexOf('\n')) !== -1) {
        const line = out.slice(0, newline);
        out = out.slice(newline + 1);
        let message;
        try {
          message = JSON.parse(line);
        } catch {
          return fail(new Error(`stdout carried a line that is not JSON-RPC: ${line.slice(0, 200)}`));
        }
        if (message.id === 1) {
          if (message.error) return fail(new Error(`initialize failed: ${JSON.stringify(message.error)}`));
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
        } else if (message.id === 2) {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          const cpu = cpuTreeTime(child.pid);
          if (message.error) return fail(new Error(`tools/list failed: ${JSON.stringify(message.error)}`));
          result = { ms, cpuMs: cpu?.runMs, line };
          clearTimeout(timer);
          child.stdin.end();
          child.kill('SIGTERM');
        }
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      if (result) resolve(result);
      else fail(new Error('exited before answering tools/list'));
    });
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  });
}
