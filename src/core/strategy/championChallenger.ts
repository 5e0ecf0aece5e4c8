// The champion-challenger strategy (the SATLUTION paper's loop): one proposal per cycle from the
// champion, evaluated without a screen, promoted if significantly faster by the margin. With `lambda`
// above 1 it is a (1+lambda) evolution strategy: every proposal of the cycle is raced against the
// champion, and the fastest measured in full meets it side by side.
import type { StrategyConfig } from '../config/schema';
import { acceptWithMargin } from '../decide/promotionRule';
import type { Strategy } from './seam';

/** The champion-challenger strategy for its settings. */
export function championChallenger(cfg: Extract<StrategyConfig, { name: 'champion-challenger' }>): Strategy {
  return {
    name: 'champion-challenger',
    proposals: cfg.lambda,
    screens: cfg.lambda > 1,
    needsJudge: false,
    // No screen: every coded proposal is evaluated (also when a cycle saved at the screen step resumes).
    select: async (coded) => ({ evaluate: coded.filter((p) => p.coded).map((p) => p.candidate), discarded: [] }),
    accept: acceptWithMargin(cfg.min_improvement_pct),
  };
}
