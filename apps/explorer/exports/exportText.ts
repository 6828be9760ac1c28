// An export's time window and schedule as the list and the detail word them.
import { when } from '../core/format.ts';
import type { BulkExport } from './exportsApi.ts';

/** How often a list with work under way is read again. */
export const POLL_MS = 1500;

/** The names the page shows for ids: a destination's display name, a project's or dataset's name (else the id). */
export interface Names {
  destination: (id: string) => string;
  project: (id: string | null) => string;
  dataset: (id: string) => string;
}

/** A runs export's time window (an examples export has a version instead: ExportedVersion). */
export const windowText = (e: BulkExport) =>
  e.end_time ? `${when(e.start_time)} → ${when(e.end_time)}` : `from ${when(e.start_time)}`;
export const scheduleText = (e: BulkExport) => (e.interval_hours === null ? 'once' : `every ${e.interval_hours} h`);
