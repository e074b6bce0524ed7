// Which endpoints may receive the user's secrets from a profile that a task file defines.
//
// A task file may name any URL, and a dataset is often someone else's: if its profile could
// name `api_key_env: AWS_SECRET_ACCESS_KEY` or a header `${env:GITHUB_TOKEN}`, opening or
// running it would send those secrets wherever it says. So a profile from a task file gets
// its key and `${env:…}` headers only at endpoints the user allowed outside the file (CLI
// flags, the editor's user settings); elsewhere its requests go without them, and the user is
// told why. Profiles the user defines (the editor's settings, `--base-url`) are the user's own.
import type { Issue } from '../base/issues';
import { getPair, keyName, type YMap } from '../base/ynode';
import type { ModelProfile } from './types';

/** One allowance: secrets may go to this endpoint; only `variable` when it names one. */
export interface EndpointRule {
  /** As written: `https://api.example.com/v1`, `api.example.com`, `OPENAI_KEY@127.0.0.1:8000`. */
  readonly text: string;
  readonly variable?: string;
  /** Lower case; with the port when the rule names one. */
  readonly host: string;
  readonly port?: string;
  /** Set when the rule is a URL: `https:`; the path the base URL must be at or under. */
  readonly protocol?: string;
  readonly path?: string;
}

/** What the user allowed, as the front end read it (flags, settings, workspace trust). */
export interface SecretTrust {
  readonly rules: readonly EndpointRule[];
  /** False in an untrusted workspace: a task file's profiles then get no secret at all. */
  readonly workspaceTrusted: boolean;
}

/** Where a user allows an endpoint, named in every message. */
export const ALLOW_HOW =
  '--trust-endpoint URL or --allow-key-env VAR@HOST (CLI), or the vtask.trustedEndpoints user setting (VS Code)';

const VAR = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Reads `URL`, `HOST[:PORT]` or `VAR@…` (the flags' and the setting's syntax); throws on anything else. */
export function parseEndpointRule(text: string): EndpointRule {
  const at = text.indexOf('@');
  const variable = at > 0 && VAR.test(text.slice(0, at)) ? text.slice(0, at) : undefined;
  const target = variable ? text.slice(at + 1) : text;
  const bad = (): Error =>
    new Error(
      `'${text}' is not an endpoint: write a URL (https://api.example.com/v1), a host (api.example.com, 127.0.0.1:8000), or VAR@ either`,
    );
  if (target.includes('://')) {
    let u: URL;
    try {
      u = new URL(target);
    } catch {
      throw bad();
    }
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password) throw bad();
    return {
      text,
      ...(variable ? { variable } : {}),
      host: u.hostname.toLowerCase(),
      port: u.port || defaultPort(u.protocol),
      protocol: u.protocol,
      path: u.pathname.replace(/\/+$/, ''),
    };
  }
  const m = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/.exec(target);
  if (!m) throw bad();
  return { text, ...(variable ? { variable } : {}), host: m[1]!.toLowerCase(), ...(m[2] ? { port: m[2] } : {}) };
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

/** True when `rule` covers the base URL (the same host, port and scheme, and the path at or under the rule's). */
function covers(rule: EndpointRule, baseUrl: string): boolean {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return false;
  }
  if (u.hostname.toLowerCase() !== rule.host) return false;
  if (rule.port !== undefined && (u.port || defaultPort(u.protocol)) !== rule.port) return false;
  if (rule.protocol !== undefined && u.protocol !== rule.protocol) return false;
  const p = u.pathname.replace(/\/+$/, '');
  return rule.path === undefined || rule.path === '' || p === rule.path || p.startsWith(rule.path + '/');
}

let current: SecretTrust = { rules: [], workspaceTrusted: true };

/** Set by the CLI from its flags, and by the extension from its user settings and workspace trust. */
export function setSecretTrust(t: SecretTrust): void {
  current = t;
}

/** `${env:VAR}` in a header value. */
export const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The environment variables a profile entry would send: its `api_key_env` and its headers' `${env:…}`. */
function namedSecrets(apiKeyEnv: unknown, headers: unknown): string[] {
  const names = new Set<string>();
  if (typeof apiKeyEnv === 'string' && VAR.test(apiKeyEnv)) names.add(apiKeyEnv);
  if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
    for (const v of Object.values(headers as Record<string, unknown>))
      if (typeof v === 'string') for (const m of v.matchAll(ENV_REF)) names.add(m[1]!);
  }
  return [...names];
}

/** The variables of `names` that may not go to `baseUrl` from a task file's profile. */
function refused(baseUrl: string, names: readonly string[], trust: SecretTrust): string[] {
  if (!trust.workspaceTrusted) return [...names];
  return names.filter(
    (n) => !trust.rules.some((r) => (r.variable === undefined || r.variable === n) && covers(r, baseUrl)),
  );
}

/** Why `names` are not sent to `baseUrl` by profile `name`, and how to allow them. */
function withheldText(name: string, baseUrl: string, names: readonly string[], trust: SecretTrust): string {
  const vars = names.map((n) => `$${n}`).join(', ');
  const where = safeOrigin(baseUrl);
  if (!trust.workspaceTrusted)
    return `model profile \`${name}\` is defined in the task file and the workspace is not trusted: ${vars} ${names.length === 1 ? 'is' : 'are'} not sent to ${where}`;
  return `model profile \`${name}\` is defined in the task file: ${vars} ${names.length === 1 ? 'is' : 'are'} not sent to ${where} unless you allow that endpoint (${ALLOW_HOW})`;
}

/** The scheme, host and path of a URL, without a user, password or query. */
function safeOrigin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//').replace(/[?#].*$/, '');
  }
}

/**
 * A task file's profile as it may be used: without the key and the `${env:…}` headers the user
 * did not allow for its endpoint, and with `withheld` saying so. Unchanged when nothing is held back.
 */
export function guardFileProfile(p: ModelProfile, trust: SecretTrust = current): ModelProfile {
  const held = refused(p.baseUrl, namedSecrets(p.apiKeyEnv, p.headers), trust);
  if (!held.length) return p;
  const { apiKeyEnv, headers, ...rest } = p;
  const keptHeaders = Object.entries(headers ?? {}).filter(
    ([, v]) => ![...v.matchAll(ENV_REF)].some((m) => held.includes(m[1]!)),
  );
  return {
    ...rest,
    ...(apiKeyEnv !== undefined && !held.includes(apiKeyEnv) ? { apiKeyEnv } : {}),
    ...(keptHeaders.length ? { headers: Object.fromEntries(keptHeaders) } : {}),
    withheld: withheldText(p.name, p.baseUrl, held, trust),
  };
}

/**
 * A warning at each profile of a file's `models:` whose secrets would be held back, for
 * `vtask check` and the editor's diagnostics. `parts` as in `TaskFile.parts` (spans relative to
 * each part's offset).
 */
export function withheldIssues(
  parts: ReadonlyArray<{ readonly offset: number; readonly node: YMap | null }>,
  trust: SecretTrust = current,
): Issue[] {
  const out: Issue[] = [];
  for (const part of parts) {
    const models = part.node ? getPair(part.node, 'models')?.value : undefined;
    if (models?.type !== 'map') continue;
    for (const p of models.items) {
      if (p.value?.type !== 'map') continue;
      const base = getPair(p.value, 'base_url')?.value;
      const baseUrl = base?.type === 'scalar' && typeof base.value === 'string' ? base.value : undefined;
      if (!baseUrl || baseUrl.startsWith('builtin:')) continue;
      const key = getPair(p.value, 'api_key_env')?.value;
      const headers = getPair(p.value, 'headers')?.value;
      const headerValues =
        headers?.type === 'map'
          ? Object.fromEntries(
              headers.items.map((h) => [keyName(h), h.value?.type === 'scalar' ? h.value.value : undefined]),
            )
          : undefined;
      const held = refused(baseUrl, namedSecrets(key?.type === 'scalar' ? key.value : undefined, headerValues), trust);
      if (!held.length) continue;
      out.push({
        code: 'withheld-secret',
        severity: 'warning',
        message: withheldText(keyName(p), baseUrl, held, trust),
        start: part.offset + p.key.span[0],
        end: part.offset + p.key.span[1],
      });
    }
  }
  return out;
}

type WithheldListener = (message: string) => void;
const listeners = new Set<WithheldListener>();
const told = new Set<string>();

/** Calls `listener` the first time a request goes out without secrets its profile named (once per message). */
export function onSecretsWithheld(listener: WithheldListener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (!listeners.size) told.clear();
  };
}

/** Called by providers as they send a request with a profile that holds secrets back. */
export function tellWithheld(p: ModelProfile): void {
  if (!p.withheld || told.has(p.withheld)) return;
  told.add(p.withheld);
  for (const l of listeners) l(p.withheld);
}
