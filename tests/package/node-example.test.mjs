// The README's node example, run against the installed package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installPackage } from './install.mjs';
import { examples } from './examples.mjs';

test('the README\'s node example runs and applies its edit', { timeout: 120_000 }, () => {
  const { dir } = installPackage();
  const file = join(dir, 'example.mjs');
  writeFileSync(file, examples().node);
  const out = execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' });
  const lines = out.trim().split('\n');
  assert.equal(lines[0], 'def total(xs):');
  assert.equal(lines[1], '    return sum(xs) if xs else 0');
  assert.match(out, /^src\/app\.py applied \[ 2, 2 \]$/m);
  assert.equal(lines.at(-1), 'applied');
});
