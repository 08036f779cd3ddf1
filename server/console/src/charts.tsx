/**
 * Two small charts drawn as SVG by Preact: no chart library, no inline style (the CSP has no
 * 'unsafe-inline'), and each one's figures also in a table for screen readers and for copying.
 */

export interface Point {
  readonly label: string;
  readonly value: number;
}

const WIDTH = 640;
const HEIGHT = 240;
const PAD = { top: 16, right: 16, bottom: 36, left: 44 };

/** A line over time (cumulative completions), with the enrolled total as a dashed ceiling. */
export function LineChart({
  title,
  points,
  ceiling,
  unit,
}: {
  readonly title: string;
  readonly points: readonly Point[];
  readonly ceiling?: number;
  readonly unit: string;
}) {
  const id = `chart-${title.replace(/\W+/g, "-").toLowerCase()}`;
  const max = Math.max(1, ceiling ?? 0, ...points.map((point) => point.value));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (index: number): number => PAD.left + (points.length <= 1 ? innerW / 2 : (index / (points.length - 1)) * innerW);
  const y = (value: number): number => PAD.top + innerH - (value / max) * innerH;
  const path = points.map((point, index) => `${index === 0 ? "M" : "L"}${x(index).toFixed(1)},${y(point.value).toFixed(1)}`).join(" ");
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => Math.round(share * max));
  const labelEvery = Math.max(1, Math.ceil(points.length / 6));
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${id}-title`}>
        <title id={`${id}-title`}>{title}</title>
        {ticks.map((tick) => (
          <g key={tick}>
            <line class="grid" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} />
            <text class="axis" x={PAD.left - 6} y={y(tick) + 4} text-anchor="end">
              {tick}
            </text>
          </g>
        ))}
        {ceiling === undefined ? null : <line class="ceiling" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(ceiling)} y2={y(ceiling)} />}
        <path class="line" d={path} />
        {points.map((point, index) => (
          <circle key={point.label} class="dot" cx={x(index)} cy={y(point.value)} r={3} />
        ))}
        {points.map((point, index) =>
          index % labelEvery === 0 || index === points.length - 1 ? (
            <text key={point.label} class="axis" x={x(index)} y={HEIGHT - 12} text-anchor="middle">
              {point.label.slice(5)}
            </text>
          ) : null,
        )}
      </svg>
      <figcaption>{title}</figcaption>
      <DataTable points={points} unit={unit} />
    </figure>
  );
}

/** Horizontal bars, each as a share of the first (a funnel: sent, then each step after). */
export function FunnelChart({ title, points }: { readonly title: string; readonly points: readonly Point[] }) {
  const id = `chart-${title.replace(/\W+/g, "-").toLowerCase()}`;
  const first = Math.max(1, points[0]?.value ?? 1);
  const row = 34;
  const labelW = 130;
  const height = points.length * row + 8;
  const barW = WIDTH - labelW - 90;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-labelledby={`${id}-title`}>
        <title id={`${id}-title`}>{title}</title>
        {points.map((point, index) => {
          const width = Math.max(1, (point.value / first) * barW);
          const top = 4 + index * row;
          return (
            <g key={point.label}>
              <text class="axis" x={labelW - 8} y={top + 20} text-anchor="end">
                {point.label}
              </text>
              <rect class={`bar bar-${index}`} x={labelW} y={top + 4} width={width} height={row - 10} rx={3} />
              <text class="value" x={labelW + width + 6} y={top + 20}>
                {point.value} ({Math.round((point.value / first) * 100)}%)
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>{title}</figcaption>
      <DataTable points={points} unit="recipients" />
    </figure>
  );
}

function DataTable({ points, unit }: { readonly points: readonly Point[]; readonly unit: string }) {
  return (
    <details>
      <summary>Figures as a table</summary>
      <table>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">{unit}</th>
          </tr>
        </thead>
        <tbody>
          {points.map((point) => (
            <tr key={point.label}>
              <th scope="row">{point.label}</th>
              <td>{point.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
