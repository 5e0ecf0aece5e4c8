// Chart colours and fonts from VS Code's theme variables, re-read when the theme changes (VS Code
// swaps the body class: vscode-light, vscode-dark, vscode-high-contrast, vscode-high-contrast-light).
export interface Palette {
  kind: 'light' | 'dark' | 'hc' | 'hc-light';
  fg: string;
  muted: string;
  grid: string;
  axis: string;
  tooltipBg: string;
  tooltipFg: string;
  tooltipBorder: string;
  /** Colours of compared candidates, in selection order. */
  series: string[];
  /** Colours of baselines (with dashes, so they differ without colour too). */
  baseline: string[];
  champion: string;
  candidate: string;
  fail: string;
  fontFamily: string;
  fontSize: number;
}

const css = (name: string, fallback: string): string => getComputedStyle(document.documentElement).getPropertyValue(`--vscode-${name}`).trim() || fallback;

export function themeKind(): Palette['kind'] {
  const c = document.body.classList;
  return c.contains('vscode-high-contrast-light') ? 'hc-light' : c.contains('vscode-high-contrast') ? 'hc' : c.contains('vscode-light') ? 'light' : 'dark';
}

export function readPalette(): Palette {
  const kind = themeKind();
  const dark = kind === 'dark' || kind === 'hc';
  const hc = kind === 'hc' || kind === 'hc-light';
  const fg = css('foreground', dark ? '#cccccc' : '#3b3b3b');
  const text = css('charts-foreground', fg);
  // Theme colours may be translucent (Dark and Light Modern's charts.orange is 33% opaque), and a
  // translucent series is a muddy one: data colours are made opaque.
  const c = (name: string, fallback: string) => opaque(css(name, fallback));
  const blue = c('charts-blue', '#3794ff');
  const orange = c('charts-orange', '#d18616');
  const green = c('charts-green', '#89d185');
  const purple = c('charts-purple', '#b180d7');
  const red = c('charts-red', '#f14c4c');
  const yellow = c('charts-yellow', '#cca700');
  const lines = css('charts-lines', dark ? 'rgba(204, 204, 204, 0.5)' : 'rgba(59, 59, 59, 0.5)');
  return {
    kind,
    fg: text,
    muted: css('descriptionForeground', text),
    // Grid lines stay quiet; in high contrast they take the border colour, faded so the data stays in front.
    grid: hc ? withAlpha(css('contrastBorder', text), 0.45) : withAlpha(lines, 0.16),
    axis: hc ? css('contrastBorder', text) : lines,
    tooltipBg: css('editorHoverWidget-background', dark ? '#252526' : '#f3f3f3'),
    tooltipFg: css('editorHoverWidget-foreground', fg),
    tooltipBorder: css('editorHoverWidget-border', css('widget-border', '#454545')),
    series: [
      blue,
      orange,
      green,
      purple,
      red,
      yellow,
      c('terminal-ansiCyan', '#11a8cd'),
      c('terminal-ansiMagenta', '#bc3fbc'),
      c('terminal-ansiBrightBlue', '#3b8eea'),
      c('terminal-ansiBrightGreen', '#23d18b'),
    ],
    baseline: [css('descriptionForeground', text), text, c('terminal-ansiBrightBlack', '#7f7f7f')],
    champion: blue,
    candidate: orange,
    fail: c('errorForeground', red),
    fontFamily: css('font-family', 'system-ui, sans-serif'),
    fontSize: Number.parseFloat(css('font-size', '13px')) || 13,
  };
}

/** Calls back when VS Code switches themes (body class) — once per change. */
export function onThemeChange(f: () => void): void {
  let last = `${document.body.className}`;
  new MutationObserver(() => {
    if (document.body.className === last) return;
    last = document.body.className;
    f();
  }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}

/** Dash patterns for baselines (distinguishable without colour). */
export const BASELINE_DASH = [
  [6, 4],
  [2, 3],
  [10, 3, 2, 3],
];

/** [r, g, b, a] of a #rgb(a) / #rrggbb(aa) / rgb() / rgba() colour; undefined for other notations. */
function rgba(color: string): [number, number, number, number] | undefined {
  const t = color.trim();
  const hex = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(t)?.[1];
  if (hex) {
    const full = hex.length <= 4 ? [...hex].map((x) => x + x).join('') : hex;
    const n = (i: number) => Number.parseInt(full.slice(i, i + 2), 16);
    return [n(0), n(2), n(4), full.length === 8 ? n(6) / 255 : 1];
  }
  const m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:[\s,/]+([\d.]+%?))?\s*\)$/i.exec(t);
  if (!m) return undefined;
  const a = m[4] === undefined ? 1 : m[4].endsWith('%') ? Number.parseFloat(m[4]) / 100 : Number.parseFloat(m[4]);
  return [Number(m[1]), Number(m[2]), Number(m[3]), a];
}

/** The colour at full opacity. */
export function opaque(color: string): string {
  const c = rgba(color);
  return c ? `rgb(${c[0]}, ${c[1]}, ${c[2]})` : color;
}

/** The colour with this alpha (times its own). */
export function withAlpha(color: string, a: number): string {
  const c = rgba(color);
  return c ? `rgba(${c[0]}, ${c[1]}, ${c[2]}, ${+(a * c[3]).toFixed(3)})` : color;
}
