// Imported first by the extension, before any module builds a zod schema at load time.
// zod probes `navigator` before compiling a schema; in the extension host that global is a
// getter that logs a deprecation error ("navigator is now a global in nodejs"). Without the
// compiled fast path zod never asks.
import { config } from 'zod';

config({ jitless: true });
