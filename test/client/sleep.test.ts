import { describe, expect, it } from 'vitest';
import { abortableSleep } from '../../src/client/sleep.js';
import { InterruptedError } from '../../src/errors.js';

describe('abortableSleep', () => {
  it('resolves after the wait', async () => {
    await expect(abortableSleep(5)).resolves.toBeUndefined();
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(abortableSleep(60_000, controller.signal)).rejects.toBeInstanceOf(InterruptedError);
  });

  it('stops a long wait when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = abortableSleep(60_000, controller.signal);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(InterruptedError);
  });
});
