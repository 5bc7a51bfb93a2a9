// A PostHog on 127.0.0.1 with one project and the recordings a test hands it, each served as a
// single blob_v2 block: enough for the replay, summary and reproduce tools to read a hostile line.
import { createServer, type Server } from 'node:http';

/** One project and the recordings `bodies` holds (keyed by the id's part before its first '-'). */
export async function startOneBlockUpstream(bodies: Record<string, string | Buffer>): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    res.setHeader('content-type', 'application/json');
    if (!/^Bearer phx_\w+$/.test(req.headers.authorization ?? '')) return void res.writeHead(401).end('{"detail":"bad key"}');
    if (/^\/api\/projects\/?$/.test(url.pathname)) return void res.end(JSON.stringify({ count: 1, next: null, previous: null, results: [{ id: 1, name: 'Shop' }] }));
    const recording = /^\/api\/(?:environments|projects)\/1\/session_recordings\/([^/]+)(\/snapshots)?\/?$/.exec(url.pathname);
    const body = recording && bodies[recording[1]!.split('-')[0]!];
    if (!recording || !body) return void res.writeHead(404).end('{"detail":"Not found."}');
    if (!recording[2]) return void res.end(JSON.stringify({ id: recording[1], start_time: '2026-11-20T10:00:00Z', end_time: '2026-11-20T10:00:01Z', recording_duration: 1, ongoing: false, distinct_id: 'd1' }));
    if (url.searchParams.get('source') === 'blob_v2') return void res.end(body);
    res.end(JSON.stringify({ sources: [{ source: 'blob_v2', blob_key: '0', start_timestamp: '2026-11-20T10:00:00Z', end_timestamp: '2026-11-20T10:00:01Z' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
