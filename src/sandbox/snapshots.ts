// GET …/session_recordings/{id}/snapshots/: the sources listing, then content per source
// (blob_v2 block ranges, blob_v2_lts; in the 2024 API also legacy v1 blob and realtime), with
// PostHog's errors.

import { createHash } from 'node:crypto';
import type { LiveRecording } from './demo/dataset.js';
import { errors, json, type Reply } from './http.js';
import { deletedRecordingBody } from './recordings.js';
import type { RequestContext, SandboxApi } from './state.js';
import { drfDate } from './util.js';

/** B − A may be at most 20 for personal API keys, i.e. up to 21 blocks per call. */
const MAX_BLOCK_SPAN = 20;
/** Today's PostHog knows only the v2 sources; the 2024 API also had v1 blobs and realtime. */
const VALID_SOURCES: Record<SandboxApi, readonly string[]> = {
  today: ['blob_v2', 'blob_v2_lts'],
  '2024': ['blob_v2', 'blob_v2_lts', 'blob', 'realtime'],
};

/**
 * How a recording is stored in this API. Today's PostHog has no v1 blobs: an old recording
 * survives only as its long-term copy (one blob_v2_lts file). The ongoing recording keeps its
 * storage: blocks, plus a realtime tail that only the 2024 API serves.
 */
function storageIn(rec: LiveRecording, api: SandboxApi): LiveRecording['seed']['storage'] {
  return api === 'today' && rec.seed.storage === 'blob' ? 'blob_v2_lts' : rec.seed.storage;
}

export function snapshots(ctx: RequestContext, projectId: number, id: string): Reply {
  const { state, query } = ctx;
  const api = ctx.options.api;
  const gone = state.recordings().get(id)?.seed.projectId === projectId ? deletedRecordingBody(state, id) : undefined;
  if (gone) return json(410, gone);
  const rec = state.recording(projectId, id);
  if (!rec) throw errors.recordingNotFound();

  const source = query.source;
  if (source === undefined) return json(200, { sources: listing(rec, api) });
  if (!VALID_SOURCES[api].includes(source)) throw errors.validation('Invalid source must be one of [blob_v2, blob_v2_ts, None]');
  switch (source) {
    case 'blob_v2':
      return blobV2(rec, query);
    case 'blob_v2_lts':
      return lts(rec, query.blob_key, api);
    case 'blob':
      return legacyBlob(rec, query.blob_key);
    default:
      return realtime(rec, query.version);
  }
}

function listing(rec: LiveRecording, api: SandboxApi): Array<Record<string, unknown>> {
  switch (storageIn(rec, api)) {
    case 'blob_v2_lts':
      return [{ source: 'blob_v2_lts', start_timestamp: null, end_timestamp: null, blob_key: rec.ltsKey }];
    case 'blob':
      return rec.legacyBlobs().map((b) => ({ source: 'blob', start_timestamp: drfDate(b.startMs), end_timestamp: drfDate(b.endMs), blob_key: b.key }));
    default: {
      const sources: Array<Record<string, unknown>> = rec
        .blocks()
        .map((b, i) => ({ source: 'blob_v2', start_timestamp: drfDate(b.startMs), end_timestamp: drfDate(b.endMs), blob_key: String(i) }));
      if (rec.seed.storage === 'blob_v2+realtime' && api === '2024') {
        sources.push({ source: 'realtime', start_timestamp: drfDate(rec.realtimeStartMs()), end_timestamp: null, blob_key: null });
      }
      return sources;
    }
  }
}

function blobV2(rec: LiveRecording, query: Record<string, string>): Reply {
  const start = query.start_blob_key;
  const end = query.end_blob_key;
  if (!start || !end) throw errors.validation('Must provide both start blob key and end blob key');
  if (!/^-?\d+$/.test(start.trim()) || !/^-?\d+$/.test(end.trim())) throw errors.validation('Blob keys must be integers');
  const a = Number.parseInt(start, 10);
  const b = Number.parseInt(end, 10);
  if (b - a > MAX_BLOCK_SPAN) throw errors.validation(`Cannot request more than ${MAX_BLOCK_SPAN} blob keys at once`);
  if (a > b) throw errors.validation('start_blob_key must not be greater than end_blob_key');
  const blocks = rec.blocks();
  if (a < 0 || b >= blocks.length) throw errors.notFound('Block index out of range');
  const bodies = blocks.slice(a, b + 1).map((block) => block.body());
  const headers = { 'Content-Disposition': 'inline', 'Cache-Control': 'max-age=3600' };
  if (query.decompress === 'false') {
    return { status: 200, body: Buffer.concat(bodies.map(framedSnappy)), contentType: 'application/octet-stream', headers };
  }
  return { status: 200, body: bodies.join('').replace(/\n$/, ''), contentType: 'application/jsonl', headers };
}

function lts(rec: LiveRecording, key: string | undefined, api: SandboxApi): Reply {
  if (!key) throw errors.validation('Must provide a blob key');
  if (storageIn(rec, api) !== 'blob_v2_lts' || key !== rec.ltsKey) throw errors.notFound('Snapshot file not found');
  return { status: 200, body: rec.ltsBody(), contentType: 'application/jsonl', headers: { 'Content-Disposition': 'inline', 'Cache-Control': 'max-age=86400' } };
}

function legacyBlob(rec: LiveRecording, key: string | undefined): Reply {
  if (!key) throw errors.validation('Must provide a blob key');
  const blob = rec.legacyBlobs().find((b) => b.key === key);
  if (!blob) throw errors.notFound('Snapshot file not found');
  const body = blob.body();
  return {
    status: 200,
    body,
    contentType: 'application/json',
    headers: { ETag: `"${createHash('md5').update(body).digest('hex')}"`, 'Cache-Control': 'max-age=3600' },
  };
}

function realtime(rec: LiveRecording, version: string | undefined): Reply {
  if (version === '2024-04-30') {
    return { status: 200, body: rec.realtimeLegacyLines().join('\n'), contentType: 'application/json', headers: { 'Cache-Control': 'no-store' } };
  }
  const snapshots = rec.realtimeEvents().map(({ windowId, event }) => ({ windowId, ...event }));
  return json(200, { snapshots }, { 'Cache-Control': 'no-store' });
}

/**
 * One block as PostHog serves it with decompress=false: a 4-byte big-endian length, then the
 * block in snappy's raw format. The sandbox stores blocks uncompressed, so it writes snappy
 * literal chunks only, which every snappy decoder accepts.
 */
function framedSnappy(text: string): Buffer {
  const data = Buffer.from(text, 'utf8');
  const parts: Buffer[] = [varint(data.length)];
  for (let offset = 0; offset < data.length; offset += 65_536) {
    const chunk = data.subarray(offset, offset + 65_536);
    const n = chunk.length - 1;
    if (n < 60) parts.push(Buffer.from([n << 2]));
    else if (n < 256) parts.push(Buffer.from([60 << 2, n]));
    else parts.push(Buffer.from([61 << 2, n & 0xff, n >> 8]));
    parts.push(chunk);
  }
  const block = Buffer.concat(parts);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(block.length);
  return Buffer.concat([length, block]);
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n >= 0x80) {
    bytes.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  bytes.push(n);
  return Buffer.from(bytes);
}
