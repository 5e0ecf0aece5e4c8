// `npm run demo -- --quick`: the two-minute tour of the gates. Evaluates SATLUTION_0 through every gate
// with `satlution eval` (models checked, DRAT proofs checked by drat-trim, PAR-2 measured) on small
// generated sets, shows the rules stopping a cheating challenger, runs two tuner cycles and shows
// `satlution status`.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cli, editConfig, freshWorkspace, gateSets, run, satlution, step, writeSet } from './common.mjs';

export function quickTour(dir, seed) {
  freshWorkspace(dir, seed);
  const kissat = seed.name === 'kissat';
  step(`Benchmark sets: smoke = ${kissat ? "kissat's own test formulas" : 'small generated formulas'}, verify and perf = generated with known answers`);
  gateSets(dir, seed);
  writeSet(dir, 'perf', [
    ...[
      [9, 8],
      [10, 9],
    ].map(([p, h]) => [`php-${p}-${h}.cnf`, 'pigeonhole', 'UNSAT', satlution('generate', 'pigeonhole', p, h)]),
    // kissat: 0.1-1.5 s each; minicdcl is far slower, so it gets smaller formulas.
    ...[1, 2, 3, 4, 5, 6].map((s) =>
      kissat
        ? [`planted-450-${s}.cnf`, 'planted-3sat', 'SAT', satlution('generate', 'planted', 450, 4.26, 100 + s)]
        : [`planted-200-${s}.cnf`, 'planted-3sat', 'SAT', satlution('generate', 'planted', 200, 4.26, 100 + s)],
    ),
  ]);
  // Short limits so the demo takes seconds; a real project uses the SAT Competition's 5000 s.
  editConfig(dir, 'timeout_s: 300, mem_mb: 8192', 'timeout_s: 20,  mem_mb: 4096');

  step('satlution eval SATLUTION_0 --stage all --json results.json   (build, smoke, verify, perf)');
  const t0 = Date.now();
  const ev = spawnSync(process.execPath, [cli, 'eval', path.join(dir, 'SATLUTION_0'), '--stage', 'all', '--json', path.join(dir, 'results.json')], {
    stdio: 'inherit',
  });
  console.log(`(exit ${ev.status}, ${((Date.now() - t0) / 1000).toFixed(1)} s; per-instance results in ${path.join(dir, 'results.json')})`);
  if (ev.status !== 0) process.exit(ev.status ?? 1);

  step('A cheating challenger: SATLUTION_1 answers one benchmark by its name (the rules stop it before any run)');
  const challenger = satlution('new', '--dir', dir, '--title', 'shortcut a slow instance').trim();
  const [app, entry] = kissat
    ? [path.join(challenger, 'src', 'application.c'), 'int kissat_application (kissat *solver, int argc, char **argv) {']
    : [path.join(challenger, 'src', 'minicdcl.c'), 'int main(int argc, char **argv) {'];
  fs.writeFileSync(
    app,
    fs.readFileSync(app, 'utf8').replace(entry, `${entry}\n  if (argc > 1 && strstr (argv[1], "php-10-9")) { printf ("s UNSATISFIABLE\\n"); return 20; }`),
  );
  fs.writeFileSync(
    path.join(challenger, 'HYPOTHESIS.md'),
    '# SATLUTION_1\n## Change\nShortcut a slow instance.\n## Rationale\nIt is UNSAT anyway.\n## Expected effect\nPAR-2 drops.\n',
  );
  console.log(`satlution new -> ${challenger}; ${path.relative(challenger, app)} now answers php-10-9 by its name`);
  const cheat = spawnSync(process.execPath, [cli, 'eval', challenger, '--stage', 'all'], { encoding: 'utf8' });
  process.stdout.write(cheat.stdout.split('\n').slice(0, 3).join('\n') + '\n');
  console.log(`(exit ${cheat.status}: stopped before any benchmark time was spent)`);

  step('Two evolution cycles with the offline tuner (no LLM needed): satlution cycle --agent tuner --cycles 2 --yes');
  const tuned = spawnSync(process.execPath, [cli, 'cycle', '--agent', 'tuner', '--cycles', '2', '--yes', '--dir', dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
  console.log(
    `\nPAR-2 on the perf set: SATLUTION_0 ${par2('SATLUTION_0')?.toFixed(3)} s -> champion ${status.champion} ${par2(status.champion)?.toFixed(3)} s`,
  );
  console.log('Reports:');
  for (const c of status.candidates.filter((x) => x.id > 0)) console.log(`  ${path.join(dir, c.dir, 'RESULTS.md')}  (${c.status})`);

  step('satlution status');
  run(process.execPath, [cli, 'status', '--dir', dir]);
}
