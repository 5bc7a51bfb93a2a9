import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const t = new StdioClientTransport({ command: 'node', args: ['dist/cli.js', '--sandbox'], stderr: 'pipe', cwd: '/work/main' });
const c = new Client({ name: 'm', version: '1' });
await c.connect(t);
const tools = (await c.listTools()).tools;
console.log('tools', tools.length, JSON.stringify(tools).length);
const call = async (name, args) => { const r = await c.callTool({ name, arguments: args }); const text = r.content.filter(x=>x.type==='text').map(x=>x.text).join('\n'); const s = r.structuredContent ? JSON.stringify(r.structuredContent).length : 0; console.log(name.padEnd(36), 'text', String(text.length).padStart(6), 'struct', String(s).padStart(6), 'ratio', (s/text.length).toFixed(2), r.isError ? 'ERR '+text.slice(0,200) : ''); return r; };
const projects = await call('projects-list', {});
const pid = String(projects.structuredContent.results[0].id);
await call('project-get', { id: Number(pid) });
const list = await call('session-recordings-list', { project_id: pid, limit: 20, date_from: '-30d' });
const id = list.structuredContent.results[0].id;
await call('session-recordings-list', { project_id: pid, limit: 5, date_from: '-30d', include_person_properties: true });
await call('session-recording-get', { project_id: pid, id });
await call('session-recording-summary', { project_id: pid, id });
await call('session-recordings-triage', { project_id: pid, date_from: '-30d' });
await call('session-recording-snapshots', { project_id: pid, id });
await call('session-recording-properties', { project_id: pid, session_ids: [id] });
await call('session-recording-matching-events', { project_id: pid, session_id: id, events: [{id:'$pageview'}] });
await call('session-recording-reproduce', { project_id: pid, id });
await call('session-recording-replay', { project_id: pid, id });
await call("recording-filter-options", { project_id: pid });
await call("recording-filter-options", { project_id: pid, kind: "person_properties" });

if (process.argv[2]) { const r = await c.callTool({ name: process.argv[2], arguments: JSON.parse(process.argv[3]||'{}') }); console.log(r.content.map(x=>x.text).join('\n---\n')); console.log(JSON.stringify(r.structuredContent, null, 1)); }
await c.close();
