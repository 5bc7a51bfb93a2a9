// Starts the sandbox with a long synthetic recording (the real checkout recording N times over)
// in its own process, so a benchmark measures the server's memory, not the sandbox's.
// Prints one line of JSON: { url, apiKey, recordingId, projectId, blocks, bytes }, where bytes is
// the JSONL the recording's blocks serve (the first copy measured, times the number of copies).
import { BIG_RECORDING_ID, DEMO, startSandbox } from '../dist/sandbox/index.js';

const copies = Number(process.argv[2] ?? 1700);
const sandbox = await startSandbox({ bigRecording: { copies } });
const base = `${sandbox.url}/api/projects/${DEMO.mainProjectId}/session_recordings/${BIG_RECORDING_ID}/snapshots/`;
const headers = { authorization: `Bearer ${sandbox.apiKey}` };
const { sources } = await (await fetch(base, { headers })).json();
const perCopy = sources.length / copies;
const first = await (await fetch(`${base}?source=blob_v2&start_blob_key=0&end_blob_key=${perCopy - 1}`, { headers })).arrayBuffer();
const info = { url: sandbox.url, apiKey: sandbox.apiKey, recordingId: BIG_RECORDING_ID, projectId: DEMO.mainProjectId, blocks: sources.length, bytes: first.byteLength * copies };
process.stdout.write(`${JSON.stringify(info)}\n`);
process.on('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
