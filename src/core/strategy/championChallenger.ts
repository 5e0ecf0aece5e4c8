// The champion-challenger strategy (the SATLUTION paper's loop): one proposal per cycle from the
// champion, evaluated without a screen, promoted if significantly faster by the margin.
import type { StrategyConfig } from '../config/schema';
import { acceptWithMargin } from './accept';
import type { Strategy } from './types';

/** The champion-challenger strategy for its settings. */
export function championChallenger(cfg: Extract<StrategyConfig, { name: 'champion-challenger' }>): Strategy {
  return {
    name: 'champion-challenger',
    proposals: 1,
    screens: false,
    needsJudge: false,
    // Used only when a cycle saved at the screen step resumes under this strategy: every coded one goes on.
    select: async (coded) => ({ evaluate: coded.filter((p) => p.coded).map((p) => p.candidate), discarded: [] }),
    accept: acceptWithMargin(cfg.min_improvement_pct),
  };
}
