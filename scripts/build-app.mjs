// Run by `npm run build`: bundles the recording player (src/app/) into ONE self-contained HTML
// document, dist/app/player.html: rrweb's replayer and our code (the MCP Apps bridge included), minified,
// with its styles inlined. Nothing in it is fetched from anywhere.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { build } from 'esbuild';
import { createHash } from 'node:crypto';

const root = new URL('../', import.meta.url);
const at = (path) => new URL(path, root);

const options = {
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
  minify: true,
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
};
// Two scripts: the player's (our code and the host bridge) runs first and connects; rrweb's
// replayer (nearly all the bytes) is compiled next, while the host answers (src/app/replayer.ts).
const [script, replayer] = await Promise.all(
  ['src/app/main.ts', 'src/app/replayer.ts'].map(async (entry) => (await build({ ...options, entryPoints: [at(entry).pathname] })).outputFiles[0].text),
);
const styles = (await readFile(at('node_modules/rrweb/dist/style.min.css'), 'utf8')) + (await readFile(at('src/app/styles.css'), 'utf8'));
const template = await readFile(at('src/app/index.html'), 'utf8');
// Inside an inline <script>, "</script" would close it early; "<\/script" means the same in JS.
const safe = (code) => code.replace(/<\/(script)/gi, '<\\/$1');
const html = template
  .replace('/*STYLES*/', () => styles.replace(/<\/(style)/gi, '<\\/$1'))
  .replace('/*SCRIPT*/', () => safe(script))
  .replace('/*REPLAYER*/', () => safe(replayer));
// The player's own Content-Security-Policy, as a meta tag before any script: a host that ignores
// the resource's declared `_meta.ui.csp` still cannot make the viewer (or the recorded page it
// rebuilds, an about:blank frame that inherits this policy) fetch anything from outside. Only
// these inline scripts run (by hash); images, fonts and media only from data: and blob: URLs.
const hash = (code) => `'sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}'`;
const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
const policy = [
  "default-src 'none'",
  `script-src ${scripts.map(hash).join(' ')}`,
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  'font-src data:',
  'media-src data: blob:',
  'worker-src blob:',
  "connect-src 'none'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');
if (!html.includes('<meta charset="utf-8">')) throw new Error('src/app/index.html lost its <meta charset="utf-8">: the CSP goes right after it');
const withPolicy = html.replace('<meta charset="utf-8">', () => `<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="${policy}">`);
await mkdir(at('dist/app/'), { recursive: true });
await writeFile(at('dist/app/player.html'), withPolicy);
