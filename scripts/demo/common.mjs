// Shared steps of the demos: install what is missing, build, fetch the seed's source, create the
// workspace and its smoke and verify sets. Every step prints what it runs.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
export const cli = path.join(root, 'dist', 'cli.js');
export const step = (m) => console.log(`\n== ${m}`);

/** Runs a command with inherited stdio; exits the demo when it fails. */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`demo: ${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
  return r;
}

/** `satlution ARGS` with its output captured (stderr passes through). */
export const satlution = (...args) =>
  execFileSync(process.execPath, [cli, ...args.map(String)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });

/** npm packages, the bundles and the C tool chain. */
export function prepare() {
  if (!fs.existsSync(path.join(root, 'node_modules', 'esbuild'))) {
    step('Installing npm packages');
    run('npm', ['ci', '--no-audit', '--no-fund']);
  }
  step('Building the extension, the CLI and the worker');
  run(process.execPath, ['esbuild.mjs']);
  for (const tool of ['make', 'cc', 'git']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
      step(`Installing build tools (${tool} is missing)`);
      run('bash', [
        '-c',
        'SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo; $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq build-essential git',
      ]);
      break;
    }
  }
  step('Setting up drat-trim, cadical, berkeley-abc and bubblewrap (built or installed once, cached)');
  run('bash', [path.join(root, 'scripts', 'setup-sat-tools.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
}

/**
 * The seed: kissat's upstream source where Debian's archive is reachable, else (or with
 * SATLUTION_DEMO_SEED=minicdcl) the small CDCL solver this project ships in examples/minicdcl.
 */
export function seedSource() {
  if (process.env.SATLUTION_DEMO_SEED !== 'minicdcl') {
    step('Fetching the kissat source (Debian upstream tarball, cached)');
    const r = spawnSync('bash', [path.join(root, 'scripts', 'fetch-solver-source.sh'), 'kissat'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (r.status === 0) return { name: 'kissat', src: r.stdout.trim() };
    console.log("kissat's source could not be fetched here; using the example solver examples/minicdcl instead");
  }
  return { name: 'minicdcl', src: path.join(root, 'examples', 'minicdcl') };
}

/** The cache outside the repository (what the set-up scripts use). */
export const cacheDir = () => process.env.SATLUTION_DEV_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'satlution-dev');

/** A fresh workspace in `dir` (an existing demo workspace is replaced; anything else is refused). */
export function freshWorkspace(dir, seed) {
  if (fs.existsSync(dir)) {
    if (!fs.existsSync(path.join(dir, 'satlution.yaml'))) {
      console.error(`demo: ${dir} exists and is not a SATLUTION workspace; choose another directory`);
      process.exit(2);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
  step(`satlution init --dir ${path.relative(process.cwd(), dir) || '.'} --seed ${seed.name}=<source>`);
  run(process.execPath, [cli, 'init', '--yes', '--dir', dir, '--seed', `${seed.name}=${seed.src}`]);
}

/** Writes a set's instances and meta.csv: items are [name, family, expected, text]. */
export function writeSet(dir, set, items) {
  const bench = path.join(dir, 'benchmarks', set);
  fs.mkdirSync(bench, { recursive: true });
  let meta = 'instance,family,expected\n';
  for (const [name, family, expected, text] of items) {
    fs.writeFileSync(path.join(bench, name), text);
    meta += `${name},${family},${expected}\n`;
  }
  fs.writeFileSync(path.join(bench, 'meta.csv'), meta);
}

/** Smoke (kissat's own test formulas, or small generated ones) and verify (generated, answers known by construction). */
export function gateSets(dir, seed) {
  const bench = (set) => path.join(dir, 'benchmarks', set);
  const pigeonhole = (p, h) => satlution('generate', 'pigeonhole', p, h);
  const planted = (n, ratio, s) => satlution('generate', 'planted', n, ratio, s);
  if (seed.name === 'kissat') {
    // Every fifth of kissat's own test formulas (27 of 135: a screen, not a test suite), without
    // hard.cnf and ph11.cnf, pigeonhole (12,11) and (11,10), which take minutes.
    const cnfs = fs
      .readdirSync(path.join(seed.src, 'test', 'cnf'))
      .filter((f) => f.endsWith('.cnf') && !['hard.cnf', 'ph11.cnf'].includes(f))
      .sort();
    for (const f of cnfs.filter((_, i) => i % 5 === 0)) fs.copyFileSync(path.join(seed.src, 'test', 'cnf', f), path.join(bench('smoke'), f));
  } else
    writeSet(dir, 'smoke', [
      ...[
        [3, 2],
        [4, 3],
      ].map(([p, h]) => [`php-${p}-${h}.cnf`, 'pigeonhole', 'UNSAT', pigeonhole(p, h)]),
      ...[1, 2, 3, 4].map((s) => [`planted-40-${s}.cnf`, 'planted-3sat', 'SAT', planted(40, 4.0, s)]),
    ]);
  writeSet(dir, 'verify', [
    ...[
      [6, 5],
      [7, 6],
      [8, 7],
    ].map(([p, h]) => [`php-${p}-${h}.cnf`, 'pigeonhole', 'UNSAT', pigeonhole(p, h)]),
    ...[1, 2, 3, 4].map((s) => [`planted-200-${s}.cnf`, 'planted-3sat', 'SAT', planted(200, 4.2, s)]),
  ]);
  // A SAT Competition-style compressed instance in the verify set.
  fs.writeFileSync(path.join(bench('verify'), 'php-5-4.cnf'), pigeonhole(5, 4));
  spawnSync('xz', ['-f', path.join(bench('verify'), 'php-5-4.cnf')]);
  fs.appendFileSync(path.join(bench('verify'), 'meta.csv'), 'php-5-4.cnf.xz,pigeonhole,UNSAT\n');
}

/** Replaces one piece of satlution.yaml (a string or a RegExp; the demo's short limits); fails loudly when the template changed. */
export function editConfig(dir, from, to) {
  const file = path.join(dir, 'satlution.yaml');
  const text = fs.readFileSync(file, 'utf8');
  if (typeof from === 'string' ? !text.includes(from) : !from.test(text)) {
    console.error(`demo: satlution.yaml has no "${from}" to change`);
    process.exit(1);
  }
  fs.writeFileSync(file, text.replace(from, to));
}
