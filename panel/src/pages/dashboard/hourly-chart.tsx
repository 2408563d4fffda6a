// Sent and failed SMS per hour over the last 24 hours, drawn by hand as an SVG bar chart (no
// chart library: 24 pairs of bars need none). Failed bars are hatched as well as red, so the
// two series differ without colour; the figure's label sums it up for screen readers and the
// table under it holds every number.
import type { HourlyOutcomes } from '../../api/types.ts';

const WIDTH = 720;
const HEIGHT = 240;
const MARGIN = { top: 24, right: 8, bottom: 36, left: 60 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;
/** Hours between labels on the time axis: four labels fit even on a phone. */
const LABEL_EVERY = 6;

export function HourlyChart({ hours }: { hours: HourlyOutcomes[] }) {
  const peak = Math.max(1, ...hours.map((hour) => Math.max(hour.sent, hour.failed)));
  const slot = PLOT_WIDTH / Math.max(1, hours.length);
  const barWidth = Math.max(2, slot / 2 - 2);
  const y = (count: number) => MARGIN.top + PLOT_HEIGHT - (count / peak) * PLOT_HEIGHT;
  return (
    <figure class="hourly-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={describe(hours)} class="chart">
        <defs>
          <pattern id="failed-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect class="chart-failed" width="6" height="6" />
            <line class="chart-hatch" x1="0" y1="0" x2="0" y2="6" />
          </pattern>
        </defs>
        <line class="chart-axis" x1={MARGIN.left} y1={y(0)} x2={WIDTH - MARGIN.right} y2={y(0)} />
        <line class="chart-grid" x1={MARGIN.left} y1={y(peak)} x2={WIDTH - MARGIN.right} y2={y(peak)} />
        <text class="chart-label" x={MARGIN.left - 6} y={y(peak)} text-anchor="end" dominant-baseline="middle">
          {peak}
        </text>
        <text class="chart-label" x={MARGIN.left - 6} y={y(0)} text-anchor="end" dominant-baseline="middle">
          0
        </text>
        {hours.map((hour, index) => {
          const left = MARGIN.left + index * slot + 1;
          return (
            <g key={hour.hour}>
              {hour.sent > 0 && <rect class="chart-sent" x={left} y={y(hour.sent)} width={barWidth} height={y(0) - y(hour.sent)} />}
              {hour.failed > 0 && <rect fill="url(#failed-hatch)" class="chart-failed-bar" x={left + barWidth + 1} y={y(hour.failed)} width={barWidth} height={y(0) - y(hour.failed)} />}
              {index % LABEL_EVERY === 0 && (
                <text class="chart-label" x={left} y={HEIGHT - MARGIN.bottom + 22}>
                  {hourLabel(hour.hour)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="chart-legend">
        <span class="legend-item">
          <span class="legend-swatch legend-sent" aria-hidden="true" /> sent
        </span>
        <span class="legend-item">
          <span class="legend-swatch legend-failed" aria-hidden="true" /> failed (hatched)
        </span>
        <span class="muted">per hour, your local time; the last bar is the hour under way</span>
      </figcaption>
      <details class="chart-numbers">
        <summary>The numbers per hour</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Hour</th>
                <th scope="col" class="num">
                  Sent
                </th>
                <th scope="col" class="num">
                  Failed
                </th>
              </tr>
            </thead>
            <tbody>
              {hours.map((hour) => (
                <tr key={hour.hour}>
                  <td>{hourLabel(hour.hour)}</td>
                  <td class="num">{hour.sent}</td>
                  <td class="num">{hour.failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/** "14:00" in the browser's zone. */
function hourLabel(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

function describe(hours: HourlyOutcomes[]): string {
  const sent = hours.reduce((sum, hour) => sum + hour.sent, 0);
  const failed = hours.reduce((sum, hour) => sum + hour.failed, 0);
  const base = `SMS per hour over the last 24 hours: ${sent} sent, ${failed} failed`;
  if (sent + failed === 0) return `${base}.`;
  const busiest = hours.reduce((best, hour) => (hour.sent + hour.failed > best.sent + best.failed ? hour : best));
  return `${base}; the busiest hour, ${hourLabel(busiest.hour)}, had ${busiest.sent} sent and ${busiest.failed} failed.`;
}
