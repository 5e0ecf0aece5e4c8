// The evaluation document and its store: what is written reads back validated; a damaged, foreign or
// newer file is a reason, never a crash; a file from before the version field still reads.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EvalDoc } from '../../src/core/eval/evalDoc';
import { EvalStore } from '../../src/core/eval/evalStore';
import { sampleEvalDoc } from '../fixtures/evalDocs';
import { CLI, tempDir, write } from './helpers';

const doc = () => sampleEvalDoc();

describe('the evaluation document and EvalStore', () => {
  it('writes atomically and reads back what it wrote', async () => {
    const ws = tempDir();
    const store = new EvalStore(ws);
    const file = await store.write(1, doc());
    assert.equal(file, path.join(ws, '.satlution', 'evals', 'SATLUTION_1.json'));
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['SATLUTION_1.json'], 'no temporary file is left behind');
    assert.deepEqual(await store.read('SATLUTION_1'), { status: 'ok', doc: doc() });
    assert.deepEqual(await store.candidates(), ['SATLUTION_1']);
    assert.equal(store.candidateOf(path.join(ws, 'SATLUTION_1')), 'SATLUTION_1');
    assert.equal(store.candidateOf(path.join(ws, 'elsewhere', 'SATLUTION_1')), undefined);
  });

  it('refuses to write a document that does not match the schema', async () => {
    const bad = { ...doc(), verdict: 'maybe' } as unknown as EvalDoc;
    await assert.rejects(new EvalStore(tempDir()).write(1, bad));
  });

  it('reads a file from before the version field as version 1', async () => {
    const ws = tempDir();
    const { version: _v, ...old } = doc();
    write(path.join(ws, '.satlution', 'evals', 'SATLUTION_2.json'), JSON.stringify(old));
    const r = await new EvalStore(ws).read(2);
    assert.equal(r.status, 'ok');
    assert.equal(r.status === 'ok' && r.doc.version, 1);
  });

  it('gives a reason for a damaged, foreign or newer file, and get() counts it as not evaluated', async () => {
    const ws = tempDir();
    const evals = path.join(ws, '.satlution', 'evals');
    write(path.join(evals, 'SATLUTION_1.json'), '{ "verdict": "pass", "gates": [');
    write(path.join(evals, 'SATLUTION_2.json'), JSON.stringify({ hello: 'world' }));
    write(path.join(evals, 'SATLUTION_3.json'), JSON.stringify({ ...doc(), version: 7 }));
    write(path.join(evals, 'SATLUTION_4.json'), JSON.stringify({ ...doc(), instances: [{ instance: 'a.cnf', status: 'fast' }] }));
    const store = new EvalStore(ws);
    const reason = async (id: number) => {
      const r = await store.read(id);
      assert.equal(r.status, 'invalid');
      return r.status === 'invalid' ? r.reason : '';
    };
    assert.match(await reason(1), /not valid JSON/);
    assert.match(await reason(2), /^solver: .*\(and \d+ more problems\)$/);
    assert.match(await reason(3), /written by a newer SATLUTION \(format 7; this one reads 1\)/);
    assert.match(await reason(4), /^instances\.0\./);
    assert.deepEqual(await store.read(5), { status: 'missing' });
    const heard: string[] = [];
    assert.equal(await store.get(3, (m) => heard.push(m)), undefined);
    assert.match(heard[0]!, /^\.satlution\/evals\/SATLUTION_3\.json: it was written by a newer SATLUTION .*counts as not evaluated$/);
  });

  it('satlution compare reads two documents, and says which file is not one', () => {
    const dir = tempDir();
    const inst = sampleEvalDoc().instances[0]!;
    const names = ['a.cnf', 'b.cnf', 'c.cnf', 'd.cnf', 'e.cnf', 'f.cnf'];
    const at = (k: number) => sampleEvalDoc({ instances: names.map((instance, i) => ({ ...inst, instance, time_s: k * (1 + i / 10) })) });
    const a = write(path.join(dir, 'a.json'), JSON.stringify(at(4)));
    const b = write(path.join(dir, 'b.json'), JSON.stringify(at(1)));
    const ok = spawnSync(process.execPath, [CLI, 'compare', a, b, '--json'], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    const r = JSON.parse(ok.stdout) as { common: number; par2A: number; par2B: number; verdict: string; caveat?: string };
    assert.equal(r.common, 6);
    assert.ok(r.par2B < r.par2A);
    // Outside a workspace no drift between sessions is recorded: two separate measurements get no verdict, and the reason.
    assert.equal(r.verdict, 'no significant difference');
    assert.match(r.caveat ?? '', /how far this machine drifts between sessions is not measured yet/);
    // A band given by hand decides instead (B is 4x faster on every instance).
    const byHand = spawnSync(process.execPath, [CLI, 'compare', a, b, '--band', '5'], { encoding: 'utf8' });
    assert.match(byHand.stdout, /verdict: B faster \(alpha 0\.05, noise band 5\.0%\)/);
    assert.doesNotMatch(byHand.stdout, /why:/);
    // The same solver measured quiet and beside another program (its runs got 60% of a core, and 15% more CPU):
    // no verdict between measurements under different load, and the reason.
    const timed = (k: number, share: number) =>
      sampleEvalDoc({
        instances: names.map((instance, i) => ({ ...inst, instance, status: 'solved' as const, cpu_s: k * (1 + i / 10), time_s: (k * (1 + i / 10)) / share })),
      });
    const quiet = write(path.join(dir, 'quiet.json'), JSON.stringify(timed(1, 0.95)));
    const loaded = write(path.join(dir, 'loaded.json'), JSON.stringify(timed(1.15, 0.6)));
    const off = spawnSync(process.execPath, [CLI, 'compare', quiet, loaded, '--on', 'cpu'], { encoding: 'utf8' });
    assert.equal(off.status, 0, off.stderr);
    assert.match(off.stdout, /verdict: no significant difference/);
    assert.match(off.stdout, /why: measured under different load: A's runs got 95% of a core, B's 60%/);
    const bad = write(path.join(dir, 'bad.json'), JSON.stringify({ ...at(1), timeout_s: null }));
    const no = spawnSync(process.execPath, [CLI, 'compare', a, bad], { encoding: 'utf8' });
    assert.equal(no.status, 2);
    assert.match(no.stderr, /bad\.json is not a satlution eval result: timeout_s: /);
  });
});
