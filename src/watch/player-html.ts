import { readFile } from 'node:fs/promises';

/**
 * The recording player's one build, dist/app/player.html (scripts/build-app.mjs): the MCP App's
 * resource and the watch page are the same document.
 */
export function readPlayerHtml(): Promise<string> {
  return (html ??= loadHtml());
}

let html: Promise<string> | undefined;

/** dist/app/player.html; from source (tests), the built copy under dist/. */
async function loadHtml(): Promise<string> {
  const candidates = [new URL('../app/player.html', import.meta.url), new URL('../../dist/app/player.html', import.meta.url)];
  for (const file of candidates) {
    try {
      return await readFile(file, 'utf8');
    } catch {
      // next candidate
    }
  }
  html = undefined;
  throw new Error('The player (dist/app/player.html) was not built: run npm run build.');
}
