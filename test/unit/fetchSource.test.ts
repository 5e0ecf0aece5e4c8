// scripts/fetch-solver-source.sh leaves the system's apt configuration as it was: run in a mount
// namespace (bubblewrap) whose /etc/apt is a writable throw-away copy and whose every other path but
// a temp dir (the cache, TMPDIR) is read-only, it fetches kissat's source from Debian's archive, and the copy is byte for
// byte what it was. An apt-get that wrote /var/lib/apt or /var/cache/apt would fail there.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, tempDir } from './helpers';

/** Every entry under `dir` with its kind, mode and content (files) or target (links), sorted: equal trees give equal lists. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isSymbolicLink()) out.push(`${rel} -> ${fs.readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.push(`${rel}/ ${st.mode.toString(8)}`);
        walk(p);
      } else out.push(`${rel} ${st.mode.toString(8)} ${createHash('sha256').update(fs.readFileSync(p)).digest('hex')}`);
    }
  };
  walk(dir);
  return out;
}

describe('fetching a solver source leaves /etc/apt alone', function () {
  this.timeout(300000);

  it('fetches kissat through a private apt configuration: /etc/apt unchanged, the old deb-src file named with how to remove it', function () {
    if (spawnSync('bwrap', ['--version']).status !== 0) {
      if (process.env.CI) throw new Error('bwrap is missing: scripts/setup-sat-tools.sh installs bubblewrap');
      this.skip();
    }
    const t = tempDir('fetch-source-');
    const etc = path.join(t, 'etc-apt');
    fs.cpSync('/etc/apt', etc, { recursive: true, verbatimSymlinks: true });
    // The file earlier versions wrote: the script must say so and not depend on it.
    fs.mkdirSync(path.join(etc, 'sources.list.d'), { recursive: true });
    fs.writeFileSync(
      path.join(etc, 'sources.list.d', 'satlution-debsrc.sources'),
      'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n',
    );
    const before = snapshot(etc);
    const cache = path.join(t, 'cache');
    fs.mkdirSync(cache);
    const script = path.join(ROOT, 'scripts', 'fetch-solver-source.sh');
    // Everything read-only but the temp dir (the cache, and TMPDIR for apt's signature checks) and the copy of /etc/apt.
    const tmp = path.join(t, 'tmp');
    fs.mkdirSync(tmp);
    const r = spawnSync(
      'bwrap',
      [
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--bind',
        t,
        t,
        '--bind',
        etc,
        '/etc/apt',
        '--',
        'env',
        `SATLUTION_DEV_CACHE=${cache}`,
        `TMPDIR=${tmp}`,
        'bash',
        script,
        'kissat',
      ],
      { encoding: 'utf8', timeout: 280000 },
    );
    if (r.status !== 0 && !process.env.CI && /Could not resolve|Failed to fetch|Temporary failure|unreachable/i.test(r.stderr)) this.skip(); // no Debian mirror from here
    assert.equal(r.status, 0, r.stderr);
    const root = r.stdout.trim();
    assert.ok(root.startsWith(cache), root);
    assert.ok(fs.existsSync(path.join(root, 'src', 'kissat.h')), `no kissat source in ${root}`);
    assert.deepEqual(snapshot(etc), before, 'the apt configuration changed');
    assert.match(r.stderr, /satlution-debsrc\.sources was written by an earlier version of this script and is no longer used/);
    assert.match(r.stderr, /sudo rm \/etc\/apt\/sources\.list\.d\/satlution-debsrc\.sources && sudo apt-get update/);
    assert.match(r.stderr, /private apt configuration in .*\/etc\/apt untouched/);
    // A second call answers from the cache.
    const again = spawnSync('bash', [script, 'kissat'], {
      encoding: 'utf8',
      env: { ...process.env, SATLUTION_DEV_CACHE: cache, SATLUTION_APT_ETC: etc },
      timeout: 20000,
    });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout.trim(), root);
    assert.doesNotMatch(again.stderr, /reading the source index/);
  });
});
