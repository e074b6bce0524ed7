// Type assertions in src, for the record: each `x as T` (not `as const`) or `<T>x` is a type
// the compiler was told rather than shown. Prints the count per 1,000 lines, the files with the
// most, and the lines over 120 characters; the last line is one JSON object. Non-null
// assertions (`x!`) are the same promise made shorter, so they are counted beside the casts:
// a cast rewritten as `!` is not a type proven.
// test/core/architecture.test.ts holds the count under a ceiling.
//   node scripts/count-casts.mjs [--list]   (--list: every cast and `!`, file:line and text)
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
const list = process.argv.includes('--list');
const LONG = 120;

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const isAsConst = (node) => ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === 'const';

/** The casts and the non-null assertions of one file, each with its line (1-based) and text. */
function assertionsOf(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const casts = [];
  const nonNull = [];
  const where = (node) => ({
    line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1,
    text: node.getText().replace(/\s+/g, ' ').slice(0, 100),
  });
  const visit = (node) => {
    if ((ts.isAsExpression(node) && !isAsConst(node)) || ts.isTypeAssertionExpression(node)) casts.push(where(node));
    else if (ts.isNonNullExpression(node)) nonNull.push(where(node));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { casts, nonNull };
}

let lines = 0;
let casts = 0;
let nonNulls = 0;
const perFile = [];
const long = [];
for (const file of sourceFiles(src).sort()) {
  const text = fs.readFileSync(file, 'utf8');
  const rel = path.relative(root, file).split(path.sep).join('/');
  const fileLines = text.split('\n');
  lines += fileLines.length;
  fileLines.forEach((l, i) => {
    if (l.length > LONG) long.push(`${rel}:${i + 1} (${l.length})`);
  });
  const found = assertionsOf(file, text);
  casts += found.casts.length;
  nonNulls += found.nonNull.length;
  if (found.casts.length) perFile.push([rel, found.casts.length]);
  if (list) for (const c of found.casts) console.error(`${rel}:${c.line}  ${c.text}`);
  if (list) for (const c of found.nonNull) console.error(`${rel}:${c.line}  non-null: ${c.text}`);
}
const perThousand = Math.round((10_000 * casts) / lines) / 10;
console.error(`${casts} casts in ${lines} lines of src: ${perThousand} per 1,000 lines`);
console.error(
  'most casts:',
  perFile
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([f, n]) => `${f} ${n}`)
    .join(', '),
);
console.error(`${nonNulls} non-null assertions (x!) in src`);
console.error(`${long.length} lines over ${LONG} characters${list ? `:\n  ${long.join('\n  ')}` : ''}`);
console.log(JSON.stringify({ casts, nonNull: nonNulls, lines, perThousand, longLines: long.length }));
