// One chart over time, drawn by uPlot (canvas): lines or bars per series, a time axis, a y axis
// in the series' unit, and uPlot's legend showing the values under the cursor. It follows its
// container's width.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
  bars?: boolean;
}

const HEIGHT = 220;
const bars = uPlot.paths.bars!({ size: [0.7, 40] });

/** Tick steps of a chart of counts: whole numbers only. */
const COUNT_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 1e8, 1e9,
];

export function TimeChart({
  title,
  times,
  series,
  format,
  counts,
  testId,
}: {
  title: string;
  times: number[];
  series: ChartSeries[];
  format: (v: number) => string;
  /** The values are counts: whole-number ticks. */
  counts?: boolean;
  testId: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const options: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: HEIGHT,
      cursor: { drag: { x: false, y: false } },
      scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        { stroke: '#6b7385', grid: { stroke: '#eef0f4' }, ticks: { stroke: '#e3e6ec' } },
        {
          stroke: '#6b7385',
          grid: { stroke: '#eef0f4' },
          ticks: { stroke: '#e3e6ec' },
          size: 64,
          incrs: counts ? COUNT_STEPS : undefined,
          values: (_u, ticks) => ticks.map((v) => (v === 0 ? '0' : format(v))),
        },
      ],
      series: [
        {
          label: 'Time',
          value: (_u, v) =>
            v == null ? '—' : new Date(v * 1000).toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'short' }),
        },
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: s.bars ? 0 : 2,
          fill: s.bars ? s.color : undefined,
          paths: s.bars ? bars : undefined,
          // Buckets without traces are gaps: points keep a lone bucket's value visible.
          points: { show: !s.bars, size: 5 },
          value: (_u: uPlot, v: number | null) => (v == null ? '—' : format(v)),
        })),
      ],
    };
    const plot = new uPlot(options, [times, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, format, counts]);
  return (
    <figure className="chart card" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <div ref={box} className="chart-plot" />
    </figure>
  );
}
