// `npm test`: installs what the tests need, builds, and runs the unit, integration (inside a real VS
// Code extension host) and e2e (the workbench driven like a person) suites; ends with one
// `N passed, N failed` line. Usage: node scripts/test.mjs [unit|integration|e2e|electron ...]
// Works on a fresh clone: it needs no package installed beforehand.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const suites = argv.length ? argv : ['unit', 'integration', 'e2e'];
const verbose = !!process.env.VERBOSE;
const t0 = Date.now();
const log = (m) => console.log(`[test ${((Date.now() - t0) / 1000).toFixed(0)}s] ${m}`);
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
};

function ensureDependencies() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  if (fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs) return;
  log('installing npm packages (npm ci)');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

function build() {
  log('building (esbuild) and type-checking (tsc)');
  run(process.execPath, ['esbuild.mjs']);
  fs.rmSync(path.join(root, 'out'), { recursive: true, force: true });
  run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.test.json']);
  if (fs.existsSync(path.join(root, 'media', 'src')) && fs.readdirSync(path.join(root, 'media', 'src')).some((f) => f.endsWith('.ts')))
    run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'media/tsconfig.json']);
}

/** The formatter's check and the linter over the sources: one check, passed or failed with their own output. */
function style() {
  log('checking the format (prettier) and lint (eslint)');
  const checks = [
    [path.join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), ['--check', '--log-level', 'warn', '.']],
    [path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), ['.']],
  ];
  const failed = checks.filter(([bin, args]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, stdio: 'inherit' }).status !== 0);
  if (failed.length) log('style: failed (npm run format fixes the format; npm run lint lists what the linter found)');
  return failed.length ? { passed: 0, failed: 1 } : { passed: 1, failed: 0 };
}

/** Runs a setup script that prints KEY=VALUE lines; returns them as an object. */
function setup(script, ...args) {
  const out = execFileSync('bash', [path.join(root, 'scripts', script), ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

async function unit() {
  // The real-solver tests need kissat's source (fetched from Debian into a cache, never committed).
  let kissat = process.env.SATLUTION_KISSAT_SRC;
  if (!kissat) {
    try {
      kissat = execFileSync('bash', [path.join(root, 'scripts', 'fetch-solver-source.sh'), 'kissat'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }).trim();
    } catch {
      log('could not fetch the kissat source; its tests will say so');
    }
  }
  const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [mocha, '--reporter', 'spec', '--timeout', '120000', 'out/test/unit/**/*.test.js'], {
      cwd: root,
      env: { ...process.env, ...(kissat ? { SATLUTION_KISSAT_SRC: kissat } : {}) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
      process.stdout.write(d);
    });
    child.on('close', (code) => {
      const passed = Number(/(\d+) passing/.exec(text)?.[1] ?? 0);
      const failed = Number(/(\d+) failing/.exec(text)?.[1] ?? 0) || (code !== 0 && passed === 0 ? 1 : 0);
      resolve({ passed, failed });
    });
  });
}

async function integration(env) {
  const { runIntegration } = require(path.join(root, 'out', 'test', 'runner', 'integration.js'));
  const r = await runIntegration({
    codeServer: env.CODE_SERVER,
    nodeBin: env.NODE24_BIN,
    extensionDir: root,
    testsModule: path.join(root, 'out', 'test', 'integration', 'index.js'),
    verbose,
  });
  return { passed: r.passed, failed: r.failed };
}

async function e2e(env) {
  const { runE2e } = require(path.join(root, 'out', 'test', 'e2e', 'index.js'));
  return runE2e({ codeServer: env.CODE_SERVER, nodeBin: env.NODE24_BIN, root, verbose });
}

async function electron() {
  const { runElectron } = require(path.join(root, 'out', 'test', 'runner', 'electron.js'));
  return runElectron(root);
}

const totals = { passed: 0, failed: 0 };
try {
  ensureDependencies();
  build();
  const checked = style();
  totals.passed += checked.passed;
  totals.failed += checked.failed;
  // Real checkers and solvers for the evaluator's tests (every suite): cadical (Debian), drat-trim
  // (built from source, cached). The tests find drat-trim through SATLUTION_DRAT_TRIM.
  try {
    const tools = setup('setup-sat-tools.sh');
    if (tools.DRAT_TRIM) process.env.SATLUTION_DRAT_TRIM = tools.DRAT_TRIM;
  } catch {
    log('could not set up cadical / drat-trim; the evaluator tests will say so');
  }
  let vscodeEnv;
  for (const s of suites) {
    log(`suite: ${s}`);
    let r;
    if (s === 'unit') r = await unit();
    else if (s === 'integration' || s === 'e2e') {
      vscodeEnv ??= setup('setup-vscode-test.sh');
      r = s === 'integration' ? await integration(vscodeEnv) : await e2e(vscodeEnv);
    } else if (s === 'electron') r = await electron();
    else throw new Error(`unknown suite "${s}" (unit, integration, e2e, electron)`);
    log(`${s}: ${r.passed} passed, ${r.failed} failed`);
    totals.passed += r.passed;
    totals.failed += r.failed;
  }
} catch (e) {
  console.error(`[test] ${e.message}`);
  totals.failed += 1;
}
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed === 0 && totals.passed > 0 ? 0 : 1);
