import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createClient } from '@redis/client';
import { freeLoopbackPort } from './ports.js';

/** Debian's redis-server, when installed (.ci/run installs it; elsewhere the Redis tests skip, saying so). */
export const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((path) => spawnSync(path, ['--version']).status === 0);

export interface RedisProcess {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Stops the process answering (SIGSTOP): connections stay open, nothing comes back. */
  freeze(): void;
  /** Lets it answer again (SIGCONT). */
  thaw(): void;
  /** Makes it forget everything without restarting (FLUSHALL), as an eviction or a flush would. */
  flush(): Promise<void>;
}

/** A throwaway redis-server on a free loopback port, no persistence; stopped by stop(). */
export async function startRedis(port?: number): Promise<RedisProcess> {
  if (!REDIS_SERVER) throw new Error('redis-server is not installed');
  const chosen = port ?? (await freeLoopbackPort());
  const child: ChildProcess = spawn(REDIS_SERVER, ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output.slice(-500)}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${output.slice(-500)}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
    flush: async () => {
      const admin = createClient({ url: `redis://127.0.0.1:${chosen}` });
      await admin.connect();
      try {
        await admin.flushAll();
      } finally {
        admin.destroy();
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
