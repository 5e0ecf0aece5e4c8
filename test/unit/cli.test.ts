import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CandidateStore } from '../../src/core/store/candidates';
import { CLI, FIXTURES, tempDir } from './helpers';

function cli(args: string[], cwd?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('cli: satlution init / status', () => {
  it('init then status --json on a seed directory given relative to the current directory', () => {
    const dir = tempDir();
    const init = cli(['init', '--dir', dir, '--seed', `tinysat=${path.relative(FIXTURES, path.join(FIXTURES, 'seeds', 'tinysat'))}`], FIXTURES);
    assert.equal(init.code, 0, init.err);
    assert.match(init.out, /champion: SATLUTION_0/);
    assert.match(init.out, /generated \(review them\): seeds\/tinysat\/starexec_build, seeds\/tinysat\/bin\/starexec_run_default/);
    assert.match(init.err, /Generate them\? yes \(no terminal to ask/);
    const st = cli(['status', '--json'], path.join(dir, 'SATLUTION_0')); // found from a subdirectory
    assert.equal(st.code, 0, st.err);
    const j = JSON.parse(st.out) as {
      champion: string;
      config_ok: boolean;
      candidates: { dir: string; status: string; lineage: string[]; docs: string[] }[];
      seeds: { name: string; source: string }[];
    };
    assert.equal(j.champion, 'SATLUTION_0');
    assert.equal(j.config_ok, true);
    assert.deepEqual(
      j.candidates.map((c) => [c.dir, c.status, c.lineage, c.docs.length]),
      [['SATLUTION_0', 'seed', ['SATLUTION_0'], 3]],
    );
    assert.equal(j.seeds[0]!.source, path.join(FIXTURES, 'seeds', 'tinysat'));
    const text = cli(['status', '--dir', dir]);
    assert.match(text.out, /★ SATLUTION_0 +seed /);
  });

  it('shows the lineage tree of recorded candidates', async () => {
    const dir = tempDir();
    assert.equal(cli(['init', '--dir', dir, '--yes', '--seed', path.join(FIXTURES, 'seeds', 'tinysat')]).code, 0);
    const s = new CandidateStore(dir);
    await s.create({ parent: 0, status: 'failed', detail: 'build failed' });
    await s.create({ parent: 0, status: 'verified' });
    await s.create({ parent: 2, status: 'coding' });
    const out = cli(['status', '--dir', dir])
      .out.split('\n')
      .filter((l) => /^[★ ] +SATLUTION_/.test(l));
    assert.match(out[0]!, /^★ SATLUTION_0 /);
    assert.match(out[1]!, /^ {4}SATLUTION_1 +failed .*DIRECTORY MISSING · build failed/);
    assert.match(out[2]!, /^ {4}SATLUTION_2 +verified/);
    assert.match(out[3]!, /^ {6}SATLUTION_3 +coding/);
  });

  it('exits 2 with the key and the line for an invalid satlution.yaml', () => {
    const dir = tempDir();
    assert.equal(cli(['init', '--dir', dir, '--no-generate', '--seed', path.join(FIXTURES, 'seeds', 'tinysat')]).code, 0);
    const f = path.join(dir, 'satlution.yaml');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('approval: semi', 'approval: yolo'));
    const st = cli(['status', '--dir', dir]);
    assert.equal(st.code, 2);
    assert.match(st.out, /satlution\.yaml:\d+:11: approval: must be one of "manual", "semi", "auto"; got "yolo" \(example: approval: semi\)/);
  });

  it('exits 2 on bad usage with a message that says what to do', () => {
    assert.equal(cli([]).code, 2);
    const unknown = cli(['evolve']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command "evolve"/);
    const noSeed = cli(['init', '--dir', tempDir()]);
    assert.equal(noSeed.code, 2);
    assert.match(noSeed.err, /init needs at least one --seed NAME=PATH_OR_GIT_URL/);
    const badFlag = cli(['status', '--jsno']);
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.err, /Unknown option '--jsno'/);
    const nowhere = cli(['status', '--dir', tempDir()]);
    assert.equal(nowhere.code, 2);
    assert.match(nowhere.err, /no satlution\.yaml in .* or above/);
    const missing = cli(['init', '--dir', tempDir(), '--seed', 'x=/no/such/dir']);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /seed directory \/no\/such\/dir does not exist/);
  });

  it('prints the config JSON Schema', () => {
    const r = cli(['schema']);
    assert.equal(r.code, 0);
    const s = JSON.parse(r.out) as { required: string[] };
    assert.deepEqual(s.required, ['seeds']);
  });
});
