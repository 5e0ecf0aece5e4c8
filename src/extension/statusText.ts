// What the status-bar item says (no vscode import: unit-testable).
import type { CycleState } from '../core/store/cycleState';

export interface StatusBarText {
  text: string;
  tooltip: string;
}

/** Pure, so the wording is unit-testable: what the item says for a cycle state and a champion. */
export function statusText(cycle: CycleState | undefined, running: boolean, champion: { dir: string; par2: number | null } | undefined): StatusBarText {
  const champ = champion ? `$(star-full) ${champion.dir}${champion.par2 !== null ? ` ${champion.par2.toFixed(2)} s` : ''}` : '$(star-empty) no champion';
  const active = cycle && cycle.step !== 'done';
  const phase = active ? `${running ? '$(sync~spin)' : '$(debug-pause)'} cycle ${cycle.cycle}: ${cycle.step}` : '$(beaker) SATLUTION';
  const lines = [
    active
      ? `Cycle ${cycle.cycle} ${running ? 'is at' : 'stopped at'} step "${cycle.step}"${cycle.title ? ` — ${cycle.title}` : ''}${running ? '' : ' (Resume Evolution Cycle continues it)'}`
      : cycle
        ? `Last cycle ${cycle.cycle}: ${cycle.outcome ?? 'done'}`
        : 'No cycle run yet',
    champion ? `Champion ${champion.dir}${champion.par2 !== null ? `, PAR-2 ${champion.par2.toFixed(3)} s` : ', not measured yet'}` : 'No champion',
  ];
  return { text: `${phase}  ${champ}`, tooltip: lines.join('\n') };
}
