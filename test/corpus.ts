// The shared corpus of real rrweb recordings from other projects (never copied into this repo),
// and the facts a test can read from their events on its own, without the digest's code.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/**
 * `REPLAY_CORPUS_DIR`, else the first `shared/corpus/recordings` found going up from the
 * checkout (`../shared/…` from a clone in /work, `../../shared/…` from a worktree in /work/wt).
 */
export function findCorpus(): string | undefined {
  const given = process.env.REPLAY_CORPUS_DIR;
  if (given) return existsSync(given) ? given : undefined;
  let dir = fileURLToPath(new URL('..', import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'shared', 'corpus', 'recordings');
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

export function corpusFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
}

interface Event {
  type: number;
  timestamp: number;
  data?: any;
  cv?: string;
}

interface Node {
  tag?: string;
  attrs: Record<string, unknown>;
  text?: string;
  parent?: number;
  children: number[];
}

export interface Facts {
  events: number;
  clicks: number;
  inputs: number;
  console: { errors: number; warnings: number; logs: number };
  /** page URLs in order of first visit (Meta href, $pageview href) */
  urls: string[];
  /** span of the timestamps within 6 hours of the median one */
  durationMs: number;
  start: number | null;
  frozen: boolean;
  /** texts of the buttons clicked */
  clickedButtons: string[];
  /** clicks on the <html> or <body> element */
  backgroundClicks: number;
  /** bursts of 3+ clicks on one node within a second, with no other click between */
  rageBursts: number;
  /** offsets (ms from `start`) of Input events that carried text */
  inputOffsets: number[];
  /** what was typed into fields (last value per field), where it cannot be found elsewhere in the recording */
  typedValues: string[];
  /** checkable inputs the user checked: radios and checkboxes with isChecked true */
  radiosChecked: number;
}

const inflate = (value: unknown) => (typeof value === 'string' ? JSON.parse(gunzipSync(Buffer.from(value, 'latin1')).toString('utf8')) : value);

/** posthog-js `cv: "2024-10"` compression, undone here with zlib (not the project's decoder). */
function decompressed(event: Event): Event {
  if (!event.cv) return event;
  if (event.type === 2) return { ...event, data: inflate(event.data) };
  if (event.type === 3 && event.data?.source === 0) {
    const data = { ...event.data };
    for (const key of ['adds', 'removes', 'texts', 'attributes']) data[key] = inflate(data[key]);
    return { ...event, data };
  }
  return event;
}

export function readEvents(file: string): Event[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => decompressed(JSON.parse(line) as Event));
}

export function factsOf(events: Event[]): Facts {
  const nodes = new Map<number, Node>();
  const addNode = (node: any, parent: number | undefined) => {
    const stack: Array<[any, number | undefined]> = [[node, parent]];
    while (stack.length > 0) {
      const [n, p] = stack.pop()!;
      if (!n || typeof n.id !== 'number') continue;
      nodes.set(n.id, { tag: typeof n.tagName === 'string' ? n.tagName.toLowerCase() : undefined, attrs: n.attributes ?? {}, text: n.type === 3 ? n.textContent : undefined, parent: p, children: [] });
      if (p !== undefined) nodes.get(p)?.children.push(n.id);
      for (const child of n.childNodes ?? []) stack.push([child, n.id]);
    }
  };
  const textOf = (id: number): string => {
    const node = nodes.get(id);
    if (!node) return '';
    return [node.text ?? '', ...node.children.map(textOf)].join(' ');
  };

  const facts: Facts = { events: events.length, clicks: 0, inputs: 0, console: { errors: 0, warnings: 0, logs: 0 }, urls: [], durationMs: 0, start: null, frozen: false, clickedButtons: [], backgroundClicks: 0, rageBursts: 0, inputOffsets: [], typedValues: [], radiosChecked: 0 };

  const times = events.map((e) => e.timestamp).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  const near = times.filter((t) => Math.abs(t - median) <= 6 * 3600_000);
  facts.start = near[0] ?? null;
  facts.durationMs = near.length > 0 ? near[near.length - 1]! - near[0]! : 0;
  facts.frozen = events.length >= 5 && times[0] === times[times.length - 1];

  const clicks: Array<{ id: number; t: number }> = [];
  const typed = new Map<number, string>();
  const inputTimes: number[] = [];
  for (const e of events) {
    const d = e.data ?? {};
    if (e.type === 4 && typeof d.href === 'string' && d.href && !facts.urls.includes(d.href)) facts.urls.push(d.href);
    if (e.type === 5 && d.tag === '$pageview' && typeof d.payload?.href === 'string' && !facts.urls.includes(d.payload.href)) facts.urls.push(d.payload.href);
    if (e.type === 2) {
      nodes.clear();
      addNode(d.node, undefined);
    }
    if (e.type === 3 && d.source === 0) for (const add of d.adds ?? []) addNode(add.node, add.parentId);
    if (e.type === 3 && d.source === 2 && d.type === 2) {
      facts.clicks++;
      clicks.push({ id: d.id, t: e.timestamp });
      let id: number | undefined = d.id;
      for (let up = 0; id !== undefined && up < 5; up++) {
        const node = nodes.get(id);
        if (node?.tag === 'button') {
          const text = textOf(id).replace(/\s+/g, ' ').trim();
          if (text && !facts.clickedButtons.includes(text)) facts.clickedButtons.push(text);
          break;
        }
        id = node?.parent;
      }
      const tag = nodes.get(d.id)?.tag;
      if (tag === 'html' || tag === 'body') facts.backgroundClicks++;
    }
    if (e.type === 3 && d.source === 5) {
      facts.inputs++;
      const type = nodes.get(d.id)?.attrs.type;
      if ((type === 'radio' || type === 'checkbox') && d.isChecked === true) facts.radiosChecked++;
      if (type !== 'radio' && type !== 'checkbox' && typeof d.text === 'string' && d.text.length > 0) {
        typed.set(d.id, d.text);
        inputTimes.push(e.timestamp);
      }
    }
    const log = e.type === 6 && String(d.plugin).startsWith('rrweb/console') ? d.payload : e.type === 3 && d.source === 11 ? d : undefined;
    if (log) {
      const args: unknown[] = Array.isArray(log.payload) ? log.payload : [];
      if (log.level === 'error' || (log.level === 'assert' && args[0] !== 'true')) facts.console.errors++;
      else if (log.level === 'warn') facts.console.warnings++;
      else facts.console.logs++;
    }
  }
  facts.inputOffsets = inputTimes.map((t) => t - (facts.start ?? 0));

  // What was typed, unless the same text is also the page's own (then its absence proves nothing).
  const elsewhere = JSON.stringify(events.filter((e) => !(e.type === 3 && e.data?.source === 5)));
  facts.typedValues = [...typed.values()].filter((v) => v.length >= 4 && !/^\*+$/.test(v) && !elsewhere.includes(v));

  // Rage bursts: runs of clicks on one node, each within a second of the last, with 3 inside one second.
  let run: number[] = [];
  let runId: number | undefined;
  const close = () => {
    for (let i = 2; i < run.length; i++) {
      if (run[i]! - run[i - 2]! <= 1000) {
        facts.rageBursts++;
        break;
      }
    }
  };
  for (const c of clicks) {
    if (c.id === runId && c.t - run[run.length - 1]! <= 1000) run.push(c.t);
    else {
      close();
      run = [c.t];
      runId = c.id;
    }
  }
  close();
  return facts;
}
