import os from 'node:os';

/** Machine facts every result carries, so figures from different hosts are never confused. */
export function machine() {
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? null,
    total_mem_mb: Math.round(os.totalmem() / 2 ** 20),
  };
}

/** Progress goes to stderr: stdout carries exactly one JSON object. */
export function progress(msg: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

export interface BenchResult {
  bench: string;
  [key: string]: unknown;
}

/** Prints the one JSON result of a benchmark script. */
export function emit(result: BenchResult): void {
  const out = { ...result, machine: machine(), timestamp: new Date().toISOString() };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

/** An integer knob from the environment (for quick trial runs), else the default the docs quote. */
export function intEnv(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
