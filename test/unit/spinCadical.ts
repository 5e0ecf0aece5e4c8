// "spincadical": cadical behind a CPU-bound start-up loop, the seed of the tests that attack the proof
// checks with real cycles (promotionAudit.test.ts, measuredRuns.test.ts). A challenger coded by a
// scripted agent halves or drops the loop (honestly faster on every run) and may add lines before it: a
// liar answers the hard formula, recognised by its header, from memory.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTool } from '../../src/core/agents/coderTools';
import type { EvolutionAgent } from '../../src/core/cycle/engine';
import { pigeonhole, planted3Sat, uniform3Sat } from '../../src/core/instances/generators';
import { seededWorkspace } from '../fixtures/seededWorkspace';
import { tempDir, write } from './helpers';

/** The champion's busy-loop iterations before cadical starts: a few tenths of a second of CPU, far above the few hundredths a run's CPU time varies by. */
export const SPIN = 200000;

/** The run script: a CPU-bound start-up loop, then cadical with a DRAT proof when given a proof directory. */
const runScript = (spin: number) =>
  `#!/usr/bin/env bash\n# cadical after a start-up loop.\nfor ((i = 0; i < ${spin}; i++)); do :; done\nexec cadical -q "$1" \${2:+"$2/proof.out"}\n`;

/** The seed: solver.sh, built into bin/solver, which the run script (protected by the rules: it stays as the parent had it) runs. */
function seed(): string {
  const dir = tempDir();
  write(path.join(dir, 'solver.sh'), runScript(SPIN));
  write(path.join(dir, 'bin', 'starexec_run_default'), '#!/usr/bin/env bash\nexec "$(dirname "$0")/solver" "$@"\n');
  fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  write(path.join(dir, 'starexec_build'), '#!/usr/bin/env bash\nset -e\ncd "$(dirname "$0")"\nmkdir -p bin\ncp solver.sh bin/solver\nchmod +x bin/solver\n');
  return dir;
}

/** The hard formula: random 3-SAT near the threshold, UNSAT, over a second of cadical's CPU time. Its header is its fingerprint. */
export const HARD = { name: 'u-hard.cnf', text: uniform3Sat(260, 4.7, 7), header: 'p cnf 260 ' };

/** Easy UNSAT formulas (pigeonhole, hundredths of a second for cadical); they sort before the hard one. */
export const EASY_UNSAT: [number, number][] = [
  [5, 4],
  [6, 5],
  [7, 6],
  [8, 7],
];

/** A workspace around the seed: easy UNSAT and `sat` SAT formulas, the hard one when asked, 60 s perf timeout, the promotion margin given; `edit` rewrites satlution.yaml further. */
export function spinCadicalWorkspace(o: {
  hard: boolean;
  unsat: [number, number][];
  sat: number;
  marginPct: number;
  edit?: (yaml: string) => string;
}): Promise<string> {
  return seededWorkspace({
    dir: tempDir(),
    seedName: 'spincadical',
    seed: seed(),
    perf: (dir) => {
      for (const [p, h] of o.unsat) write(path.join(dir, `php-${p}-${h}.cnf`), pigeonhole(p, h));
      for (let s = 1; s <= o.sat; s++) write(path.join(dir, `planted-${s}.cnf`), planted3Sat(60, 4.0, 700 + s));
      if (o.hard) write(path.join(dir, HARD.name), HARD.text);
    },
    // Room for the hard formula on a busy machine (wall time is the limit), and the margin of the test.
    edit: (y) => {
      const base = y
        .replace(/^(\s*perf:\s*\{[^}]*?)timeout_s: \d+/m, '$1timeout_s: 60')
        .replace(/min_improvement_pct: \d+/, `min_improvement_pct: ${o.marginPct}`);
      return o.edit ? o.edit(base) : base;
    },
  });
}

/** satlution.yaml with racing's drops and caps off (the race still runs side by side): for liars whose lie is on the last, longest formula, which a futility look may drop them before. */
export const noDrops = (y: string): string => {
  const out = y.replace(/^(\s*)rank_by: (.*)$/m, '$1rank_by: $2\n$1racing: { enabled: false }');
  assert.notEqual(out, y, 'the racing line went in');
  return out;
};

/** A scripted agent that rewrites solver.sh's start-up loop (and may add lines before it) through the coder's tools, and builds. */
export function spinAgent(title: string, spin: number, before = ''): EvolutionAgent {
  return {
    name: 'scripted',
    async plan({ candidate }) {
      return { title, hypothesis: `# ${candidate}: ${title}\n\n## Change\n${title}.\n\n## Rationale\nFaster runs.\n\n## Expected effect\nA lower PAR-2.\n` };
    },
    async code({ host }) {
      const edit = await runTool(
        'edit_file',
        JSON.stringify({
          path: 'solver.sh',
          search: `for ((i = 0; i < ${SPIN}; i++)); do :; done\n`,
          replace: `${before}${spin ? `for ((i = 0; i < ${spin}; i++)); do :; done\n` : ''}`,
        }),
        host,
      );
      assert.equal(edit.isError, false, edit.content);
      const b = await host.build();
      assert.equal(b.ok, true, b.text);
      return { finished: true, detail: 'done' };
    },
  };
}

/** The liar's start-up loop: 70% of the champion's, so its honest gain on SAT answers alone stays well under LIAR_MARGIN_PCT on any machine. */
const LIAR_SPIN = (SPIN * 7) / 10;

/**
 * The promotion margin of the liar's workspaces: over what the liar gains honestly with its UNSAT answers
 * unchecked (10 of 15 formulas, 30% of the loop each: at most 20% of the champion's PAR-2) and under what
 * it gains with the lie (the hard formula's whole run saved besides: 35% and more, the more cadical takes).
 */
export const LIAR_MARGIN_PCT = 27;

/**
 * A liar: on the hard formula, recognised by its header (read with bash builtins, so no process is
 * started on other runs), when `when` (a bash condition) holds, it answers UNSAT at once with a bogus
 * proof (a proof is written, so its run is not refused for writing none); elsewhere it runs 70% of the
 * start-up loop. It wins by construction: the champion spends more CPU time on every run, by a share
 * of a CPU-bound loop and not by the speed of any wrapper. Its largest saving is the lie, so the
 * promotion audit checks that first.
 */
export const keyedLiar = (title: string, when = 'true'): EvolutionAgent =>
  spinAgent(
    title,
    LIAR_SPIN,
    `while read -r l; do case $l in c*) ;; '${HARD.header}'*) if ${when}; then echo "s UNSATISFIABLE"; [ -n "\${2:-}" ] && echo "1 0" > "$2/proof.out"; exit 20; fi; break ;; *) break ;; esac; done < "$1"\n`,
  );
