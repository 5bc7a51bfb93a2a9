// Run by `npm run build` after tsc: bundles the server's entry, dist/cli.js (the package's bin),
// into one file with the MCP SDK, zod and undici inlined, and the recordings tools' worker entry
// (digests, reproductions, long lines), dist/tools/recordings/worker.js, likewise. Node then reads
// and links one module at start-up instead of some 200 (our modules, the SDK's, zod's); that, not
// minifying, is what makes it start faster.
// What the first answer does not need stays behind dynamic imports, which become chunks beside
// cli.js (dist/cli-*.js) loaded on first use: the sandbox, the HTTP transport, the digest runner,
// the digest's text renderer, undici.
//
// tsc's own output stays in dist/ beside the bundle (tests, the benchmarks and listing-build.ts
// import it), so every module's files are where tsc put them: `import.meta.url` in our sources is
// rewritten to the URL of the file tsc emitted for that module, and the files found relative to it
// (dist/tools/listing.json, dist/app/player.html, dist/tools/recordings/worker.js,
// fixtures/recordings/) resolve as they do unbundled.
//
// Kept out of the bundle, loaded from node_modules on first use: @posthog/hogql-parser (sandbox
// only; a large WebAssembly module) and @redis/client (only with MCP_DIGEST_CACHE=redis).
import { readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = `${ROOT}src/`;
const EXTERNAL = ['@posthog/hogql-parser', '@redis/client'];

/** `import.meta.url` in src/a/b.ts becomes the URL of dist/a/b.js, from an output file `depth` folders below dist/. */
function tscLocations(depth) {
  const up = depth === 0 ? './' : '../'.repeat(depth);
  return {
    name: 'tsc-locations',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const emitted = relative(SRC, args.path).split('\\').join('/').replace(/\.ts$/, '.js');
        return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(up + emitted)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/**
 * A dynamic `import('undici')` of the bundled CommonJS module would offer only a default export
 * (Node itself finds the named ones); this module names every export undici has, as Node does.
 */
const require = createRequire(import.meta.url);
const undiciNamed = {
  name: 'undici-named-exports',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, (args) => (args.namespace === 'undici-named' ? undefined : { path: 'undici', namespace: 'undici-named' }));
    b.onLoad({ filter: /.*/, namespace: 'undici-named' }, () => {
      const names = Object.keys(require('undici')).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default');
      return { contents: `import undici from ${JSON.stringify(require.resolve('undici'))};\nexport default undici;\nexport const { ${names.join(', ')} } = undici;\n`, resolveDir: ROOT };
    });
  },
};

/**
 * zod's namespace exports every locale's error messages (a third of the bundle's zod); the server
 * speaks English, zod's default, and never switches locale.
 */
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  // CommonJS dependencies (undici) call require() for Node's built-ins; an ES module has none.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);" },
};

// Chunk names carry a content hash: the last build's are removed, not left to pile up.
for (const file of await readdir(`${ROOT}dist`).catch(() => [])) {
  if (/^cli-.*\.js(\.map)?$/.test(file)) await rm(`${ROOT}dist/${file}`);
}

await build({
  ...common,
  entryPoints: { cli: `${SRC}cli.ts` },
  outdir: `${ROOT}dist`,
  splitting: true,
  chunkNames: 'cli-[name]-[hash]',
  plugins: [tscLocations(0), undiciNamed, englishOnlyZod],
});

await build({
  ...common,
  entryPoints: { worker: `${SRC}tools/recordings/worker.ts` },
  outdir: `${ROOT}dist/tools/recordings`,
  plugins: [tscLocations(2), undiciNamed, englishOnlyZod],
});
