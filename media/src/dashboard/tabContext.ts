// What a dashboard tab renders with: the view, the UI state, the palette and the host's pairs and messages.
// A file of its own so the tabs (tabs.ts) and the tabs kept apart (verdictsTab.ts) share it without importing each other.
import type { DashboardViewMessage } from '../../../src/shared/dashboardProtocol';
import type { CandidateColumns, DuelPairs } from '../../../src/core/dashboard/dashboardSchema';
import type { View } from './model';
import type { UiState } from './state';
import type { InstanceTable } from './table';
import type { Palette } from './theme';

/** Everything a tab's renderer reads or calls. */
export interface TabContext {
  v: View;
  ui: UiState;
  p: Palette;
  /** Per-instance columns by candidate id; undefined while they are on their way. */
  columns: Map<number, CandidateColumns> | undefined;
  table: InstanceTable;
  /** A duel's pairs: undefined while on their way (asking for them), null when the host has none. */
  pairs(session: string): DuelPairs | null | undefined;
  post(m: DashboardViewMessage): void;
  setUi(patch: Partial<UiState>): void;
}
