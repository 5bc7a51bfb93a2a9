// Order statistics for timings: medians and spreads, never means (a 2-core machine shared with
// other work has long tails).

export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

export const median = (values) => quantile(values, 0.5);

/** "312.4 ms (p25–p75 301.2–330.0)" */
export function spread(values, unit, digits = 1) {
  return `${median(values).toFixed(digits)} ${unit} (p25–p75 ${quantile(values, 0.25).toFixed(digits)}–${quantile(values, 0.75).toFixed(digits)}, n=${values.length})`;
}

export const ratio = (a, b) => `${(a / b).toFixed(2)}x`;

export const percent = (a, b) => `${((100 * a) / b).toFixed(1)}%`;

/** Every item of `runners` once per round, the starting one rotating, so drift hits each alike. */
export async function interleave(rounds, runners) {
  const samples = runners.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < runners.length; k++) {
      const index = (round + k) % runners.length;
      samples[index].push(await runners[index]());
    }
  }
  return samples;
}
