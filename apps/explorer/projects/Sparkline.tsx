// A project's activity as a 120×28 bar sparkline: traces per bucket, the errored part in red.
// Plain SVG rather than uPlot: a list shows up to 100 of these, and a uPlot per row would be a
// canvas, a cursor, resize handling and axes to hide for each, to draw a few dozen rectangles.
const WIDTH = 120;
const HEIGHT = 28;

export function Sparkline({
  traces,
  errors,
  bucketStarts,
  interval,
}: {
  traces: number[];
  errors: number[];
  bucketStarts: string[];
  interval: string;
}) {
  const total = traces.reduce((a, b) => a + b, 0);
  const failed = errors.reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...traces);
  const step = WIDTH / Math.max(1, traces.length);
  const bar = Math.max(1, step - 1);
  const height = (n: number) => (n === 0 ? 0 : Math.max(1.5, (n / max) * (HEIGHT - 2)));
  const since = bucketStarts[0]
    ? new Date(bucketStarts[0]).toLocaleDateString('en-GB', { day: 'numeric', month: 'short' })
    : '';
  const title = `${total.toLocaleString('en-US')} traces${failed ? ` (${failed.toLocaleString('en-US')} errored)` : ''} since ${since}, per ${interval}`;
  return (
    <svg
      className="sparkline"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={title}
      data-testid="sparkline"
      data-total={total}
    >
      <title>{title}</title>
      <line x1={0} x2={WIDTH} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} className="sparkline-base" />
      {traces.map((n, i) => {
        if (n === 0) return null;
        const h = height(n);
        const e = h * ((errors[i] ?? 0) / n); // the errored part, at the foot of the bar
        return (
          <g key={i}>
            <rect x={i * step} y={HEIGHT - h} width={bar} height={h} className="sparkline-bar" />
            {e > 0 && <rect x={i * step} y={HEIGHT - e} width={bar} height={e} className="sparkline-error" />}
          </g>
        );
      })}
    </svg>
  );
}
