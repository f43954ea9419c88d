import { existsSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCamroll, tempHome } from './helpers/camroll.js';

describe('serve where it cannot listen', () => {
  const home = tempHome();
  afterAll(() => rmSync(home.dir, { recursive: true, force: true }));

  it('a taken port: names the port and the fix (another --port, or 0), exit 1, nothing about a bug', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const result = await runCamroll(
        ['serve', '--host', '127.0.0.1', '--port', String(port), '--db', join(home.dir, 'taken.db')],
        { env: home.env },
      );
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).not.toContain('listening on');
      expect(result.stderr).toBe(
        `camroll: cannot listen on 127.0.0.1:${port}: port ${port} is already in use [address_in_use]\n` +
          `  another program listens on port ${port} (another camroll serve?): pick another --port, or --port 0 for ` +
          `a free one\n`,
      );
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it("an address that is not this machine's (EADDRNOTAVAIL): says so and what --host takes", async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of a test machine, so nothing listens anywhere.
    const result = await runCamroll(['serve', '--host', '192.0.2.1', '--port', '0', '--db', ':memory:'], {
      env: home.env,
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toBe(
      'camroll: cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine [address_unavailable]\n' +
        '  --host must be an address of this machine: 127.0.0.1 for this machine only, 0.0.0.0 for every interface\n',
    );
    expect(existsSync(join(home.dir, 'data', 'camroll', 'service.db'))).toBe(false);
  });
});
