import { stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './args.ts';

/** The prompt: the command line's, else standard input read to its end (when it is not a terminal). */
export async function promptText(given: string | undefined, stdin: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<string> {
  let text = given;
  if (text === undefined) {
    if (stdin.isTTY) throw new UsageError('no prompt: give it as an argument, or on standard input');
    text = await readAll(stdin).catch((err: Error) => {
      throw new UsageError(`cannot read the prompt from standard input: ${err.message}`);
    });
  }
  if (!text.trim()) throw new UsageError('the prompt is empty');
  return text;
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer | string) => chunks.push(typeof c === 'string' ? Buffer.from(c) : c));
    stream.once('error', reject);
    stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** The directory to run in, absolute; a usage error when it does not exist or is not a directory. */
export async function runDirectory(given: string | undefined, processCwd: string): Promise<string> {
  const dir = path.resolve(processCwd, given ?? '.');
  const st = await stat(dir).catch(() => null);
  if (!st?.isDirectory()) throw new UsageError(`no such directory: ${given ?? dir}`);
  return dir;
}
