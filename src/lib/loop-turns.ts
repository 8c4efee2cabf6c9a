/**
 * Takes turns with the event loop for bursts of heavy work. Each caller resumes in a loop iteration
 * of its own, one per iteration, so the I/O that became ready meanwhile (model answers, journal
 * commits, other sockets) is handled between two callers instead of after all of them.
 *
 * Why: when 20 prompts arrive together their POSTs are parsed in one poll phase, and without this
 * each intake (about 0.8 ms of CPU) ran straight after the other; the model answers of the first
 * sessions, long there, waited for the whole burst, and so did every session's first delta
 * (bench/prompt-latency.ts). An immediate queued from the check phase runs in the next iteration,
 * after a poll, which is what makes the turns interleave with I/O.
 */
const waiting: Array<() => void> = [];
let scheduled = false;

export function takeLoopTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    schedule();
  });
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(runOne);
}

function runOne(): void {
  scheduled = false;
  waiting.shift()?.();
  if (waiting.length) schedule();
}
