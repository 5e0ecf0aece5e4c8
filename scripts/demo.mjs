// `npm run demo`: the main job on a built-in example. Fetches kissat's upstream source (from Debian,
// cached outside the repo), creates a SATLUTION workspace from it with `satlution init`, builds
// SATLUTION_0 with its starexec_build, runs it on a few of kissat's own test formulas through the
// evaluation worker, and shows `satlution status`. Works on a fresh clone.
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
step('Fetching the kissat source (Debian upstream tarball, cached)');
const src = execFileSync('bash', [path.join(root, 'scripts', 'fetch-solver-source.sh'), 'kissat'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
console.log(src);

if (fs.existsSync(dir)) {
  if (!fs.existsSync(path.join(dir, 'satlution.yaml'))) {
    console.error(`demo: ${dir} exists and is not a SATLUTION workspace; choose another directory`);
    process.exit(2);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
const cli = path.join(root, 'dist', 'cli.js');
step(`satlution init --dir ${path.relative(process.cwd(), dir) || '.'} --seed kissat=<source>`);
// kissat's own 137 small test formulas serve as the smoke set (referenced in place, not copied).
run(process.execPath, [cli, 'init', '--yes', '--dir', dir, '--seed', `kissat=${src}`, '--bench', `smoke=${path.join(src, 'test', 'cnf')}`]);

const cand = path.join(dir, 'SATLUTION_0');
step('bash SATLUTION_0/starexec_build');
const t0 = Date.now();
const build = spawnSync('bash', ['starexec_build'], { cwd: cand, encoding: 'utf8' });
if (build.status !== 0) {
  console.error(build.stdout.slice(-3000) + build.stderr.slice(-3000));
  process.exit(1);
}
console.log(`${build.stdout.trim().split('\n').pop()}  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);

step('SATLUTION_0 on kissat test formulas (bin/starexec_run_default through dist/worker.js)');
const proofs = fs.mkdtempSync(path.join(dir, '.satlution', 'demo-proofs-'));
console.log('instance        answer  status    time');
for (const name of ['and1', 'prime4', 'full4', 'add8', 'false', 'hard']) {
  const proofDir = path.join(proofs, name);
  fs.mkdirSync(proofDir);
  const out = execFileSync(process.execPath, [path.join(root, 'dist', 'worker.js'), '--solver', cand, '--cnf', path.join(cand, 'test', 'cnf', `${name}.cnf`), '--proof-dir', proofDir, '--timeout', '3'], { encoding: 'utf8' });
  const r = JSON.parse(out);
  console.log(`${(name + '.cnf').padEnd(16)}${String(r.answer ?? '-').padEnd(8)}${r.status.padEnd(10)}${r.time_s.toFixed(2)} s`);
}

step('satlution status');
run(process.execPath, [cli, 'status', '--dir', dir]);
console.log(`\nOpen ${dir} in VS Code (with this extension installed: npm run package) to see it in the SATLUTION sidebar.`);
