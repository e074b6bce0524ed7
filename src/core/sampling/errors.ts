// Turning what went wrong on the wire into SamplingErrors a person can act on: each message says
// where (the endpoint, without secrets), what happened and what to do. The kind decides retrying.
import { formatBytes, TooLargeError } from './limits';
import { safeUrl } from './profiles';
import { SamplingError } from './types';
import { isRecord, listOr, parseJson, recordOr } from '../base/record';

/** Error codes of Node's sockets and undici, found on `error.cause` (or inside an AggregateError). */
function errorCodes(e: unknown, depth = 0): string[] {
  if (depth > 4 || !isRecord(e)) return [];
  const codes: string[] = [];
  if (typeof e.code === 'string') codes.push(e.code);
  for (const x of listOr(e.errors)) codes.push(...errorCodes(x, depth + 1));
  codes.push(...errorCodes(e.cause, depth + 1));
  return codes;
}

/** A failure of fetch itself (no HTTP answer, or the answer broke off). */
export function networkError(e: unknown, url: string, midResponse: boolean): SamplingError {
  // The transport marks errors of a body that had begun to arrive.
  midResponse ||= isRecord(e) && e.midResponse === true;
  const where = safeUrl(url);
  if (e instanceof TooLargeError) {
    return new SamplingError(
      `${e.what} from ${where} passed ${formatBytes(e.limit)}: stopped reading (max_response_bytes: ${e.limit}, or $VTASK_MAX_RESPONSE_BYTES)`,
      'too-large',
    );
  }
  const codes = errorCodes(e);
  const has = (...cs: string[]): boolean => codes.some((c) => cs.includes(c));
  if (has('ECONNREFUSED'))
    return new SamplingError(`nothing listens at ${where}: is the server running?`, 'unreachable');
  if (has('ENOTFOUND', 'EAI_AGAIN'))
    return new SamplingError(`the host of ${where} is not found (DNS): is base_url spelt right?`, 'unreachable');
  if (has('EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT'))
    return new SamplingError(
      `${where} cannot be reached (${codes[0]}): is the host up and the network path open?`,
      'unreachable',
    );
  if (codes.some((c) => /CERT|SSL|TLS|SELF_SIGNED/.test(c))) {
    // A certificate problem does not go away by retrying.
    return new SamplingError(
      `the TLS certificate of ${where} is not trusted (${codes.find((c) => /CERT|SSL|TLS|SELF_SIGNED/.test(c))}): set NODE_EXTRA_CA_CERTS to its CA, or use http:// for a local server`,
      'bad-request',
    );
  }
  if (midResponse || has('ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'UND_ERR_CLOSED')) {
    return new SamplingError(
      `the connection to ${where} closed ${midResponse ? 'in the middle of the answer' : 'before an answer'}${codes.length ? ` (${codes[0]})` : ''}`,
      'unreachable',
    );
  }
  const message = e instanceof Error ? e.message : String(e);
  return new SamplingError(
    `request to ${where} failed: ${message}${codes.length ? ` (${codes.join(', ')})` : ''}`,
    'unreachable',
  );
}

/** The message a server put in its error body: OpenAI's `{error: {message}}`, FastAPI's `{detail}`, or the text. */
export function serverMessage(body: string): string {
  let msg = body;
  try {
    const j = recordOr(parseJson(body));
    const err = j.error;
    if (typeof err === 'string') msg = err;
    else if (isRecord(err) && typeof err.message === 'string') msg = err.message;
    else if (typeof j.message === 'string') msg = j.message;
    else if (typeof j.detail === 'string') msg = j.detail;
    else if (j.detail !== undefined) msg = JSON.stringify(j.detail);
  } catch {
    // Not JSON: an HTML error page of a proxy, or plain text.
    msg = body.replace(/<[^>]*>/g, ' ');
  }
  msg = msg.replace(/\s+/g, ' ').trim();
  return msg.length > 300 ? `${msg.slice(0, 300)}…` : msg;
}

export function withServerMessage(text: string, body: string): string {
  const m = serverMessage(body);
  return m ? `${text}: ${m}` : text;
}
