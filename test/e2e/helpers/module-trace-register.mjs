// Preloaded with --import: registers the trace hook, writing to $CAMROLL_TEST_MODULE_TRACE.
import { register } from 'node:module';

register('./module-trace-hook.mjs', import.meta.url, { data: { file: process.env.CAMROLL_TEST_MODULE_TRACE } });
