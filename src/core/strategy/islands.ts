// The islands strategy: parents from a MAP-Elites database on several islands (islandDb.ts), one
// proposal per cycle, duplicates of earlier candidates rejected before evaluation, every outcome
// (evaluated or not) recorded in the database, the greedy promotion rule.
import { DEFAULT_ISLANDS, type Config, type IslandsConfig, type StrategyConfig } from '../config/schema';
import { candidateDirName } from '../layout';
import { acceptWithMargin } from '../decide/promotionRule';
import { chooseParent, duplicateOf, readIslandDb, recordMember } from './islandDb';
import type { Selection, Strategy } from './seam';

/** The islands settings of satlution.yaml; the defaults when another strategy runs (the dashboard may still show an earlier database). */
export function islandsConfig(config: Config): IslandsConfig {
  return 'islands' in config.strategy ? config.strategy.islands : DEFAULT_ISLANDS;
}

/** The islands strategy for its settings. */
export function islands(cfg: Extract<StrategyConfig, { name: 'islands' }>): Strategy {
  const db = cfg.islands;
  return {
    name: 'islands',
    proposals: 1,
    screens: true,
    needsJudge: false,
    parent: ({ ws, cycle, champion, championJson }) => chooseParent(ws, db, cycle, champion, championJson),
    async select(coded, ctx) {
      const current = await readIslandDb(ctx.ws, db);
      const out: Selection = { evaluate: [], discarded: [] };
      for (const p of coded.filter((x) => x.coded)) {
        const dup = await duplicateOf(ctx.ws, current, p.candidate, {
          timeoutS: ctx.buildTimeoutS,
          isolation: ctx.buildIsolation,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        if (!dup) {
          out.evaluate.push(p.candidate);
          continue;
        }
        const reason = `not evaluated: a duplicate of ${candidateDirName(dup.of)} (${dup.how})`;
        ctx.say(`${candidateDirName(p.candidate)}: ${reason}`);
        await recordMember(ctx.ws, { cycle: ctx.cycle, island: ctx.island ?? 0, candidate: p.candidate, penalty: 'no change', detail: reason });
        out.discarded.push({ candidate: p.candidate, reason });
      }
      return out;
    },
    async record(o) {
      // Once per candidate: a resumed step must not count it twice.
      const current = await readIslandDb(o.ws, db);
      if (current.byCandidate.has(o.candidate) || (!o.json && !o.penalty)) return;
      await recordMember(o.ws, {
        cycle: o.cycle,
        island: o.island ?? 0,
        candidate: o.candidate,
        ...(o.json ? { json: o.json } : {}),
        ...(o.penalty ? { penalty: o.penalty } : {}),
        ...(o.detail ? { detail: o.detail } : {}),
      });
    },
    accept: acceptWithMargin(cfg.min_improvement_pct),
  };
}
