// CPU time a process has used, all its threads (V8's compiler and GC threads too), from Linux's
// /proc/<pid>/task/*/schedstat: nanoseconds on a CPU, and nanoseconds runnable but waiting for
// one. On a shared 2-core machine wall-clock medians move with other people's load; CPU time
// moves much less, so the bench reports both. Undefined where /proc is not there.
// cpuTreeTime adds the process's living descendants: a launcher (npx) and the server it started.

import { readdirSync, readFileSync } from 'node:fs';

export function cpuTime(pid) {
  if (pid === undefined) return undefined;
  try {
    let run = 0;
    let wait = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const [onCpu, waiting] = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ').map(Number);
      run += onCpu;
      wait += waiting;
    }
    return { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return undefined;
  }
}

export function cpuTreeTime(pid) {
  const own = cpuTime(pid);
  if (!own) return undefined;
  for (const child of childrenOf(pid)) {
    const sub = cpuTreeTime(child);
    if (sub) {
      own.runMs += sub.runMs;
      own.waitMs += sub.waitMs;
    }
  }
  return own;
}

function childrenOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}
