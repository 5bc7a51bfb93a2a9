// Reads the suite's per-scenario results and prints one line per scenario and a closing count,
// with the scenarios baseline.yml names as not applicable counted as skipped (not as passed).
// Usage: node summary.mjs <results dir> <baseline.yml>
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';

const [resultsDir, baselineFile] = process.argv.slice(2);
const notApplicable = new Set(YAML.parse(readFileSync(baselineFile, 'utf8')).server ?? []);
const counts = { passed: 0, failed: 0, skipped: 0 };
for (const dir of readdirSync(resultsDir).sort()) {
  const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
  const checks = JSON.parse(readFileSync(join(resultsDir, dir, 'checks.json'), 'utf8'));
  const ok = checks.length > 0 && checks.every((c) => c.status === 'SUCCESS');
  let outcome;
  if (notApplicable.has(scenario)) outcome = ok ? 'failed' : 'skipped'; // passing while listed: a stale entry
  else outcome = ok ? 'passed' : 'failed';
  counts[outcome]++;
  const note = outcome === 'skipped' ? 'not applicable (baseline.yml)' : outcome === 'failed' && ok ? 'passes but is listed in baseline.yml' : checks.filter((c) => c.status !== 'SUCCESS').map((c) => c.errorMessage ?? c.status).join('; ');
  console.log(`  ${outcome.padEnd(7)} ${scenario}${note ? `: ${note}` : ''}`);
}
console.log(`conformance: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exitCode = counts.failed > 0 ? 1 : 0;
