// An export's or an export run's status as a coloured badge (IntervalScheduled reads "Scheduled").
export function ExportStatusBadge({ status }: { status: string }) {
  const kind =
    status === 'Completed'
      ? 'status-success'
      : status === 'Failed' || status === 'TimedOut'
        ? 'status-error'
        : status === 'Cancelled'
          ? 'status-neutral'
          : '';
  return (
    <span className={`status ${kind}`} data-testid="export-status">
      {status === 'IntervalScheduled' ? 'Scheduled' : status}
    </span>
  );
}
