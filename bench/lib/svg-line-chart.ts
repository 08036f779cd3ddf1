/** A small hand-written SVG line chart with logarithmic axes: no dependencies, readable at a glance. */

export interface ChartSeries {
  readonly name: string;
  readonly color: string;
  /** Drawn dashed (e.g. the peer). */
  readonly dashed?: boolean;
  readonly points: readonly { readonly x: number; readonly y: number }[];
}

export interface LineChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly ChartSeries[];
  /** A horizontal reference line, e.g. the bare Express p50. */
  readonly reference?: { readonly y: number; readonly label: string };
  readonly width?: number;
  readonly height?: number;
}

const escapeXml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function niceNumber(value: number): string {
  if (value >= 1_000_000) return `${value / 1_000_000}M`;
  if (value >= 1_000) return `${value / 1_000}k`;
  if (value >= 1) return String(Number(value.toPrecision(3)));
  return String(Number(value.toPrecision(2)));
}

/** Powers of ten (and 2×, 5× when the range is short) covering [min, max]. */
function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  const low = Math.floor(Math.log10(min));
  const high = Math.ceil(Math.log10(max));
  const steps = high - low <= 2 ? [1, 2, 5] : [1];
  for (let e = low; e <= high; e += 1) {
    for (const step of steps) {
      const value = step * 10 ** e;
      if (value >= min * 0.999 && value <= max * 1.001) ticks.push(value);
    }
  }
  return ticks;
}

/** Renders the chart as an SVG document. */
export function lineChart(options: LineChartOptions): string {
  const width = options.width ?? 640;
  const height = options.height ?? 360;
  const margin = { left: 64, right: 150, top: 36, bottom: 48 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const points = options.series.flatMap((series) => series.points).filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.y));
  const ys = [...points.map((p) => p.y), ...(options.reference ? [options.reference.y] : [])];
  const xs = points.map((p) => p.x);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="11">`,
  );
  parts.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  parts.push(`<text x="${margin.left}" y="20" font-size="13" font-weight="600">${escapeXml(options.title)}</text>`);
  if (points.length === 0) {
    parts.push(`<text x="${margin.left}" y="${margin.top + 20}">no data</text></svg>`);
    return parts.join("\n");
  }
  let xMin = Math.min(...xs);
  let xMax = Math.max(...xs);
  if (xMin === xMax) {
    xMin /= 2;
    xMax *= 2;
  }
  let yMin = Math.min(...ys);
  let yMax = Math.max(...ys);
  yMin = 10 ** Math.floor(Math.log10(yMin));
  yMax = 10 ** Math.ceil(Math.log10(yMax));
  if (yMin === yMax) yMax *= 10;
  const x = (value: number): number =>
    margin.left + ((Math.log10(value) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) * plotW;
  const y = (value: number): number =>
    margin.top + plotH - ((Math.log10(value) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * plotH;

  for (const tick of logTicks(yMin, yMax)) {
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" stroke="#e5e5e5"/>`,
    );
    parts.push(`<text x="${margin.left - 6}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end" fill="#555">${niceNumber(tick)}</text>`);
  }
  const xTicks = [...new Set(xs)].sort((a, b) => a - b);
  for (const tick of xTicks) {
    parts.push(
      `<line x1="${x(tick).toFixed(1)}" x2="${x(tick).toFixed(1)}" y1="${margin.top}" y2="${margin.top + plotH}" stroke="#f0f0f0"/>`,
    );
    parts.push(
      `<text x="${x(tick).toFixed(1)}" y="${margin.top + plotH + 16}" text-anchor="middle" fill="#555">${niceNumber(tick)}</text>`,
    );
  }
  parts.push(`<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  parts.push(
    `<text x="${margin.left + plotW / 2}" y="${height - 10}" text-anchor="middle" fill="#333">${escapeXml(options.xLabel)}</text>`,
  );
  parts.push(
    `<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="#333">${escapeXml(options.yLabel)}</text>`,
  );
  if (options.reference) {
    const ry = y(options.reference.y).toFixed(1);
    parts.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${ry}" y2="${ry}" stroke="#888" stroke-dasharray="2 3"/>`);
    parts.push(
      `<text x="${margin.left + plotW - 4}" y="${Number(ry) - 4}" text-anchor="end" fill="#777">${escapeXml(options.reference.label)}</text>`,
    );
  }
  options.series.forEach((series, index) => {
    const valid = series.points.filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
    if (valid.length > 0) {
      const d = valid.map((p, i) => `${i === 0 ? "M" : "L"}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join(" ");
      parts.push(`<path d="${d}" fill="none" stroke="${series.color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ""}/>`);
      for (const p of valid) {
        parts.push(
          `<circle cx="${x(p.x).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="3.5" fill="${series.color}"><title>${escapeXml(series.name)}: ${niceNumber(p.x)} → ${p.y.toFixed(2)}</title></circle>`,
        );
      }
    }
    const ly = margin.top + 8 + index * 18;
    const lx = margin.left + plotW + 14;
    parts.push(
      `<line x1="${lx}" x2="${lx + 22}" y1="${ly}" y2="${ly}" stroke="${series.color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ""}/>`,
    );
    parts.push(`<text x="${lx + 28}" y="${ly + 4}" fill="#333">${escapeXml(series.name)}${valid.length === 0 ? " (n/a)" : ""}</text>`);
  });
  parts.push("</svg>");
  return parts.join("\n");
}
