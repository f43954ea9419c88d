import { createInterface } from 'node:readline';
import { Writable, type Readable } from 'node:stream';

export interface ReadSecretOptions {
  input: Readable & { isTTY?: boolean };
  /** Where the prompt goes (stderr): stdout stays for machine output. */
  output: Writable;
  prompt: string;
}

/**
 * Reads one line holding a secret. On a terminal it prompts and echoes nothing; from a pipe it
 * takes the first line. Returns null when nothing was given.
 */
export async function readSecret({ input, output, prompt }: ReadSecretOptions): Promise<string | null> {
  if (input.isTTY) return promptHidden(input, output, prompt);
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    // The first line is all we need; a pipe that stays open must not hang the command.
    if (text.includes('\n')) break;
  }
  const line = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
  return line === '' ? null : line;
}

function promptHidden(input: Readable, output: Writable, prompt: string): Promise<string | null> {
  output.write(prompt);
  // readline echoes what it reads into `output`; a sink that drops everything keeps the key off screen.
  const muted = new Writable({ write: (_chunk, _enc, done) => done() });
  const rl = createInterface({ input, output: muted, terminal: true });
  return new Promise((resolve) => {
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      output.write('\n');
      const value = line.trim();
      resolve(value === '' ? null : value);
    });
    rl.once('close', () => {
      if (!answered) resolve(null);
    });
  });
}
