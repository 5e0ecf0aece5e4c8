// `npm run demo`: the main job on a built-in example (scripts/demo/evolve.mjs): kissat's source evolved
// within a time budget on generated families with proved answers, then judged on instances selection
// never saw. `npm run demo -- --quick`: the two-minute tour of the gates (scripts/demo/quick.mjs).
//   usage: npm run demo [-- [--quick] [--agent tuner|llm] [--models satlution.yaml] [--minutes M] [--seed N] [DIR]]
//   DIR defaults to .satlution-demo (recreated each time).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { root, prepare, seedSource, step } from './demo/common.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    quick: { type: 'boolean', default: false },
    agent: { type: 'string', default: 'tuner' },
    models: { type: 'string', default: 'satlution.yaml' },
    minutes: { type: 'string', default: '8' },
    seed: { type: 'string', default: '1' },
  },
});
const dir = path.resolve(positionals[0] ?? path.join(root, '.satlution-demo'));
const minutes = Number(values.minutes);
const suiteSeed = Number(values.seed);
if (!['tuner', 'llm'].includes(values.agent) || !(minutes > 0) || !Number.isInteger(suiteSeed)) {
  console.error('usage: npm run demo [-- [--quick] [--agent tuner|llm] [--models FILE] [--minutes M] [--seed N] [DIR]]');
  process.exit(2);
}
if (values.agent === 'llm' && !values.quick && !fs.existsSync(values.models)) {
  console.error(`demo: --agent llm takes its models from ${values.models}, which does not exist (pass --models FILE: a satlution.yaml with a models block)`);
  process.exit(2);
}

prepare();
const seed = seedSource();
console.log(seed.src);
if (values.quick || seed.name !== 'kissat') {
  if (!values.quick)
    console.log('The evolution demo tunes kissat, whose source could not be fetched here: showing the quick tour of the gates with examples/minicdcl instead.');
  const { quickTour } = await import('./demo/quick.mjs');
  quickTour(dir, seed);
} else {
  const { evolveDemo } = await import('./demo/evolve.mjs');
  evolveDemo(dir, seed, { agent: values.agent, models: path.resolve(values.models), minutes, suiteSeed });
}
console.log(`\nOpen ${dir} in VS Code with this extension (npm run package builds it) for the lineage, the dashboard and every RESULTS.md.`);
if (!process.env.CI && process.stdout.isTTY && spawnSync('sh', ['-c', 'command -v code'], { stdio: 'ignore' }).status === 0) {
  step(`code ${dir}`);
  spawnSync('code', [dir], { stdio: 'inherit' });
}
