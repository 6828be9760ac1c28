// A project's analytics over a time range (in the URL): the range's totals, then traces (and
// errored traces), latency p50/p99, error rate and tokens per time bucket, drawn with uPlot.
// One GET /sessions/{id}/stats answers all of it.
import { useMemo } from 'react';
import type { Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { count, dash, percent, seconds } from '../core/format.ts';
import { ProjectHeader } from '../core/ProjectHeader.tsx';
import { navigate, type Route, type TimeRange } from '../core/route.ts';
import { rangeLabel, rangeStart, TimeRangeSelect } from '../core/TimeRangeSelect.tsx';
import { useLoad } from '../core/useLoad.ts';
import { projectStats, type ProjectStats } from './analyticsApi.ts';
import { TimeChart, type ChartSeries } from './TimeChart.tsx';
import './analytics.css';

const COLORS = { accent: '#4f6bed', danger: '#d14343', p50: '#4f6bed', p99: '#b7791f', tokens: '#1f9d62' };

const cost = (value: number | null | undefined): string =>
  value == null || value === 0 ? dash : `$${value < 0.01 ? value.toFixed(4) : value.toFixed(2)}`;
const countTick = (v: number) => (Math.abs(v) >= 1000 ? `${+(v / 1000).toFixed(1)}k` : `${+v.toFixed(2)}`);
const percentTick = (v: number) => `${+(v * 100).toFixed(1)}%`;

interface Charts {
  times: number[];
  traces: ChartSeries[];
  latency: ChartSeries[];
  errorRate: ChartSeries[];
  tokens: ChartSeries[];
}

function chartsOf(stats: ProjectStats): Charts {
  const s = stats.series;
  return {
    times: s.map((b) => Date.parse(b.start_time) / 1000),
    traces: [
      { label: 'Traces', values: s.map((b) => b.trace_count), color: COLORS.accent, bars: true },
      { label: 'Errored', values: s.map((b) => b.trace_error_count), color: COLORS.danger, bars: true },
    ],
    latency: [
      { label: 'p50', values: s.map((b) => b.latency_p50), color: COLORS.p50 },
      { label: 'p99', values: s.map((b) => b.latency_p99), color: COLORS.p99 },
    ],
    errorRate: [
      {
        label: 'Errored traces',
        values: s.map((b) => (b.trace_count ? b.trace_error_count / b.trace_count : null)),
        color: COLORS.danger,
      },
    ],
    tokens: [{ label: 'Tokens', values: s.map((b) => b.total_tokens), color: COLORS.tokens, bars: true }],
  };
}

export function AnalyticsPage({
  credentials,
  route,
}: {
  credentials: Credentials;
  route: Extract<Route, { page: 'analytics' }>;
}) {
  const load = useLoad(
    () => projectStats(credentials, route.projectId, rangeStart(route.range)),
    [credentials, route.projectId, route.range],
  );
  const stats = load.state === 'done' ? load.value : null;
  const charts = useMemo(() => (stats ? chartsOf(stats) : null), [stats]);
  const setRange = (range: TimeRange) => navigate({ ...route, range }, { replace: true });
  return (
    <section>
      <ProjectHeader credentials={credentials} projectId={route.projectId} tab="analytics" />
      <div className="view-bar">
        <p className="muted">
          {stats?.interval
            ? `Traces whose root started in the range, per ${stats.interval}.`
            : 'Traces whose root started in the range.'}
        </p>
        <TimeRangeSelect value={route.range} onChange={setRange} />
      </div>
      {load.state === 'loading' && <p className="muted">Loading analytics…</p>}
      {load.state === 'error' && <ErrorBox error={load.error} />}
      {stats && (
        <dl className="summary" data-testid="analytics-summary">
          <Figure label="Traces" value={count(stats.trace_count)} testId="sum-traces" />
          <Figure label="Runs" value={count(stats.run_count)} testId="sum-runs" />
          <Figure
            label="Errored traces"
            value={percent(stats.trace_error_rate)}
            bad={!!stats.trace_error_count}
            testId="sum-error-rate"
          />
          <Figure label="Latency p50" value={seconds(stats.latency_p50)} testId="sum-p50" />
          <Figure label="Latency p99" value={seconds(stats.latency_p99)} testId="sum-p99" />
          <Figure label="Tokens" value={count(stats.total_tokens)} testId="sum-tokens" />
          <Figure label="Cost" value={cost(stats.total_cost)} testId="sum-cost" />
        </dl>
      )}
      {stats && stats.trace_count === 0 && (
        <div className="empty card" data-testid="analytics-empty">
          <h3>No traces in the {rangeLabel(route.range).toLowerCase()}</h3>
          <p>
            Pick a longer time range, or send traces to this project with the <code>langsmith</code> client.
          </p>
        </div>
      )}
      {charts && stats && stats.trace_count > 0 && (
        <div className="charts">
          <TimeChart
            title="Traces"
            times={charts.times}
            series={charts.traces}
            format={countTick}
            counts
            testId="chart-traces"
          />
          <TimeChart
            title="Latency"
            times={charts.times}
            series={charts.latency}
            format={latencyTick}
            testId="chart-latency"
          />
          <TimeChart
            title="Error rate"
            times={charts.times}
            series={charts.errorRate}
            format={percentTick}
            testId="chart-error-rate"
          />
          <TimeChart
            title="Tokens"
            times={charts.times}
            series={charts.tokens}
            format={countTick}
            counts
            testId="chart-tokens"
          />
        </div>
      )}
    </section>
  );
}

function latencyTick(v: number): string {
  return v < 1 ? `${+(v * 1000).toFixed(0)} ms` : `${+v.toFixed(2)} s`;
}

function Figure({ label, value, bad, testId }: { label: string; value: string; bad?: boolean; testId: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className={bad ? 'bad' : ''} data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}
