// Who may talk to `vtask serve`, checked before a request reaches a verifier: the Host a client
// addressed (a web page that rebinds its own name to 127.0.0.1 still sends its own name), the
// Origin a browser adds for a page's requests, the bearer token, and a JSON content type (a page
// can send `text/plain` anywhere without asking; `application/json` needs the server's consent).
import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { at } from '../util/must';

export interface GateOptions {
  /** When set, every request needs `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Host names and addresses clients may address, beyond loopback ones (lower case, no port). */
  readonly allowedHosts: readonly string[];
  /** Web origins (`scheme://host[:port]`) whose pages may call the server. */
  readonly allowedOrigins: readonly string[];
}

/** A request the gate turned away: the HTTP status and the reason, for the JSON error. */
export class GateRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True for names and addresses that reach this machine only: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = normaliseHostName(host);
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return LOOPBACK.check(h, 'ipv4');
  if (!net.isIPv6(h)) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped ? LOOPBACK.check(at(mapped, 1), 'ipv4') : LOOPBACK.check(h, 'ipv6');
}

/** True for the addresses that listen on every interface (`0.0.0.0`, `::`). */
export function isWildcardHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1');
  return h === '' || h === '0.0.0.0' || (net.isIPv6(h) && /^[0:]+$/.test(h));
}

/**
 * The names a client of a server bound to `host` may send in `Host`, besides loopback ones and
 * `--allow-host`: the bound address itself, or, bound to all addresses, every address of this
 * machine and its host name. An address is safe to accept (a rebinding page sends its own name,
 * never an address), and so is the machine's own name, which a page on the web cannot own.
 */
export function boundHostNames(host: string): string[] {
  if (!isWildcardHost(host)) return [normaliseHostName(host)];
  const addresses = Object.values(os.networkInterfaces()).flatMap((list) =>
    (list ?? []).map((i) => normaliseHostName(i.address.split('%')[0] ?? '')),
  );
  return [...addresses, normaliseHostName(os.hostname())];
}

/** A host name as the gate compares it: lower case, no brackets, no trailing dot. */
export function normaliseHostName(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** The host name of a `Host` header (`name`, `name:port`, `[v6]`, `[v6]:port`), or undefined when malformed. */
export function hostOfHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^\[([0-9a-fA-F:.]+)\](?::\d{1,5})?$/.exec(header) ?? /^([^:[\]\s/@]+)(?::\d{1,5})?$/.exec(header);
  return m ? normaliseHostName(at(m, 1)) : undefined;
}

/** `scheme://host[:port]` of an origin given to `--allow-origin`, or undefined when it is not one. */
export function normaliseOrigin(origin: string): string | undefined {
  if (origin === 'null') return 'null';
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Compares in constant time: both sides are hashed first, so not even the length leaks. */
function sameSecret(a: string, b: string): boolean {
  const h = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(a), h(b));
}

function bearer(header: string | undefined): string {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return m ? at(m, 1) : '';
}

/**
 * Checks Host, Origin and the token, in that order; throws a refusal, else returns the origin to
 * answer with CORS headers (an allowed page's origin) or undefined.
 */
export function admit(opts: GateOptions, req: http.IncomingMessage): string | undefined {
  const host = hostOfHeader(req.headers.host);
  if (!host || !(isLoopbackHost(host) || opts.allowedHosts.includes(host))) {
    throw new GateRefusal(
      403,
      `the Host header '${req.headers.host ?? ''}' is not a name of this server: address it by a loopback address (127.0.0.1, localhost) or start it with --allow-host NAME`,
    );
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !opts.allowedOrigins.includes(origin)) {
    throw new GateRefusal(
      403,
      `requests from web pages are refused (Origin: ${origin}): start the server with --allow-origin ${origin} to let that page call it`,
    );
  }
  // A browser that sends no Origin (a navigation) still says where the request came from.
  const site = req.headers['sec-fetch-site'];
  if (origin === undefined && site !== undefined && site !== 'none' && site !== 'same-origin') {
    throw new GateRefusal(403, `requests from web pages are refused (Sec-Fetch-Site: ${String(site)})`);
  }
  // A CORS preflight carries no credentials: it is answered before the token is asked for.
  if (req.method !== 'OPTIONS' && opts.token && !sameSecret(bearer(req.headers.authorization), opts.token)) {
    throw new GateRefusal(
      401,
      'missing or wrong bearer token: send "Authorization: Bearer <token>" (the token the server printed, or VTASK_SERVE_TOKEN)',
    );
  }
  return origin;
}

/** Throws 415 unless a POST says its body is JSON. */
export function requireJson(req: http.IncomingMessage): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new GateRefusal(415, `the body must be sent as Content-Type: application/json${type ? `, not ${type}` : ''}`);
  }
}

/** CORS response headers for an allowed page's origin (none for other clients). */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  if (origin === undefined) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET, POST',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-max-age': '600',
    vary: 'Origin',
  };
}
