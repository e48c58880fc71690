// Packs packages/patchbay with `npm pack` and installs the tarball into an
// empty temporary folder with no network (`--offline`: the package has no
// dependencies), as an outside user would. Each test file gets its own
// folder; the tests import the INSTALLED package from there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repo = fileURLToPath(new URL('../../', import.meta.url));
const source = join(repo, 'packages', 'patchbay');

/** { dir, url(subpath) }: `dir` holds node_modules/patchbay. */
export function installPackage() {
  if (!existsSync(join(source, 'core', 'patchbay_wasm_bg.wasm'))) {
    throw new Error('packages/patchbay is not built: run scripts/build-package.sh');
  }
  const dir = mkdtempSync(join(tmpdir(), 'patchbay-installed-'));
  const packs = join(dir, 'pack');
  mkdirSync(packs);
  execFileSync('npm', ['pack', '--pack-destination', packs, '--silent'], { cwd: source, stdio: 'pipe', env: npmEnv() });
  const tarball = join(packs, readdirSync(packs).find((f) => f.endsWith('.tgz')));
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], {
    cwd: app, stdio: 'pipe', env: npmEnv(),
  });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return { dir: app, tarball, module: (sub = '') => pathToFileURL(join(app, 'node_modules', 'patchbay', sub)).href };
}

/** npm with its cache in a temporary folder, so nothing outside is read. */
function npmEnv() {
  return { ...process.env, npm_config_cache: join(tmpdir(), 'patchbay-npm-cache'), npm_config_update_notifier: 'false' };
}

/** The native core's reports on every corpus case (`tests` crate's corpus-reports bin). */
export function nativeReports() {
  const out = execFileSync('cargo', ['run', '-q', '-p', 'patchbay-tests', '--bin', 'corpus-reports'], {
    cwd: repo, maxBuffer: 1 << 30, encoding: 'utf8',
  });
  return out.trim().split('\n').map((l) => JSON.parse(l));
}
