// Benchmark: model-check throughput (MB of CNF per second, one core), the cost of trusting a SAT
// answer on competition-size formulas. Target: >= 100 MB/s.  Run: npm run bench -- model-check
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { planted } from '../src/core/instances/generators';
import { checkModel, ModelBuilder } from '../src/core/run/modelCheck';

async function main(): Promise<void> {
  const vars = Number(process.env.BENCH_VARS ?? 1_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-'));
  try {
    const { header, clauses, hidden } = planted(vars, 4.2, 1);
    const file = path.join(dir, 'big.cnf');
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, header);
    for (let i = 0; i < clauses.length; i += 100000) fs.writeSync(fd, clauses.slice(i, i + 100000).join('\n') + '\n');
    fs.closeSync(fd);
    const mb = fs.statSync(file).size / 2 ** 20;
    const model = new ModelBuilder(vars);
    for (let v = 1; v <= vars; v++) model.add(v * hidden[v]!);
    model.add(0);
    const gz = path.join(dir, 'big.cnf.gz');
    fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(file), { level: 1 }));
    console.log(`formula: ${vars} variables, ${clauses.length} clauses, ${mb.toFixed(1)} MB`);
    for (const [label, f] of [
      ['plain .cnf', file],
      ['.cnf.gz', gz],
    ] as const) {
      const times: number[] = [];
      for (let rep = 0; rep < 3; rep++) {
        const r = await checkModel(f, model);
        if (!r.ok) throw new Error(`the model should satisfy the formula: ${r.detail}`);
        times.push(r.timeS);
      }
      const best = Math.min(...times);
      console.log(
        `model check, ${label.padEnd(10)}: best of 3 ${best.toFixed(2)} s = ${(mb / best).toFixed(0)} MB/s of CNF (runs: ${times.map((t) => t.toFixed(2)).join(', ')} s)`,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
