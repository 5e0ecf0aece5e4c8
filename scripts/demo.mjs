// `npm run demo`: the main job on a built-in example. Fetches kissat's upstream source (from Debian,
// cached outside the repo), creates a SATLUTION workspace from it with `satlution init`, fills the
// smoke / verify / perf sets (kissat's own test formulas; generated pigeonhole and planted 3-SAT with
// known answers), evaluates SATLUTION_0 through every gate with `satlution eval` (models checked,
// DRAT proofs checked by drat-trim, PAR-2 measured), shows the rules stopping a cheating challenger,
// runs two evolution cycles with the offline tuner, and shows `satlution status`. Works on a fresh clone.
//   usage: npm run demo [-- DIR]     (default DIR: .satlution-demo, recreated each time)
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dir = path.resolve(process.argv[2] ?? path.join(root, '.satlution-demo'));
const step = (m) => console.log(`\n== ${m}`);
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`demo: ${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
};

if (!fs.existsSync(path.join(root, 'node_modules', 'esbuild'))) {
  step('Installing npm packages');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}
step('Building the extension, the CLI and the worker');
run(process.execPath, ['esbuild.mjs']);
for (const tool of ['make', 'cc', 'git']) {
  if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
    step(`Installing build tools (${tool} is missing)`);
    run('bash', ['-c', 'SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo; $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq build-essential git']);
    break;
  }
}
// The seed: kissat's upstream source where Debian's archive is reachable, else (or with
// SATLUTION_DEMO_SEED=minicdcl) the small CDCL solver this project ships in examples/minicdcl.
let src;
let seedName = 'kissat';
if (process.env.SATLUTION_DEMO_SEED !== 'minicdcl') {
  step('Fetching the kissat source (Debian upstream tarball, cached)');
  const r = spawnSync('bash', [path.join(root, 'scripts', 'fetch-solver-source.sh'), 'kissat'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status === 0) src = r.stdout.trim();
  else console.log('kissat\'s source could not be fetched here; using the example solver examples/minicdcl instead');
}
if (!src) {
  seedName = 'minicdcl';
  src = path.join(root, 'examples', 'minicdcl');
}
console.log(src);
const kissat = seedName === 'kissat';

if (fs.existsSync(dir)) {
  if (!fs.existsSync(path.join(dir, 'satlution.yaml'))) {
    console.error(`demo: ${dir} exists and is not a SATLUTION workspace; choose another directory`);
    process.exit(2);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
const cli = path.join(root, 'dist', 'cli.js');
step(`satlution init --dir ${path.relative(process.cwd(), dir) || '.'} --seed ${seedName}=<source>`);
run(process.execPath, [cli, 'init', '--yes', '--dir', dir, '--seed', `${seedName}=${src}`]);

step(`Benchmark sets: smoke = ${kissat ? "kissat's own test formulas" : 'small generated formulas'}, verify and perf = generated with known answers`);
const bench = (set) => path.join(dir, 'benchmarks', set);
if (kissat) {
  for (const f of fs.readdirSync(path.join(src, 'test', 'cnf')))
    if (f.endsWith('.cnf') && !['hard.cnf', 'ph11.cnf'].includes(f)) fs.copyFileSync(path.join(src, 'test', 'cnf', f), path.join(bench('smoke'), f)); // those two are pigeonhole(12,11) and (11,10): minutes
}
const gen = (...args) => execFileSync(process.execPath, [cli, 'generate', ...args.map(String)], { encoding: 'utf8' });
const pigeonhole = (p, h) => gen('pigeonhole', p, h);
const planted3Sat = (n, ratio, seed) => gen('planted', n, ratio, seed);
const writeSet = (set, items) => {
  let meta = 'instance,family,expected\n';
  for (const [name, family, expected, text] of items) {
    fs.writeFileSync(path.join(bench(set), name), text);
    meta += `${name},${family},${expected}\n`;
  }
  fs.writeFileSync(path.join(bench(set), 'meta.csv'), meta);
};
if (!kissat)
  writeSet('smoke', [
    ...[[3, 2], [4, 3]].map(([p, h]) => [`php-${p}-${h}.cnf`, 'pigeonhole', 'UNSAT', pigeonhole(p, h)]),
    ...[1, 2, 3, 4].map((s) => [`planted-40-${s}.cnf`, 'planted-3sat', 'SAT', planted3Sat(40, 4.0, s)]),
  ]);
writeSet('verify', [
  ...[[6, 5], [7, 6], [8, 7]].map(([p, h]) => [`php-${p}-${h}.cnf`, 'pigeonhole', 'UNSAT', pigeonhole(p, h)]),
  ...[1, 2, 3, 4].map((s) => [`planted-200-${s}.cnf`, 'planted-3sat', 'SAT', planted3Sat(200, 4.2, s)]),
]);
writeSet('perf', [
  ...[[9, 8], [10, 9]].map(([p, h]) => [`php-${p}-${h}.cnf`, 'pigeonhole', 'UNSAT', pigeonhole(p, h)]),
  // kissat: 0.1-1.5 s each; minicdcl is far slower, so it gets smaller formulas.
  ...[1, 2, 3, 4, 5, 6].map((s) => (kissat ? [`planted-450-${s}.cnf`, 'planted-3sat', 'SAT', planted3Sat(450, 4.26, 100 + s)] : [`planted-200-${s}.cnf`, 'planted-3sat', 'SAT', planted3Sat(200, 4.26, 100 + s)])),
]);
// A SAT Competition-style compressed instance in the verify set.
fs.writeFileSync(path.join(bench('verify'), 'php-5-4.cnf'), pigeonhole(5, 4));
spawnSync('xz', ['-f', path.join(bench('verify'), 'php-5-4.cnf')]);
fs.appendFileSync(path.join(bench('verify'), 'meta.csv'), 'php-5-4.cnf.xz,pigeonhole,UNSAT\n');
// Short limits so the demo takes seconds; a real project uses the SAT Competition's 5000 s.
const cfgFile = path.join(dir, 'satlution.yaml');
fs.writeFileSync(cfgFile, fs.readFileSync(cfgFile, 'utf8').replace('timeout_s: 300, mem_mb: 8192', 'timeout_s: 20,  mem_mb: 4096'));

step('Setting up drat-trim and cadical (built or installed once, cached)');
run('bash', [path.join(root, 'scripts', 'setup-sat-tools.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });

step('satlution eval SATLUTION_0 --stage all --json results.json   (build, smoke, verify, perf)');
const t0 = Date.now();
const ev = spawnSync(process.execPath, [cli, 'eval', path.join(dir, 'SATLUTION_0'), '--stage', 'all', '--json', path.join(dir, 'results.json')], { stdio: 'inherit' });
console.log(`(exit ${ev.status}, ${((Date.now() - t0) / 1000).toFixed(1)} s; per-instance results in ${path.join(dir, 'results.json')})`);
if (ev.status !== 0) process.exit(ev.status ?? 1);

step('A cheating challenger: SATLUTION_1 answers one benchmark by its name (the rules stop it before any run)');
const challenger = execFileSync(process.execPath, [cli, 'new', '--dir', dir, '--title', 'shortcut a slow instance'], { encoding: 'utf8' }).trim();
const [app, entry] = kissat ? [path.join(challenger, 'src', 'application.c'), 'int kissat_application (kissat *solver, int argc, char **argv) {'] : [path.join(challenger, 'src', 'minicdcl.c'), 'int main(int argc, char **argv) {'];
fs.writeFileSync(app, fs.readFileSync(app, 'utf8').replace(entry, `${entry}\n  if (argc > 1 && strstr (argv[1], "php-10-9")) { printf ("s UNSATISFIABLE\\n"); return 20; }`));
fs.writeFileSync(path.join(challenger, 'HYPOTHESIS.md'), '# SATLUTION_1\n## Change\nShortcut a slow instance.\n## Rationale\nIt is UNSAT anyway.\n## Expected effect\nPAR-2 drops.\n');
console.log(`satlution new -> ${challenger}; ${path.relative(challenger, app)} now answers php-10-9 by its name`);
const cheat = spawnSync(process.execPath, [cli, 'eval', challenger, '--stage', 'all'], { encoding: 'utf8' });
process.stdout.write(cheat.stdout.split('\n').slice(0, 3).join('\n') + '\n');
console.log(`(exit ${cheat.status}: stopped before any benchmark time was spent)`);

step('Two evolution cycles with the offline tuner (no LLM needed): satlution cycle --agent tuner --cycles 2 --yes');
const tuned = spawnSync(process.execPath, [cli, 'cycle', '--agent', 'tuner', '--cycles', '2', '--yes', '--dir', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
process.stdout.write(tuned.stdout);
if (tuned.status !== 0) process.exit(tuned.status ?? 1);
const par2 = (c) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, '.satlution', 'evals', `${c}.json`), 'utf8')).metrics?.par2;
  } catch {
    return undefined;
  }
};
const status = JSON.parse(execFileSync(process.execPath, [cli, 'status', '--json', '--dir', dir], { encoding: 'utf8' }));
console.log(`\nPAR-2 on the perf set: SATLUTION_0 ${par2('SATLUTION_0')?.toFixed(3)} s -> champion ${status.champion} ${par2(status.champion)?.toFixed(3)} s`);
console.log('Reports:');
for (const c of status.candidates.filter((x) => x.id > 0)) console.log(`  ${path.join(dir, c.dir, 'RESULTS.md')}  (${c.status})`);

step('satlution status');
run(process.execPath, [cli, 'status', '--dir', dir]);
console.log(`\nOpen ${dir} in VS Code (with this extension installed: npm run package) to see it in the SATLUTION sidebar.`);
