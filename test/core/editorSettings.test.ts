import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SETTINGS, readSettings, type SettingKey } from '../../src/vscode/settingsSchema';

const contributed = (
  JSON.parse(fs.readFileSync(path.resolve(process.cwd(), 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown; scope?: string }> } };
  }
).contributes.configuration.properties;

test('the settings table and package.json declare the same settings, defaults and scopes', () => {
  const declared = Object.keys(contributed)
    .filter((k) => k.startsWith('vtask.'))
    .map((k) => k.slice('vtask.'.length))
    .sort();
  assert.deepEqual(Object.keys(SETTINGS).sort(), declared);
  for (const [key, s] of Object.entries(SETTINGS)) {
    const p = contributed[`vtask.${key}`];
    assert.deepEqual(p?.default, s.default, `default of vtask.${key}`);
    // package.json leaves out `scope` for window-scoped settings (VS Code's default).
    assert.equal(p?.scope ?? 'window', s.scope, `scope of vtask.${key}`);
  }
});

test('unset settings read as the declared defaults', () => {
  const s = readSettings(() => undefined);
  assert.deepEqual(s, {
    debounceMs: 150,
    codeLensEnabled: true,
    model: '',
    models: {},
    samples: undefined,
    concurrency: 8,
    grpoGroupSize: 8,
    cacheDir: '',
    temperature: undefined,
    allowWeakIsolation: false,
  });
});

test('values of the wrong type or out of range read as the default; good ones are kept', () => {
  const bad: Partial<Record<SettingKey, unknown>> = {
    allowWeakIsolation: 'yes',
    samples: 'ten',
    concurrency: 0,
    grpoGroupSize: 1,
    temperature: -1,
    models: ['x'],
    'codeLens.enabled': 'no',
    'validation.debounceMs': Number.NaN,
  };
  const s = readSettings((k) => bad[k]);
  assert.equal(s.samples, undefined);
  assert.equal(s.concurrency, 8);
  assert.equal(s.grpoGroupSize, 8);
  assert.equal(s.temperature, undefined);
  assert.deepEqual(s.models, {});
  assert.equal(s.codeLensEnabled, true);
  assert.equal(s.debounceMs, 150);
  assert.equal(s.allowWeakIsolation, false, 'only true opts in to weak isolation');
  const good: Partial<Record<SettingKey, unknown>> = {
    samples: 3,
    concurrency: 2,
    grpoGroupSize: 4,
    temperature: 0,
    'codeLens.enabled': false,
    cacheDir: 'cache',
    model: 'm',
  };
  const g = readSettings((k) => good[k]);
  assert.deepEqual(
    [g.samples, g.concurrency, g.grpoGroupSize, g.temperature, g.codeLensEnabled, g.cacheDir, g.model],
    [3, 2, 4, 0, false, 'cache', 'm'],
  );
});
