import { createInterface } from 'node:readline';
import { Writable, type Readable } from 'node:stream';

export interface ReadSecretOptions {
  input: Readable & { isTTY?: boolean };
  /** Where the prompt goes (stderr): stdout stays for machine output. */
  output: Writable;
  prompt: string;
  /** Aborting it (SIGTERM, a second Ctrl-C) cancels the prompt. */
  signal?: AbortSignal;
}

/**
 * What reading a secret gave: a value; nothing (an empty line, an empty pipe, end of input),
 * with `interactive` telling a terminal from a pipe; or a cancel (Ctrl-C at the prompt).
 */
export type SecretAnswer =
  | { kind: 'value'; value: string }
  | { kind: 'empty'; interactive: boolean }
  | { kind: 'cancelled' };

/**
 * Reads one line holding a secret. On a terminal it prompts and echoes nothing; from a pipe it
 * takes the first line.
 */
export async function readSecret({ input, output, prompt, signal }: ReadSecretOptions): Promise<SecretAnswer> {
  if (input.isTTY) return promptHidden(input, output, prompt, signal);
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    // The first line is all we need; a pipe that stays open must not hang the command.
    if (text.includes('\n')) break;
  }
  const line = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
  return line === '' ? { kind: 'empty', interactive: false } : { kind: 'value', value: line };
}

function promptHidden(input: Readable, output: Writable, prompt: string, signal?: AbortSignal): Promise<SecretAnswer> {
  output.write(prompt);
  // readline echoes what it reads into `output`; a sink that drops everything keeps the key off screen.
  const muted = new Writable({ write: (_chunk, _enc, done) => done() });
  const rl = createInterface({ input, output: muted, terminal: true });
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: SecretAnswer): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      rl.close();
      output.write('\n');
      resolve(answer);
    };
    const onAbort = (): void => settle({ kind: 'cancelled' });
    rl.once('line', (line) => {
      const value = line.trim();
      settle(value === '' ? { kind: 'empty', interactive: true } : { kind: 'value', value });
    });
    // In raw mode Ctrl-C reaches readline as a key, not as a signal to the process.
    rl.once('SIGINT', () => settle({ kind: 'cancelled' }));
    // End of input (Ctrl-D) without a line: nothing typed.
    rl.once('close', () => settle({ kind: 'empty', interactive: true }));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
