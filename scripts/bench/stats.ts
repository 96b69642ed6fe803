export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const median = (samples: number[]) => percentile(samples, 50);

export const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Times `runs` calls of `fn` after `warmup` untimed ones, in milliseconds. */
export async function time(runs: number, warmup: number, fn: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const started = performance.now();
    await fn();
    if (i >= warmup) samples.push(performance.now() - started);
  }
  return samples;
}
