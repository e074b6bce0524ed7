import { errorMessage } from '../core/base/errorMessage';
import * as vscode from 'vscode';
import { createProvider } from '../core/sampling';
import { BUILTIN_PROFILE, findLocalModels } from '../core/sampling/localModels';
import { profileFromEntry, safeUrl, type SecretLookup } from '../core/sampling/profiles';
import { parseTaskFile } from '../core/taskfile/parse';
import type { ModelProfile } from '../core/sampling/types';

/** Keys added through `vtask: Add Model Endpoint` live in SecretStorage under this prefix. */
const SECRET_PREFIX = 'vtask.apiKey.';
/** The stand-in variable name a profile gets for a key kept in SecretStorage. */
const SECRET_ENV_PREFIX = 'VTASK_SECRET_';

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
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('vtask.model')) this.refresh();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
    );
    this.refresh();
  }

  private refresh(): void {
    const name = vscode.workspace.getConfiguration('vtask').get<string>('model') || 'auto (local server or built-in)';
    this.item.text = `$(hubot) ${name}`;
    this.item.tooltip = 'vtask: the model tasks sample when they name none. Click to choose.';
    if (vscode.window.activeTextEditor?.document.languageId === 'vtask') this.item.show();
    else this.item.hide();
  }

  /** Environment first, then keys from SecretStorage (loaded by `loadSecrets`). */
  readonly lookup: SecretLookup = (name) => process.env[name] ?? this.secrets.get(name);

  /** Reads the stored keys, so that the synchronous lookup can answer during a run. */
  async loadSecrets(): Promise<void> {
    const models = vscode.workspace.getConfiguration('vtask').get<Record<string, { api_key_env?: string }>>('models') ?? {};
    for (const [name, p] of Object.entries(models)) {
      if (!p.api_key_env?.startsWith(SECRET_ENV_PREFIX)) continue;
      const key = await this.context.secrets.get(SECRET_PREFIX + name);
      if (key) this.secrets.set(p.api_key_env, key);
    }
  }

  /** Profiles from the settings, local servers that answer, and the built-in model. */
  async choices(): Promise<{ label: string; description: string; profile?: ModelProfile; settingName?: string }[]> {
    const settings = vscode.workspace.getConfiguration('vtask').get<Record<string, unknown>>('models') ?? {};
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
          if (!out.some((o) => o.label === name)) out.push({ label: name, description: `from ${vscode.workspace.asRelativePath(doc.uri)}`, settingName: name });
        }
      }
    }
    for (const p of await findLocalModels()) out.push({ label: p.name, description: `${p.model} at ${safeUrl(p.baseUrl)} (running locally)`, profile: p });
    // VS Code's Language Model API (Copilot and others): no `n`, no temperature.
    for (const m of await vscode.lm.selectChatModels().then(undefined, () => [])) {
      out.push({ label: `vscode-lm:${m.vendor}/${m.family}`, description: `${m.name} (VS Code language model; samples one at a time, temperature not honoured)`, settingName: `vscode-lm:${m.vendor}/${m.family}` });
    }
    out.push({ label: 'builtin', description: 'arith-tiny: the built-in demo model (arithmetic only)', profile: BUILTIN_PROFILE });
    return out;
  }

  async select(): Promise<string | undefined> {
    const items = await this.choices();
    const picked = await vscode.window.showQuickPick([...items, { label: '$(add) Add Model Endpoint…', description: '' }], { title: 'vtask: the model tasks sample', placeHolder: 'Profiles from settings, local servers, the built-in model' });
    if (!picked) return undefined;
    if (picked.label.startsWith('$(add)')) return this.addEndpoint();
    const chosen = items.find((i) => i.label === picked.label);
    const name = chosen?.settingName ?? picked.label.replace(/[^\w.-]/g, '-');
    if (chosen?.profile) await this.saveProfile(name, chosen.profile);
    await vscode.workspace.getConfiguration('vtask').update('model', name, vscode.ConfigurationTarget.Global);
    return name;
  }

  private async saveProfile(name: string, p: ModelProfile, apiKeyEnv?: string): Promise<void> {
    const config = vscode.workspace.getConfiguration('vtask');
    const models = { ...(config.get<Record<string, unknown>>('models') ?? {}) };
    models[name] = { base_url: p.baseUrl, model: p.model, ...(apiKeyEnv ? { api_key_env: apiKeyEnv } : {}) };
    await config.update('models', models, vscode.ConfigurationTarget.Global);
  }

  /** Asks for a URL, a model and a key, tests the connection, stores the key in SecretStorage. */
  async addEndpoint(): Promise<string | undefined> {
    const url = await vscode.window.showInputBox({ title: 'vtask: endpoint URL', value: 'http://127.0.0.1:8000/v1', prompt: 'An OpenAI-compatible base URL', ignoreFocusOut: true });
    if (!url) return undefined;
    const key = await vscode.window.showInputBox({ title: 'vtask: API key (optional)', prompt: 'Stored in VS Code SecretStorage, never in settings', password: true, ignoreFocusOut: true });
    const probe: ModelProfile = { name: 'new', baseUrl: url.replace(/\/+$/, ''), model: '', endpoint: 'chat', concurrency: 1, timeoutMs: 15_000, ...(key ? { apiKeyEnv: 'VTASK_PROBE_KEY' } : {}) };
    let models: string[] = [];
    try {
      models = (await createProvider(probe, { secrets: (n) => (n === 'VTASK_PROBE_KEY' ? key : process.env[n]) }).listModels?.(AbortSignal.timeout(15_000))) ?? [];
    } catch (e) {
      const go = await vscode.window.showWarningMessage(`vtask: could not list models at ${safeUrl(url)}: ${errorMessage(e)}`, 'Add Anyway', 'Cancel');
      if (go !== 'Add Anyway') return undefined;
    }
    const model = models.length ? await vscode.window.showQuickPick(models, { title: 'vtask: model' }) : await vscode.window.showInputBox({ title: 'vtask: model name', ignoreFocusOut: true });
    if (!model) return undefined;
    const name = (await vscode.window.showInputBox({ title: 'vtask: profile name', value: model.split('/').pop()?.replace(/[^\w.-]/g, '-') ?? 'model', ignoreFocusOut: true })) ?? '';
    if (!name) return undefined;
    const apiKeyEnv = key ? envNameFor(name) : undefined;
    if (key && apiKeyEnv) {
      await this.context.secrets.store(SECRET_PREFIX + name, key);
      this.secrets.set(apiKeyEnv, key);
    }
    await this.saveProfile(name, { ...probe, model }, apiKeyEnv);
    await vscode.workspace.getConfiguration('vtask').update('model', name, vscode.ConfigurationTarget.Global);
    void vscode.window.showInformationMessage(`vtask: added ${name} (${model} at ${safeUrl(url)})${key ? '; its key is in SecretStorage' : ''}.`);
    return name;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
