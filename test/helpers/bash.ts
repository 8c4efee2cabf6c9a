import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, turnEnded, type EngineEnv } from './engine.ts';

/** The nth turn of the session: the model calls Bash with `args` (call id `b<n>`); returns its tool.result payload. */
export async function runBash(env: EngineEnv, args: Record<string, unknown>, n = 1): Promise<any> {
  const id = `b${n}`;
  env.llm.setScript({ events: [{ tool_call: { id, name: 'Bash', args } }] }, scripts.helloText);
  await prompt(env, 'run');
  await turnEnded(env, n, 30_000);
  return (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === id)!.payload;
}

/** Whether a process (or, with a negative pid, a process group) still exists. */
export const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };
