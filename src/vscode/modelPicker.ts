import { errorMessage } from '../core/base/errorMessage';
import * as vscode from 'vscode';
import { createProvider } from '../core/sampling';
import { BUILTIN_PROFILE, findLocalModels } from '../core/sampling/localModels';
import { profileFromEntry, safeUrl, type SecretLookup } from '../core/sampling/profiles';
import { parseTaskFile } from '../core/taskfile/parse';
import type { ModelProfile } from '../core/sampling/types';
import { askEndpoint } from './endpointWizard';
import { onDidChangeSettings, settingsFor } from './settings';

/** Keys added through `vtask: Add Model Endpoint` live in SecretStorage under this prefix. */
const SECRET_PREFIX = 'vtask.apiKey.';
/** The stand-in variable name a profile gets for a key kept in SecretStorage. */
const SECRET_ENV_PREFIX = 'VTASK_SECRET_';

/** What "Automatic" in Select Model does. */
const AUTOMATIC = "a task's own model:, else a local server that answers, else the built-in model";

const envNameFor = (profile: string): string => SECRET_ENV_PREFIX + profile.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

/**
 * The active model in the status bar, `vtask: Select Model` and `vtask: Add Model Endpoint`.
 * Keys are stored in SecretStorage, never in settings; profiles name them by a stand-in
 * variable that the secret lookup answers.
 */
export class ModelPicker implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('vtask.model', vscode.StatusBarAlignment.Right, 100);
  private readonly secrets = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [this.item];

  constructor(private readonly context: vscode.ExtensionContext) {
    this.item.name = 'vtask model';
    this.item.command = 'vtask.selectModel';
    this.disposables.push(
      onDidChangeSettings((e) => {
        if (e.affectsConfiguration('vtask.model')) this.refresh();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
    );
    this.refresh();
  }

  private refresh(): void {
    const name = settingsFor(vscode.window.activeTextEditor?.document.uri).model || 'auto (local server or built-in)';
    this.item.text = `$(hubot) ${name}`;
    this.item.tooltip = 'vtask: the model tasks sample when they name none. Click to choose.';
    if (vscode.window.activeTextEditor?.document.languageId === 'vtask') this.item.show();
    else this.item.hide();
  }

  /** Environment first, then keys from SecretStorage (loaded by `loadSecrets`). */
  readonly lookup: SecretLookup = (name) => process.env[name] ?? this.secrets.get(name);

  /** Reads the stored keys, so that the synchronous lookup can answer during a run. */
  async loadSecrets(): Promise<void> {
    for (const [name, entry] of Object.entries(settingsFor().models)) {
      if (entry === null || typeof entry !== 'object')
        throw new Error(`the vtask.models setting: \`${name}\` is not a profile ({ base_url, model, … })`);
      const p = entry as { api_key_env?: unknown };
      if (typeof p.api_key_env !== 'string' || !p.api_key_env.startsWith(SECRET_ENV_PREFIX)) continue;
      const key = await this.context.secrets.get(SECRET_PREFIX + name);
      if (key) this.secrets.set(p.api_key_env, key);
    }
  }

  /** Profiles from the settings, local servers that answer, and the built-in model. */
  async choices(): Promise<{ label: string; description: string; profile?: ModelProfile; settingName?: string }[]> {
    const settings = settingsFor(vscode.window.activeTextEditor?.document.uri).models;
    const out: { label: string; description: string; profile?: ModelProfile; settingName?: string }[] = [];
    for (const [name, entry] of Object.entries(settings)) {
      try {
        const p = profileFromEntry(name, entry);
        out.push({ label: name, description: `${p.model} at ${safeUrl(p.baseUrl)}`, settingName: name });
      } catch (e) {
        out.push({ label: name, description: `invalid: ${errorMessage(e)}`, settingName: name });
      }
    }
    // Profiles of the task file in the active editor, which tasks can name with `model:`.
    const doc = vscode.window.activeTextEditor?.document;
    if (doc?.languageId === 'vtask') {
      for (const part of parseTaskFile(doc.getText()).parts) {
        const models = part.node?.items.find((i) => i.key.value === 'models')?.value;
        if (models?.type !== 'map') continue;
        for (const m of models.items) {
          const name = String(m.key.value);
          if (!out.some((o) => o.label === name))
            out.push({
              label: name,
              description: `from ${vscode.workspace.asRelativePath(doc.uri)}`,
              settingName: name,
            });
        }
      }
    }
    // One entry per name: a profile in the settings wins over a server or the built-in model of that name.
    const add = (o: (typeof out)[number]): void => {
      if (!out.some((x) => x.label === o.label)) out.push(o);
    };
    for (const p of await findLocalModels())
      add({ label: p.name, description: `${p.model} at ${safeUrl(p.baseUrl)} (running locally)`, profile: p });
    // VS Code's Language Model API (Copilot and others): no `n`, no temperature.
    for (const m of await vscode.lm.selectChatModels().then(undefined, () => [])) {
      out.push({
        label: `vscode-lm:${m.vendor}/${m.family}`,
        description: `${m.name} (VS Code language model; samples one at a time, temperature not honoured)`,
        settingName: `vscode-lm:${m.vendor}/${m.family}`,
      });
    }
    add({
      label: BUILTIN_PROFILE.name,
      description: 'arith-tiny: the built-in demo model (arithmetic only)',
      profile: BUILTIN_PROFILE,
    });
    return out;
  }

  /**
   * Select Model: the current choice is marked, "Automatic" clears it. Profiles that are not
   * in the settings (a local server) are saved there first; the built-in model needs none.
   */
  async select(): Promise<string | undefined> {
    const items = await this.choices();
    const current = settingsFor(vscode.window.activeTextEditor?.document.uri).model;
    // `value` is what the setting becomes; the Add item has none.
    const picks: (vscode.QuickPickItem & { value?: string })[] = [
      { label: current ? 'Automatic' : '$(check) Automatic', description: AUTOMATIC, value: '' },
      ...items.map((i) => ({
        label: i.label === current ? `$(check) ${i.label}` : i.label,
        description: i.description,
        value: i.label,
        picked: i.label === current,
      })),
      { label: '$(add) Add Model Endpoint…', description: '' },
    ];
    const picked = await vscode.window.showQuickPick(picks, {
      title: 'vtask: the model tasks sample',
      placeHolder: `Now: ${current || 'automatic'}. Profiles from settings, local servers, the built-in model`,
    });
    if (!picked) return undefined;
    if (picked.value === undefined) return this.addEndpoint();
    const chosen = items.find((i) => i.label === picked.value);
    const name = picked.value === '' ? '' : (chosen?.settingName ?? picked.value.replace(/[^\w.-]/g, '-'));
    if (chosen?.profile && chosen.profile !== BUILTIN_PROFILE) await this.saveProfile(name, chosen.profile);
    // Automatic removes the setting rather than writing an empty one.
    await vscode.workspace
      .getConfiguration('vtask')
      .update('model', name || undefined, vscode.ConfigurationTarget.Global);
    return name;
  }

  private async saveProfile(name: string, p: ModelProfile, apiKeyEnv?: string): Promise<void> {
    const models = { ...settingsFor().models };
    models[name] = { base_url: p.baseUrl, model: p.model, ...(apiKeyEnv ? { api_key_env: apiKeyEnv } : {}) };
    await vscode.workspace.getConfiguration('vtask').update('models', models, vscode.ConfigurationTarget.Global);
  }

  /** Asks for a URL, a key, a model and a name (Escape ends it), tests the connection, stores the key in SecretStorage. */
  async addEndpoint(): Promise<string | undefined> {
    const asked = await askEndpoint({
      input: (o) =>
        vscode.window.showInputBox({
          title: o.title,
          prompt: o.prompt,
          value: o.value,
          password: o.password,
          ignoreFocusOut: true,
          validateInput: o.validate,
        }),
      pick: (title, items) => vscode.window.showQuickPick(items, { title, ignoreFocusOut: true }),
      confirm: async (message, action) =>
        (await vscode.window.showWarningMessage(message, action, 'Cancel')) === action,
      listModels: async (url, key) => {
        const probe: ModelProfile = {
          name: 'new',
          baseUrl: url,
          model: '',
          endpoint: 'chat',
          concurrency: 1,
          timeoutMs: 15_000,
          ...(key ? { apiKeyEnv: 'VTASK_PROBE_KEY' } : {}),
        };
        return (
          (await createProvider(probe, {
            secrets: (n) => (n === 'VTASK_PROBE_KEY' ? key : process.env[n]),
          }).listModels?.(AbortSignal.timeout(15_000))) ?? []
        );
      },
    });
    if (!asked) return undefined;
    const { url, key, model, name } = asked;
    const apiKeyEnv = key ? envNameFor(name) : undefined;
    if (key && apiKeyEnv) {
      await this.context.secrets.store(SECRET_PREFIX + name, key);
      this.secrets.set(apiKeyEnv, key);
    }
    await this.saveProfile(
      name,
      { name, baseUrl: url, model, endpoint: 'chat', concurrency: 1, timeoutMs: 15_000 },
      apiKeyEnv,
    );
    await vscode.workspace.getConfiguration('vtask').update('model', name, vscode.ConfigurationTarget.Global);
    void vscode.window.showInformationMessage(
      `vtask: added ${name} (${model} at ${safeUrl(url)})${key ? '; its key is in SecretStorage' : ''}.`,
    );
    return name;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
