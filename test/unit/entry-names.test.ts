// Claude Code names a server's tools `mcp__<entry>__<tool>` and refuses a name over 64 characters
// (docs/clients.md). So every entry name we hand out (mcp.json, and the names the README's client
// configurations use) must leave room for the longest tool name, and for the tools docs/design.md, "Tools" plans.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/tools/index.js';

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');

/** Tools docs/design.md, "Tools" names that are not written yet: their names count too. */
const PLANNED = ['recording-filter-options'];
const TOOL_NAMES = [...new Set([...ALL_TOOLS.map((t) => t.name), ...PLANNED])];
const LIMIT = 64;

/** Server names the README configures: JSON entries, `claude/codex mcp add <name>`, TOML tables. */
function readmeEntries(readme: string): string[] {
  const names = new Set<string>();
  // Client entries are the ```json blocks (```jsonc ones are tool arguments with a comment line).
  for (const block of readme.matchAll(/```json\n([\s\S]*?)```/g)) {
    const parsed = JSON.parse(block[1]!) as { mcpServers?: object; servers?: object; mcp?: object };
    for (const name of Object.keys(parsed.mcpServers ?? parsed.servers ?? parsed.mcp ?? {})) names.add(name);
  }
  for (const m of readme.matchAll(/\b(?:claude|codex|gemini) mcp add (?:--?[\w-]+(?:[ =]\S+)? )*([\w-]+)/g)) names.add(m[1]!);
  for (const m of readme.matchAll(/\[mcp_servers\.([\w-]+)\]/g)) names.add(m[1]!);
  return [...names];
}

describe('MCP client entry names', () => {
  const entries = [...Object.keys((JSON.parse(read('mcp.json')) as { mcpServers: object }).mcpServers), ...readmeEntries(read('README.md'))];

  it('are found in mcp.json and the README', () => {
    expect(entries).toEqual(expect.arrayContaining(['posthog-replay', 'posthog-replay-source', 'posthog-replay-tarball']));
  });

  it(`leave every mcp__<entry>__<tool> within ${LIMIT} characters, planned tools included`, () => {
    const tooLong = entries.flatMap((entry) => TOOL_NAMES.map((tool) => `mcp__${entry}__${tool}`)).filter((name) => name.length > LIMIT);
    expect(tooLong).toEqual([]);
  });
});
