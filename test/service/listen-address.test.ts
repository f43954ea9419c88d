import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { everyInterfaceWarning } from '../../src/cli/commands/serve.js';
import { describeFailure } from '../../src/cli/exit.js';
import { advertisedHost, isWildcardHost, listenErrorFrom } from '../../src/service/listen-address.js';

const nic = (address: string, family: 'IPv4' | 'IPv6', internal: boolean): NetworkInterfaceInfo =>
  ({
    address,
    family,
    internal,
    netmask: '',
    mac: '00:00:00:00:00:00',
    cidr: null,
    ...(family === 'IPv6' ? { scopeid: 0 } : {}),
  }) as NetworkInterfaceInfo;

describe('the URL serve prints', () => {
  const machine = {
    lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)],
    eth0: [nic('fe80::1', 'IPv6', false), nic('10.1.2.3', 'IPv4', false)],
  };

  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '[::1]'],
    ['localhost', 'localhost'],
    ['0.0.0.0', '10.1.2.3'],
    ['::', '10.1.2.3'],
  ])('--host %s prints %s', (host, printed) => {
    expect(advertisedHost(host, machine)).toBe(printed);
  });

  it('for a wildcard on a machine with only loopback, 127.0.0.1', () => {
    expect(advertisedHost('0.0.0.0', { lo: machine.lo })).toBe('127.0.0.1');
  });

  it('knows the wildcards, and warns about plain HTTP on every interface', () => {
    expect(['0.0.0.0', '::', '[::]'].every(isWildcardHost)).toBe(true);
    expect(['127.0.0.1', '::1', '10.1.2.3'].some(isWildcardHost)).toBe(false);
    expect(everyInterfaceWarning('0.0.0.0')).toBe(
      'camroll: warning: listening on every interface (0.0.0.0) in plain HTTP: anyone who can reach this machine can ' +
        'call the service, ' +
        'and keys and metadata cross the network unencrypted; --host 127.0.0.1 serves this machine only',
    );
  });
});

describe('a failure to listen', () => {
  const failure = (code: string, host: string, port: number): string | null => {
    const error = listenErrorFrom(Object.assign(new Error(`listen ${code}`), { code, syscall: 'listen' }), host, port);
    return error === null ? null : describeFailure(error, 'serve');
  };

  it('a taken port: the port and the fix, not a bug report', () => {
    expect(failure('EADDRINUSE', '127.0.0.1', 8787)).toBe(
      'camroll: cannot listen on 127.0.0.1:8787: port 8787 is already in use [address_in_use]\n' +
        '  another program listens on port 8787 (another camroll serve?): pick another --port, or --port 0 for a ' +
        'free one\n',
    );
  });

  it('a privileged port (EACCES), and a permission denied elsewhere', () => {
    expect(failure('EACCES', '0.0.0.0', 80)).toBe(
      'camroll: cannot listen on 0.0.0.0:80: port 80 needs privileges (ports below 1024 are reserved) ' +
        '[address_forbidden]\n' +
        '  pick a port from 1024 up (the default is 8787), or --port 0 for a free one\n',
    );
    // Above 1024 (a reserved range on Windows, a security policy): not "pick a port from 1024 up".
    expect(failure('EACCES', '127.0.0.1', 8080)).toBe(
      'camroll: cannot listen on 127.0.0.1:8080: permission denied (EACCES) [address_forbidden]\n' +
        '  the system does not let camroll listen on port 8080: pick another --port, or --port 0 for a free one\n',
    );
  });

  it("an address that is not this machine's (EADDRNOTAVAIL), in brackets for IPv6", () => {
    expect(failure('EADDRNOTAVAIL', 'fd00::5', 8787)).toBe(
      'camroll: cannot listen on [fd00::5]:8787: fd00::5 is not an address of this machine [address_unavailable]\n' +
        '  --host must be an address of this machine: 127.0.0.1 for this machine only, 0.0.0.0 for every interface\n',
    );
  });

  it('leaves any other error alone', () => {
    expect(failure('EMFILE', '127.0.0.1', 8787)).toBeNull();
    expect(listenErrorFrom(new Error('no code'), '127.0.0.1', 1)).toBeNull();
  });
});
