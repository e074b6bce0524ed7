// Small helpers of readable output: control characters escaped for the terminal, long values cut
// in messages, invalid UTF-8 located, and language codes named in constraint reasons.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invalidUtf8At } from '../../src/cli/files';
import { terminalSafe } from '../../src/cli/terminal';
import { cut, cutQuoted } from '../../src/core/util/cut';
import { checkConstraints } from '../../src/core/verifiers/constraints/checkConstraints';
import { languageName } from '../../src/core/verifiers/constraints/languageNames';

void test('terminalSafe escapes CSI, OSC, C0, C1, DEL and bidi overrides; keeps newlines, tabs and text', () => {
  assert.equal(terminalSafe('a\x1b[2Jb\x1b]0;title\x07c'), 'a\\x1b[2Jb\\x1b]0;title\\x07c');
  assert.equal(terminalSafe('x\u009b31my\x7f\x00\r'), 'x\\x9b31my\\x7f\\x00\\x0d');
  assert.equal(terminalSafe('abc\u202edef'), 'abc\\u202edef');
  assert.equal(terminalSafe('line 1\n\tline 2 é 中文 😀'), 'line 1\n\tline 2 é 中文 😀');
});

void test('cut keeps short values, cuts long ones at 80 with an ellipsis, and keeps messages on one line', () => {
  assert.equal(cut('short'), 'short');
  assert.equal(cut('x'.repeat(200)), 'x'.repeat(79) + '…');
  assert.equal(cut('a\nb'), 'a\\nb');
  assert.equal(
    cutQuoted(`unknown key \`${'k'.repeat(100)}\` in the task`),
    `unknown key \`${'k'.repeat(79)}…\` in the task`,
  );
});

void test('invalidUtf8At finds the first bad byte, including overlong forms and surrogates', () => {
  assert.equal(invalidUtf8At(Buffer.from('héllo 😀')), Buffer.byteLength('héllo 😀'));
  assert.equal(invalidUtf8At(Buffer.from([0x61, 0xff])), 1);
  assert.equal(invalidUtf8At(Buffer.from([0x61, 0xc3])), 1, 'truncated sequence');
  assert.equal(invalidUtf8At(Buffer.from([0xc0, 0xaf])), 0, 'overlong');
  assert.equal(invalidUtf8At(Buffer.from([0x61, 0xed, 0xa0, 0x80])), 1, 'surrogate');
  assert.equal(invalidUtf8At(Buffer.from([0xf4, 0x90, 0x80, 0x80])), 0, 'past U+10FFFF');
});

void test('language codes are named in the reasons of response_language and the English checks', () => {
  assert.equal(languageName('ca'), 'Catalan (ca)');
  assert.equal(languageName('xx'), 'xx');
  const fr = checkConstraints('Nous sommes allés au musée hier après-midi avec des amis.', {
    instructions: [{ 'language:response_language': { language: 'de' } }],
  });
  assert.match(fr.reason, /detected French \(fr\), needs German \(de\)/);
  const lower = checkConstraints('nous sommes allés au musée hier après-midi avec des amis.', {
    instructions: ['change_case:english_lowercase'],
  });
  assert.match(lower.reason, /detected French \(fr\), needs English \(en\)/);
});
