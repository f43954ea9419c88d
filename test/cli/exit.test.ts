import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit.js';
import { ApiError, CamrollError, InterruptedError, UsageError } from '../../src/errors.js';

describe('exitCodeFor', () => {
  it.each([
    ['usage error', new UsageError('bad flag'), 2],
    ['commander usage error', new CommanderError(1, 'commander.unknownOption', 'x'), 2],
    ['help', new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'), 0],
    ['help command', new CommanderError(0, 'commander.help', '(outputHelp)'), 0],
    ['help for a missing command', new CommanderError(1, 'commander.help', '(outputHelp)'), 2],
    ['interrupt', new InterruptedError(), 130],
    ['api error', new ApiError(500, 'internal_error', 'boom'), 1],
    ['other camroll error', new CamrollError('x', 'y'), 1],
    ['plain error', new Error('z'), 1],
  ])('%s', (_name, error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });
});
