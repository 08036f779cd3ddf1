/**
 * A small hand-written SVG grouped bar chart (no dependencies): one group per store, one bar per
 * condition, the value written above each bar. A bar with no value (nothing measured, or nothing
 * completed) is drawn as "n/a" so a missing figure is not mistaken for a small one.
 */

export interface BarSeries {
  readonly name: string;
  readonly color: string;
}

export interface BarGroup {
  /** Its label under the bars; a "\n" starts a second line. */
  readonly name: string;
  /** One value per series, in the series' order; undefined or NaN = no value. */
  readonly values: readonly (number | undefined)[];
}

export interface BarChartOptions {
  readonly title: string;
  readonly yLabel: string;
  readonly series: readonly BarSeries[];
  readonly groups: readonly BarGroup[];
  /** `log` when the values span orders of magnitude (latencies under a pathological load). */
  readonly scale?: "linear" | "log";
  /** A horizontal line, e.g. a target. */
  readonly reference?: { readonly y: number; readonly label: string };
  /** How a value is written above its bar. */
  readonly format?: (value: number) => string;
  readonly width?: number;
  readonly height?: number;
}

const escapeXml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const usable = (value: number | undefined): value is number => value !== undefined && Number.isFinite(value);

function tickLabel(value: number): string {
  if (value >= 1_000_000) return `${value / 1_000_000}M`;
  if (value >= 1_000) return `${value / 1_000}k`;
  return String(Number(value.toPrecision(3)));
}

/** About five round ticks from 0 to at least `max`. */
function linearTicks(max: number): number[] {
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= raw) ?? raw;
  const ticks: number[] = [];
  for (let value = 0; value <= max + step * 0.001; value += step) ticks.push(value);
  if ((ticks[ticks.length - 1] ?? 0) < max) ticks.push(ticks.length * step);
  return ticks;
}

/** Renders the chart as an SVG document. */
export function barChart(options: BarChartOptions): string {
  const width = options.width ?? 720;
  const height = options.height ?? 380;
  const margin = { left: 64, right: 170, top: 36, bottom: 48 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const format = options.format ?? ((value: number) => tickLabel(value));
  const values = options.groups.flatMap((group) => group.values).filter(usable);
  const all = [...values, ...(options.reference ? [options.reference.y] : [])];
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="11">`,
  );
  parts.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  parts.push(`<text x="${margin.left}" y="20" font-size="13" font-weight="600">${escapeXml(options.title)}</text>`);
  if (all.length === 0 || options.groups.length === 0) {
    parts.push(`<text x="${margin.left}" y="${margin.top + 20}">no data</text></svg>`);
    return parts.join("\n");
  }
  const log = options.scale === "log";
  const positive = all.filter((value) => value > 0);
  const yMin = log ? 10 ** Math.floor(Math.log10(Math.min(...positive, 1))) : 0;
  const ticks = log
    ? Array.from({ length: Math.ceil(Math.log10(Math.max(...positive))) - Math.log10(yMin) + 1 }, (_, k) => yMin * 10 ** k)
    : linearTicks(Math.max(...all, 1));
  const yMax = Math.max(ticks[ticks.length - 1] ?? 1, log ? yMin * 10 : 1);
  const y = (value: number): number => {
    const share = log ? (Math.log10(Math.max(value, yMin)) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin)) : value / yMax;
    return margin.top + plotH - share * plotH;
  };
  for (const tick of ticks) {
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" stroke="#e5e5e5"/>`,
    );
    parts.push(`<text x="${margin.left - 6}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end" fill="#555">${tickLabel(tick)}</text>`);
  }
  parts.push(`<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  parts.push(
    `<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="#333">${escapeXml(options.yLabel)}${log ? " (log)" : ""}</text>`,
  );
  const groupW = plotW / options.groups.length;
  const barW = Math.min(36, (groupW * 0.8) / Math.max(1, options.series.length));
  options.groups.forEach((group, g) => {
    const left = margin.left + g * groupW + (groupW - barW * options.series.length) / 2;
    const center = (margin.left + g * groupW + groupW / 2).toFixed(1);
    // A name may have two lines ("\n"): narrow groups would otherwise run into each other.
    const lines = group.name.split("\n").map((line, k) => `<tspan x="${center}" dy="${k === 0 ? 0 : 13}">${escapeXml(line)}</tspan>`);
    parts.push(`<text x="${center}" y="${margin.top + plotH + 16}" text-anchor="middle" fill="#333">${lines.join("")}</text>`);
    options.series.forEach((series, s) => {
      const value = group.values[s];
      const x = left + s * barW;
      if (!usable(value)) {
        parts.push(
          `<text x="${(x + barW / 2).toFixed(1)}" y="${(margin.top + plotH - 4).toFixed(1)}" text-anchor="middle" fill="${series.color}" font-size="9">n/a</text>`,
        );
        return;
      }
      const top = y(value);
      parts.push(
        `<rect x="${(x + 1).toFixed(1)}" y="${top.toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(margin.top + plotH - top).toFixed(1)}" fill="${series.color}"><title>${escapeXml(`${group.name}, ${series.name}: ${format(value)}`)}</title></rect>`,
      );
      parts.push(
        `<text x="${(x + barW / 2).toFixed(1)}" y="${(top - 3).toFixed(1)}" text-anchor="middle" fill="#333" font-size="9">${escapeXml(format(value))}</text>`,
      );
    });
  });
  if (options.reference) {
    const ry = y(options.reference.y).toFixed(1);
    parts.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${ry}" y2="${ry}" stroke="#d62728" stroke-dasharray="4 3"/>`);
    parts.push(
      `<text x="${margin.left + plotW - 4}" y="${Number(ry) - 4}" text-anchor="end" fill="#d62728">${escapeXml(options.reference.label)}</text>`,
    );
  }
  options.series.forEach((series, index) => {
    const ly = margin.top + 8 + index * 18;
    const lx = margin.left + plotW + 14;
    parts.push(`<rect x="${lx}" y="${ly - 6}" width="14" height="12" fill="${series.color}"/>`);
    parts.push(`<text x="${lx + 20}" y="${ly + 4}" fill="#333">${escapeXml(series.name)}</text>`);
  });
  parts.push("</svg>");
  return parts.join("\n");
}
