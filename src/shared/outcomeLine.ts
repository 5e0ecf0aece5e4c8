// The Steering view's line on how the last cycle ended (media/src/steering.ts), shared with the tests
// that read it: the cycle's outcome; with a Why line below, its head only (the figures in parentheses
// would say it twice, and stay in the tooltip) and what the Why does not say: the veto that kept a
// faster challenger out (a family it is slower on, the held-out set).

/** The outcome as the view shows it, `explained` when a Why line stands below it. */
export function outcomeLine(outcome: string, explained: boolean): string {
  if (!explained) return outcome;
  const head = outcome.split(' (')[0]!;
  const heldOut = /but it is worse on the held-out set (\S+)/.exec(outcome);
  const family = /but slower on (a family|\d+ families): ([^;]+?) \(\d+ instances?/.exec(outcome);
  const veto = [heldOut ? `worse on the held-out set ${heldOut[1]}` : '', family ? `slower on ${family[1]}: ${family[2]}` : ''].filter(Boolean).join(', ');
  return veto ? `${head}: ${veto}` : head;
}
