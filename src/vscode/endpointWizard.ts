// The steps of `vtask: Add Model Endpoint`, free of `vscode`: the prompts come in as functions,
// so that what Escape does at each step is tested without driving VS Code's quick input.
import { errorMessage } from '../core/base/errorMessage';

/** The questions the wizard asks; each resolves to undefined when the user presses Escape. */
export interface EndpointPrompts {
  input(options: {
    title: string;
    prompt?: string;
    value?: string;
    password?: boolean;
    validate?: (value: string) => string | undefined;
  }): Thenable<string | undefined>;
  pick(title: string, items: readonly string[]): Thenable<string | undefined>;
  /** Resolves to true only when the user chose to go on. */
  confirm(message: string, action: string): Thenable<boolean>;
  /** The models the endpoint serves; rejects when it cannot be reached. */
  listModels(url: string, key: string | undefined): Promise<string[]>;
}

export interface NewEndpoint {
  readonly url: string;
  /** Undefined when the user left the key empty (a local server needs none). */
  readonly key: string | undefined;
  readonly model: string;
  readonly name: string;
}

/** Why a base URL cannot be used, or undefined when it can. */
export function endpointUrlProblem(value: string): string | undefined {
  const text = value.trim();
  if (!text) return 'Enter the base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `Not a URL: ${text} (expected e.g. http://127.0.0.1:8000/v1)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `Use http:// or https:// (not ${url.protocol})`;
  if (!url.hostname) return 'The URL has no host';
  // A key in the URL would be stored in settings: it belongs in the key step.
  if (url.username || url.password) return 'Leave credentials out of the URL: the next step stores the key safely';
  return undefined;
}

/** A profile name made from a model name: `org/Model 7B` becomes `Model-7B`. */
export const profileNameFor = (model: string): string =>
  model
    .split('/')
    .pop()
    ?.replace(/[^\w.-]/g, '-') || 'model';

/**
 * Asks for a URL, a key, a model and a profile name, in that order. Escape at any step ends
 * the wizard with nothing written (undefined); an endpoint that cannot be reached is added
 * only when the user says so.
 */
export async function askEndpoint(p: EndpointPrompts): Promise<NewEndpoint | undefined> {
  const raw = await p.input({
    title: 'vtask: endpoint URL',
    value: 'http://127.0.0.1:8000/v1',
    prompt: 'An OpenAI-compatible base URL',
    validate: endpointUrlProblem,
  });
  if (raw === undefined || endpointUrlProblem(raw)) return undefined;
  const url = raw.trim().replace(/\/+$/, '');
  const key = await p.input({
    title: 'vtask: API key (optional)',
    prompt: 'Stored in VS Code SecretStorage, never in settings. Leave empty for none.',
    password: true,
  });
  if (key === undefined) return undefined;
  let models: string[] = [];
  try {
    models = await p.listModels(url, key || undefined);
  } catch (e) {
    if (!(await p.confirm(`vtask: could not list models at ${url}: ${errorMessage(e)}`, 'Add Anyway')))
      return undefined;
  }
  const model = models.length
    ? await p.pick('vtask: model', models)
    : await p.input({
        title: 'vtask: model name',
        validate: (v) => (v.trim() ? undefined : 'Enter the model name the server expects'),
      });
  if (!model?.trim()) return undefined;
  const name = await p.input({
    title: 'vtask: profile name',
    value: profileNameFor(model),
    validate: (v) => (/^[\w.-]+$/.test(v) ? undefined : 'Letters, digits, _ . - only'),
  });
  if (!name) return undefined;
  return { url, key: key || undefined, model: model.trim(), name };
}
