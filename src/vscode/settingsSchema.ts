// The editor's settings as data, free of `vscode`, so that unit tests can hold them against
// package.json's `contributes.configuration` and the reader can be tested on plain values.
import { isRecord } from '../core/base/record';

/**
 * Where a setting may be set: `resource` settings may differ per workspace folder; `application`
 * settings are read from the user's settings only (a repository's workspace settings cannot set them).
 */
export type SettingScope = 'application' | 'machine' | 'window' | 'resource';

/** Every `vtask.*` setting: its default (the one value package.json also declares) and scope. */
export const SETTINGS = {
  'validation.debounceMs': { default: 150, scope: 'resource' },
  'codeLens.enabled': { default: true, scope: 'resource' },
  model: { default: '', scope: 'window' },
  models: { default: {}, scope: 'window' },
  samples: { default: null, scope: 'resource' },
  concurrency: { default: 8, scope: 'window' },
  grpoGroupSize: { default: 8, scope: 'resource' },
  cacheDir: { default: '', scope: 'resource' },
  temperature: { default: null, scope: 'resource' },
  // Machine-wide: whether answers may run without the full sandbox is the machine owner's call.
  allowWeakIsolation: { default: false, scope: 'machine' },
  // The user's own: a workspace (a downloaded dataset) must not choose where secrets go. Read
  // from the user's settings alone, by trust.ts.
  trustedEndpoints: { default: [], scope: 'application' },
  // The overview's own settings, read by duplicateDiagnostics.ts.
  'duplicates.enabled': { default: true, scope: 'window' },
  'duplicates.threshold': { default: 0.8, scope: 'window' },
  contaminationBenchmarks: { default: [], scope: 'window' },
  'contamination.ngram': { default: 13, scope: 'window' },
} as const satisfies Record<string, { default: unknown; scope: SettingScope }>;

export type SettingKey = keyof typeof SETTINGS;

/** The settings as the editor uses them: typed, with unset or ill-typed values at their default. */
export interface EditorSettings {
  readonly debounceMs: number;
  readonly codeLensEnabled: boolean;
  /** The profile tasks sample when they name none; empty means automatic. */
  readonly model: string;
  readonly models: Readonly<Record<string, unknown>>;
  /** Samples per task, overriding the task's `samples:`; undefined keeps the task's. */
  readonly samples: number | undefined;
  readonly concurrency: number;
  readonly grpoGroupSize: number;
  /** As written (possibly relative): resolve it with `cacheDirFor`. */
  readonly cacheDir: string;
  readonly temperature: number | undefined;
  /** Code and script verifiers may run below the full sandbox (the user opted in). */
  readonly allowWeakIsolation: boolean;
}

const number = (v: unknown, min: number): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= min ? v : undefined;

/**
 * Reads every setting through `get` (VS Code's configuration, or a table in tests). A value of
 * the wrong type or out of range reads as the default: settings.json is edited by hand, and a
 * typo there must not break runs.
 */
export function readSettings(get: (key: SettingKey) => unknown): EditorSettings {
  const models = get('models');
  const codeLens = get('codeLens.enabled');
  const model = get('model');
  const cacheDir = get('cacheDir');
  return {
    debounceMs: number(get('validation.debounceMs'), 0) ?? SETTINGS['validation.debounceMs'].default,
    codeLensEnabled: typeof codeLens === 'boolean' ? codeLens : SETTINGS['codeLens.enabled'].default,
    model: typeof model === 'string' ? model : SETTINGS.model.default,
    models: isRecord(models) ? models : SETTINGS.models.default,
    samples: number(get('samples'), 1) ?? SETTINGS.samples.default ?? undefined,
    concurrency: number(get('concurrency'), 1) ?? SETTINGS.concurrency.default,
    grpoGroupSize: number(get('grpoGroupSize'), 2) ?? SETTINGS.grpoGroupSize.default,
    cacheDir: typeof cacheDir === 'string' ? cacheDir : SETTINGS.cacheDir.default,
    temperature: number(get('temperature'), 0) ?? SETTINGS.temperature.default ?? undefined,
    allowWeakIsolation: get('allowWeakIsolation') === true,
  };
}
