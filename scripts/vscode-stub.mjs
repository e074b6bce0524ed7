// A stand-in `vscode` module for loading a bundle of the extension outside VS Code: enough for
// its module code to run (every name a no-op class), nothing more. Not an activation.
import fs from 'node:fs';
import path from 'node:path';

/** A `vscode` module where every name, at any depth, is a callable, constructible no-op. */
export const VSCODE_STUB = `const names = new Proxy({}, { get: () => make() });
const make = () => new Proxy(function () {}, {
  get: (t, k) => (k === 'prototype' ? t.prototype : k === Symbol.toPrimitive ? () => '' : make()),
  // esbuild's import * copies a module onto an object made from its prototype: names reach it there.
  getPrototypeOf: () => names,
  construct: () => ({}),
  apply: () => undefined,
});
module.exports = make();`;

/** Writes the stand-in as dir/vscode/index.js; returns dir, to put on NODE_PATH. */
export function writeVscodeStub(dir) {
  fs.mkdirSync(path.join(dir, 'vscode'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'vscode/index.js'), VSCODE_STUB);
  return dir;
}
