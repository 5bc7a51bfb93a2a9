// Starts the sandbox with a long synthetic recording (the real checkout recording N times over)
// in its own process, so a benchmark measures the server's memory, not the sandbox's.
// Prints one line of JSON: { url, apiKey, recordingId, projectId, blocks, bytes }, where bytes is
// the JSONL the recording's blocks serve (the first copy measured, times the number of copies).
import { BIG_RECORDING_ID, DEMO, startSandbox } from '../dist/sandbox/index.js';

const copies = Number(process.argv[2] ?? 1700);
// Two copies to a block: 1,700 copies in 850 blocks, 41 block requests, inside the 60 upstream
// requests one reading of one recording may make (src/posthog/snapshots.ts).
const copiesPerBlock = Number(process.argv[3] ?? 2);
const sandbox = await startSandbox({ bigRecording: { copies, copiesPerBlock } });
const base = `${sandbox.url}/api/projects/${DEMO.mainProjectId}/session_recordings/${BIG_RECORDING_ID}/snapshots/`;
const headers = { authorization: `Bearer ${sandbox.apiKey}` };
const { sources } = await (await fetch(base, { headers })).json();
const perGroup = sources.length / Math.ceil(copies / copiesPerBlock);
const first = await (await fetch(`${base}?source=blob_v2&start_blob_key=0&end_blob_key=${perGroup - 1}`, { headers })).arrayBuffer();
const info = { url: sandbox.url, apiKey: sandbox.apiKey, recordingId: BIG_RECORDING_ID, projectId: DEMO.mainProjectId, blocks: sources.length, bytes: (first.byteLength / Math.min(copies, copiesPerBlock)) * copies };
process.stdout.write(`${JSON.stringify(info)}\n`);
process.on('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
