// Preloaded with --import: every socket connection the process starts is written to
// $CAMROLL_TEST_CONNECT_LOG as `host:port`, and one to an address that is not loopback is
// failed at once (ECONNREFUSED) instead of made: a test sees what camroll would have reached,
// and never reaches anything but this machine.
import { appendFileSync } from 'node:fs';
import net from 'node:net';

const log = process.env.CAMROLL_TEST_CONNECT_LOG;
const connect = net.Socket.prototype.connect;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

net.Socket.prototype.connect = function guardedConnect(...args) {
  // net.connect hands over its normalized arguments as an array ([options, callback]).
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  if (options.path === undefined) {
    const host = String(options.host ?? 'localhost');
    if (log) appendFileSync(log, `${host}:${options.port}\n`);
    if (!LOOPBACK.test(host)) {
      const error = Object.assign(new Error(`connect ECONNREFUSED ${host}:${options.port} (blocked by the test)`), {
        code: 'ECONNREFUSED',
      });
      process.nextTick(() => this.destroy(error));
      return this;
    }
  }
  return connect.apply(this, args);
};
