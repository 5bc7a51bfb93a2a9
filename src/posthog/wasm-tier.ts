/**
 * Keeps WebAssembly on V8's baseline compiler (Liftoff) in the server's process.
 *
 * undici's HTTP parser (llhttp) is WebAssembly. After a handful of requests V8 recompiles its
 * hot, very large parse function with its optimizing compiler (TurboFan) on a background thread:
 * that takes about 35 MB for a moment and keeps about 9 MB (a bare undici pool after four small
 * requests: 98 MB peak and 72 MB after, against 63 MB and 63 MB with this; bench/README.md, "Peak
 * memory"). It was the largest single part of the digest's peak once the worker fetched its own
 * blocks. The parser's share of a request's work is small: the baseline code costs a few
 * microseconds a request. The sandbox's HogQL parser (WebAssembly too) stays on Liftoff as well.
 *
 * A V8 flag set at run time, which Node cautions may behave unpredictably for code V8 already
 * runs: this one is read when a WebAssembly module is compiled, and cli.ts sets it before any is.
 */
export function keepWasmOnBaselineCompiler(): void {
  process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
}
