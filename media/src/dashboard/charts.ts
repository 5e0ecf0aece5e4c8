// The dashboard's charts (Chart.js 4, only the parts registered here are bundled). Animations are off:
// the data can be large and a dashboard should show it, not move it. Colours come from the theme.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Decimation,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Tooltip,
  type ChartConfiguration,
  type ChartDataset,
  type LegendItem,
  type TooltipItem,
} from 'chart.js';
import { secs, tokens, usd } from './format';
import { withAlpha, type Palette } from './theme';

Chart.register(
  LineController,
  ScatterController,
  BarController,
  LineElement,
  PointElement,
  BarElement,
  LinearScale,
  LogarithmicScale,
  CategoryScale,
  Legend,
  Tooltip,
  Decimation,
);

export function applyTheme(p: Palette): void {
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.color = p.muted;
  Chart.defaults.borderColor = p.grid;
  Chart.defaults.font.family = p.fontFamily;
  Chart.defaults.font.size = Math.max(11, p.fontSize - 1);
}

type Pt = { x: number; y: number };

/** Legend items as Chart.js makes them, plus each line's dash (at half scale: the samples are short). */
function dashedLegend(chart: Chart): LegendItem[] {
  return Chart.defaults.plugins.legend.labels.generateLabels(chart).map((item) => {
    const dash = (chart.data.datasets[item.datasetIndex ?? -1] as { borderDash?: number[] } | undefined)?.borderDash;
    return dash?.length ? { ...item, lineDash: dash.map((d) => Math.max(1, d / 2)) } : item;
  });
}

function axis(p: Palette, title: string) {
  return {
    title: { display: true, text: title, color: p.fg, font: { weight: 'normal' as const }, padding: { top: 6, bottom: 2 } },
    grid: { color: p.grid },
    border: { color: p.axis },
    ticks: { color: p.muted },
  };
}

const isHc = (p: Palette) => p.kind === 'hc' || p.kind === 'hc-light';

function legendAndTooltip(p: Palette) {
  return {
    legend: {
      position: 'top' as const,
      align: 'start' as const,
      labels: { color: p.fg, usePointStyle: true, boxHeight: 8, padding: 14, generateLabels: dashedLegend },
    },
    tooltip: {
      backgroundColor: p.tooltipBg,
      titleColor: p.tooltipFg,
      bodyColor: p.tooltipFg,
      footerColor: p.muted,
      borderColor: p.tooltipBorder,
      borderWidth: 1,
      cornerRadius: 3,
      padding: 8,
      boxPadding: 4,
      usePointStyle: true,
    },
  };
}

export interface CyclePoint {
  cycle: number;
  par2: number;
  dir: string;
  title: string | null;
  outcome: string | null;
  newChampion: boolean;
  /** Why it was or was not promoted (the decision's sentence), when a decision was made. */
  why: string | null;
}

export interface Baseline {
  label: string;
  par2: number;
  color: string;
  dash: number[];
  /** Above the axis (the axis fits the candidates): named in the legend only. */
  offScale?: boolean;
}

/** A candidate racing rejected early: drawn apart, at the race's lower estimate (clamped to `y` when that is above the axis). */
export interface RejectedPoint {
  cycle: number;
  /** Where the marker is drawn. */
  y: number;
  /** The race's extrapolated lower estimate of its PAR-2. */
  estimate: number;
  dir: string;
  title: string | null;
}

/** Paper Fig. 8: the champion's PAR-2 after each cycle, each cycle's candidate, the baselines. */
export function cyclesChart(
  canvas: HTMLCanvasElement,
  o: { champion: (Pt & { dir: string })[]; candidates: CyclePoint[]; rejected: RejectedPoint[]; baselines: Baseline[]; lastCycle: number },
  p: Palette,
  onPick: (dir: string) => void,
  onPoint: (c: CyclePoint | undefined) => void = () => undefined,
): Chart {
  const baselineSets: ChartDataset<'line', Pt[]>[] = o.baselines.map((b) => ({
    label: `${b.label} (baseline${b.offScale ? `, ${secs(b.par2)} s, above the axis` : ''})`,
    data: b.offScale
      ? []
      : [
          { x: 0, y: b.par2 },
          { x: o.lastCycle, y: b.par2 },
        ],
    borderColor: b.color,
    backgroundColor: b.color,
    borderDash: b.dash,
    borderWidth: 1.5,
    pointRadius: 0,
    pointHoverRadius: 0,
    pointStyle: 'line',
  }));
  // Datasets 1 and 2 are the cycles' candidates, 3 (when there are any) those rejected early; a point's candidate is found by dataset and index.
  const others = o.candidates.filter((c) => !c.newChampion);
  const crowned = o.candidates.filter((c) => c.newChampion);
  const rejected = o.rejected.length ? 3 : -1;
  const pick = (datasetIndex: number, index: number): { dir: string; title: string | null } | undefined =>
    datasetIndex === 1 ? others[index] : datasetIndex === 2 ? crowned[index] : datasetIndex === rejected ? o.rejected[index] : undefined;
  const isCandidate = (datasetIndex: number) => datasetIndex === 1 || datasetIndex === 2 || datasetIndex === rejected;
  // Not a measurement of the set: an open triangle (read "at least"), never joined to the champion's line.
  const rejectedSet: ChartDataset<'line', Pt[]>[] = o.rejected.length
    ? [
        {
          label: 'Rejected early by racing (estimate)',
          data: o.rejected.map((r) => ({ x: r.cycle, y: r.y })),
          showLine: false,
          borderColor: p.muted,
          backgroundColor: 'transparent',
          borderWidth: 1.5,
          pointStyle: 'triangle',
          pointRadius: 4,
          pointHoverRadius: 6,
          clip: 8,
        },
      ]
    : [];
  const config: ChartConfiguration<'line', Pt[]> = {
    type: 'line',
    data: {
      datasets: [
        {
          label: 'Champion',
          data: o.champion,
          // Horizontal to the next cycle, then the step: the value holds until the cycle that changed it.
          stepped: 'before',
          clip: 8,
          borderColor: p.champion,
          backgroundColor: p.champion,
          borderWidth: 2,
          pointRadius: o.champion.length > 60 ? 0 : 2,
          pointHoverRadius: 4,
          pointStyle: 'line',
        },
        {
          label: 'Cycle candidate',
          data: others.map((c) => ({ x: c.cycle, y: c.par2 })),
          showLine: false,
          borderColor: p.candidate,
          backgroundColor: p.candidate,
          pointStyle: 'circle',
          pointRadius: 3,
          pointHoverRadius: 5,
          clip: 8,
        },
        {
          label: 'New champion',
          data: crowned.map((c) => ({ x: c.cycle, y: c.par2 })),
          showLine: false,
          borderColor: p.champion,
          backgroundColor: p.champion,
          pointStyle: 'rectRot',
          pointRadius: 5,
          pointHoverRadius: 7,
          clip: 8,
        },
        ...rejectedSet,
        ...baselineSets,
      ],
    },
    options: {
      parsing: false,
      normalized: true,
      interaction: { mode: 'nearest', intersect: false, axis: 'x' },
      layout: { padding: { top: 4, right: 12 } },
      scales: {
        x: { type: 'linear', min: 0, max: Math.max(1, o.lastCycle), ...axis(p, 'Cycle'), ticks: { color: p.muted, precision: 0, maxTicksLimit: 20 } },
        y: { type: 'linear', grace: '6%', ...axis(p, 'PAR-2 (s)') },
      },
      plugins: {
        ...legendAndTooltip(p),
        tooltip: {
          ...legendAndTooltip(p).tooltip,
          filter: (item) => item.datasetIndex === 0 || isCandidate(item.datasetIndex),
          callbacks: {
            title: (items) => (items[0] ? `Cycle ${items[0].parsed.x}` : ''),
            label: (item: TooltipItem<'line'>) => {
              if (item.datasetIndex === 0) return `Champion ${o.champion[item.dataIndex]?.dir ?? ''}: ${secs(item.parsed.y)} s`;
              if (item.datasetIndex === rejected) {
                const r = o.rejected[item.dataIndex];
                return r ? `${r.dir}: rejected early by racing, PAR-2 estimated at least ${secs(r.estimate)} s (not measured on the whole set)` : '';
              }
              const c = item.datasetIndex === 1 ? others[item.dataIndex] : crowned[item.dataIndex];
              return c ? `${c.dir}: ${secs(c.par2)} s${c.newChampion ? ' (new champion)' : ''}` : '';
            },
            footer: (items) => {
              const i = items.find((x) => isCandidate(x.datasetIndex));
              if (!i) return '';
              const c = i.datasetIndex === 1 ? others[i.dataIndex] : i.datasetIndex === 2 ? crowned[i.dataIndex] : undefined;
              return [pick(i.datasetIndex, i.dataIndex)?.title ?? '', ...wrap(c?.why ?? '', 64)].filter(Boolean);
            },
          },
        },
      },
      onClick: (_e, elements) => {
        const c = elements.map((el) => pick(el.datasetIndex, el.index)).find(Boolean);
        if (c) onPick(c.dir);
      },
      onHover: (e, elements) => {
        const t = e.native?.target;
        if (t instanceof HTMLElement) t.style.cursor = elements.some((el) => isCandidate(el.datasetIndex)) ? 'pointer' : 'default';
        const el = elements.find((x) => x.datasetIndex === 1 || x.datasetIndex === 2);
        if (el) onPoint(el.datasetIndex === 1 ? others[el.index] : crowned[el.index]);
      },
    },
  };
  return new Chart(canvas, config);
}

/** A long sentence as tooltip lines of about `width` characters, broken at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  return line ? [...lines, line] : lines;
}

export interface CactusSeries {
  label: string;
  color: string;
  baseline: boolean;
  dash?: number[];
  /** Solved instances' times, ascending. */
  times: number[];
}

/** Paper Fig. 2: x = instances solved, y = the time needed for the x-th fastest. */
export function cactusChart(canvas: HTMLCanvasElement, series: CactusSeries[], p: Palette, log: boolean): Chart {
  const yAxis = axis(p, 'Time (s)');
  const config: ChartConfiguration<'line', Pt[]> = {
    type: 'line',
    data: {
      datasets: series.map((s) => ({
        label: `${s.label} — ${s.times.length} solved`,
        data: s.times.map((t, i) => ({ x: i + 1, y: log ? Math.max(t, 0.001) : t })),
        borderColor: s.color,
        backgroundColor: s.color,
        borderWidth: s.baseline ? 1.5 : 2,
        ...(s.dash ? { borderDash: s.dash } : {}),
        pointRadius: 0,
        pointHoverRadius: 3,
        pointStyle: 'line',
        indexAxis: 'x',
      })),
    },
    options: {
      parsing: false,
      normalized: true,
      interaction: { mode: 'nearest', intersect: false },
      layout: { padding: { top: 4, right: 12 } },
      scales: {
        x: { type: 'linear', min: 0, ...axis(p, 'Instances solved'), ticks: { color: p.muted, precision: 0 } },
        y: log ? { type: 'logarithmic', ...yAxis, ticks: { color: p.muted, callback: (v) => logTick(Number(v)) } } : { type: 'linear', min: 0, ...yAxis },
      },
      plugins: {
        ...legendAndTooltip(p),
        // Thousands of points per line: draw what the pixels can show.
        decimation: { enabled: true, algorithm: 'lttb', samples: 600 },
        tooltip: {
          ...legendAndTooltip(p).tooltip,
          callbacks: {
            title: () => '',
            label: (item) => `${series[item.datasetIndex]?.label ?? ''}: ${item.parsed.x} solved within ${secs(item.parsed.y)} s`,
          },
        },
      },
    },
  };
  return new Chart(canvas, config);
}

/** Log axes label only 1-2-5 steps, so the labels do not overlap. */
function logTick(v: number): string {
  const m = v / 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5].some((x) => Math.abs(m - x) < 1e-6) ? secs(v) : '';
}

export interface BarRow {
  label: string;
  all: number | null;
  sat: number | null;
  unsat: number | null;
}

/** Paper Figs. 3-7: PAR-2 on all, SAT-only and UNSAT-only instances, per solver. Horizontal bars. */
export function par2Bars(canvas: HTMLCanvasElement, rows: BarRow[], p: Palette): Chart {
  const set = (label: string, color: string, pick: (r: BarRow) => number | null): ChartDataset<'bar', (number | null)[]> => ({
    label,
    data: rows.map(pick),
    backgroundColor: color,
    borderColor: color,
    borderWidth: isHc(p) ? 1 : 0,
    borderRadius: 2,
    pointStyle: 'rectRounded',
    barPercentage: 0.9,
    categoryPercentage: 0.78,
  });
  const config: ChartConfiguration<'bar', (number | null)[], string> = {
    type: 'bar',
    data: {
      labels: rows.map((r) => r.label),
      datasets: [set('All instances', p.series[0]!, (r) => r.all), set('SAT', p.series[2]!, (r) => r.sat), set('UNSAT', p.series[3]!, (r) => r.unsat)],
    },
    options: {
      indexAxis: 'y',
      layout: { padding: { right: 12 } },
      scales: {
        x: { type: 'linear', min: 0, ...axis(p, 'PAR-2 (s)') },
        y: { type: 'category', grid: { display: false }, border: { color: p.axis }, ticks: { color: p.fg, autoSkip: false } },
      },
      plugins: {
        ...legendAndTooltip(p),
        tooltip: {
          ...legendAndTooltip(p).tooltip,
          callbacks: { label: (item) => `${item.dataset.label ?? ''}: ${item.raw === null ? 'no instances' : `${secs(Number(item.raw))} s`}` },
        },
      },
    },
  };
  return new Chart(canvas, config);
}

/** Failed evaluations by the first gate they failed. */
export function failureBars(canvas: HTMLCanvasElement, rows: { gate: string; count: number }[], p: Palette): Chart {
  const config: ChartConfiguration<'bar', number[], string> = {
    type: 'bar',
    data: {
      labels: rows.map((r) => r.gate),
      datasets: [
        { label: 'Failed evaluations', data: rows.map((r) => r.count), backgroundColor: p.fail, borderColor: p.fail, borderRadius: 2, maxBarThickness: 56 },
      ],
    },
    options: {
      layout: { padding: { top: 8, right: 12 } },
      scales: {
        x: {
          type: 'category',
          grid: { display: false },
          border: { color: p.axis },
          ticks: { color: p.fg },
          title: { display: true, text: 'First failing gate', color: p.fg },
        },
        y: { type: 'linear', min: 0, ...axis(p, 'Failed evaluations'), ticks: { color: p.muted, precision: 0 } },
      },
      plugins: { ...legendAndTooltip(p), legend: { display: false } },
    },
  };
  return new Chart(canvas, config);
}

export interface CostBar {
  label: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  usd: number;
}

/** Tokens per cycle (stacked by kind) and their cost on a second axis. */
export function costChart(canvas: HTMLCanvasElement, rows: CostBar[], p: Palette): Chart {
  const stack = (label: string, color: string, pick: (r: CostBar) => number) => ({
    type: 'bar' as const,
    label,
    data: rows.map(pick),
    backgroundColor: isHc(p) ? color : withAlpha(color, 0.8),
    borderColor: color,
    stack: 'tokens',
    yAxisID: 'y',
    order: 2,
    borderRadius: 1,
    pointStyle: 'rectRounded' as const,
  });
  const config: ChartConfiguration<'bar' | 'line', number[], string> = {
    type: 'bar',
    data: {
      labels: rows.map((r) => r.label),
      datasets: [
        stack('Input tokens', p.series[0]!, (r) => r.input),
        stack('Output tokens', p.series[3]!, (r) => r.output),
        stack('Cache read', p.series[2]!, (r) => r.cacheRead),
        stack('Cache write', p.series[5]!, (r) => r.cacheWrite),
        // The cost line in the text colour: it must read over every bar colour.
        {
          type: 'line',
          label: 'Cost (USD)',
          data: rows.map((r) => r.usd),
          borderColor: p.fg,
          backgroundColor: p.fg,
          yAxisID: 'usd',
          order: 1,
          borderWidth: 2.5,
          pointRadius: rows.length > 60 ? 0 : 2.5,
          pointStyle: 'line',
          tension: 0,
        },
      ],
    },
    options: {
      interaction: { mode: 'index', intersect: false },
      layout: { padding: { top: 4, right: 4 } },
      scales: {
        x: {
          type: 'category',
          stacked: true,
          grid: { display: false },
          border: { color: p.axis },
          ticks: { color: p.muted, maxRotation: 0, autoSkipPadding: 8 },
          title: { display: true, text: 'Cycle', color: p.fg },
        },
        y: { type: 'linear', stacked: true, min: 0, ...axis(p, 'Tokens'), ticks: { color: p.muted, callback: (v) => tokens(Number(v)) } },
        usd: {
          type: 'linear',
          position: 'right',
          min: 0,
          ...axis(p, 'USD'),
          grid: { drawOnChartArea: false },
          ticks: { color: p.muted, callback: (v) => usd(Number(v)) },
        },
      },
      plugins: {
        ...legendAndTooltip(p),
        legend: {
          ...legendAndTooltip(p).legend,
          labels: { ...legendAndTooltip(p).legend.labels, sort: (a, b) => (a.datasetIndex ?? 0) - (b.datasetIndex ?? 0) },
        },
        tooltip: {
          ...legendAndTooltip(p).tooltip,
          callbacks: {
            title: (items) => (items[0] ? (items[0].label === 'other' ? 'Outside cycles' : `Cycle ${items[0].label}`) : ''),
            label: (item) => `${item.dataset.label ?? ''}: ${item.dataset.yAxisID === 'usd' ? usd(Number(item.raw)) : tokens(Number(item.raw))}`,
          },
        },
      },
    },
  };
  return new Chart(canvas, config);
}

export interface JudgePointView {
  score: number;
  gainPct: number;
  dir: string;
}

/** SIFT: the judge's score (x) against the PAR-2 gain measured over the parent (y) of each evaluated proposal. */
export function judgeScatter(canvas: HTMLCanvasElement, points: JudgePointView[], p: Palette): Chart {
  const config: ChartConfiguration<'scatter', (Pt & { dir: string })[]> = {
    type: 'scatter',
    data: {
      datasets: [
        {
          label: 'Evaluated proposals',
          data: points.map((x) => ({ x: x.score, y: x.gainPct, dir: x.dir })),
          backgroundColor: p.series[0]!,
          borderColor: p.series[0]!,
          pointRadius: 5,
          pointHoverRadius: 7,
        },
      ],
    },
    options: {
      layout: { padding: { top: 8, right: 12 } },
      scales: {
        x: { type: 'linear', min: 0.5, max: 10.5, ...axis(p, 'Judge score'), ticks: { color: p.muted, stepSize: 1 } },
        y: { type: 'linear', ...axis(p, 'PAR-2 gain over the parent (%)'), ticks: { color: p.muted, callback: (v) => `${Number(v).toFixed(0)}%` } },
      },
      plugins: {
        ...legendAndTooltip(p),
        legend: { display: false },
        tooltip: {
          ...legendAndTooltip(p).tooltip,
          callbacks: {
            label: (item: TooltipItem<'scatter'>) => {
              const r = item.raw as Pt & { dir: string };
              return `${r.dir}: score ${r.x}, ${r.y >= 0 ? 'faster' : 'slower'} by ${Math.abs(r.y).toFixed(1)}%`;
            },
          },
        },
      },
    },
  };
  return new Chart(canvas, config);
}

export interface PairPoint {
  instance: string;
  order: 'AB' | 'BA';
  /** PAR-2 contributions on the duel's basis. */
  a: number;
  b: number;
  aStatus: string;
  bStatus: string;
}

/** A duel's pairs: the champion's time (x) against the challenger's (y), AB and BA blocks marked apart, with y = x. Below the line, the challenger was faster. */
export function pairsScatter(
  canvas: HTMLCanvasElement,
  o: { points: PairPoint[]; champion: string; challenger: string; basis: string; timeoutS: number; log: boolean },
  p: Palette,
): Chart {
  const v = (x: number) => (o.log ? Math.max(x, 0.001) : x);
  const ab = o.points.filter((x) => x.order === 'AB');
  const ba = o.points.filter((x) => x.order === 'BA');
  const all = o.points.flatMap((x) => [v(x.a), v(x.b)]);
  const lo = all.length ? Math.min(...all) : 0.001;
  const hi = all.length ? Math.max(...all) : 1;
  const set = (label: string, pts: PairPoint[], color: string, style: 'circle' | 'rect'): ChartDataset<'scatter', Pt[]> => ({
    label,
    data: pts.map((x) => ({ x: v(x.a), y: v(x.b) })),
    borderColor: color,
    backgroundColor: withAlpha(color, isHc(p) ? 1 : 0.55),
    pointStyle: style,
    pointRadius: o.points.length > 400 ? 2.5 : 4,
    pointHoverRadius: 6,
  });
  const pick = (datasetIndex: number, index: number) => (datasetIndex === 1 ? ab[index] : datasetIndex === 2 ? ba[index] : undefined);
  // Plain numbers (1, 10, 100, not 1.00, 10.0, 100.0): decades, and their 2s and 5s when the range is short enough for them to fit.
  const decadesOnly = Math.log10(hi / Math.max(lo, 1e-9)) > 3;
  const tick = (t: number) => {
    const m = t / 10 ** Math.floor(Math.log10(t));
    if (logTick(t) === '' || (decadesOnly && Math.abs(m - 1) > 1e-6)) return '';
    return t >= 1 ? Math.round(t).toLocaleString() : String(+t.toPrecision(1));
  };
  const scale = (title: string) =>
    o.log
      ? {
          type: 'logarithmic' as const,
          min: lo / 1.3,
          max: hi * 1.3,
          ...axis(p, title),
          ticks: { color: p.muted, autoSkip: false, maxRotation: 0, callback: (t: string | number) => tick(Number(t)) },
        }
      : { type: 'linear' as const, min: 0, max: hi * 1.05, ...axis(p, title), ticks: { color: p.muted, maxRotation: 0 } };
  const config: ChartConfiguration<'scatter', Pt[]> = {
    type: 'scatter',
    data: {
      datasets: [
        // The diagonal first, so the points draw over it.
        {
          label: 'Equal time (y = x)',
          data: [
            { x: o.log ? lo / 1.3 : 0, y: o.log ? lo / 1.3 : 0 },
            { x: hi * 1.3, y: hi * 1.3 },
          ],
          showLine: true,
          borderColor: p.muted,
          backgroundColor: p.muted,
          borderDash: [5, 4],
          borderWidth: 1,
          pointRadius: 0,
          pointHoverRadius: 0,
          pointStyle: 'line',
        },
        set('Champion ran first (AB)', ab, p.series[0]!, 'circle'),
        set('Challenger ran first (BA)', ba, p.series[1]!, 'rect'),
      ],
    },
    options: {
      parsing: false,
      layout: { padding: { top: 4, right: 12 } },
      scales: { x: scale(`${o.champion} (champion), ${o.basis} s`), y: scale(`${o.challenger} (challenger), ${o.basis} s`) },
      plugins: {
        ...legendAndTooltip(p),
        tooltip: {
          ...legendAndTooltip(p).tooltip,
          filter: (item) => item.datasetIndex > 0,
          callbacks: {
            title: (items) => (items[0] ? (pick(items[0].datasetIndex, items[0].dataIndex)?.instance ?? '') : ''),
            label: (item: TooltipItem<'scatter'>) => {
              const x = pick(item.datasetIndex, item.dataIndex);
              if (!x) return '';
              const t = (s: number, st: string) => (st === 'solved' ? `${secs(s)} s` : `${st} (counts ${secs(s)} s)`);
              return [`champion ${t(x.a, x.aStatus)}`, `challenger ${t(x.b, x.bStatus)}`, `${x.order === 'AB' ? 'champion' : 'challenger'} ran first`];
            },
          },
        },
      },
    },
  };
  return new Chart(canvas, config);
}
