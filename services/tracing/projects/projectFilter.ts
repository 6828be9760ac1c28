// The filters of GET /sessions, over the registry's projects (pure: no I/O).
import { metadataMatches } from '../../../platform/json/metadataMatch.ts';
import type { Project } from '../../../projections/projects/projectRegistry.ts';

export interface ProjectFilter {
  /** Any of these ids. */
  ids?: readonly string[];
  /** Exactly this name. */
  name?: string;
  /** Case-insensitive substring of the name. */
  nameContains?: string;
  /** true: only projects without a reference dataset; false: only projects with one. */
  referenceFree?: boolean;
  /** Run against any of these datasets. */
  referenceDatasets?: readonly string[];
  /** Every key of this object is in `extra.metadata` with an equal value. */
  metadata?: Readonly<Record<string, unknown>>;
}

export function matchesFilter(p: Project, f: ProjectFilter): boolean {
  if (f.ids && !f.ids.includes(p.id)) return false;
  if (f.name !== undefined && p.name !== f.name) return false;
  if (f.nameContains !== undefined && !p.name.toLowerCase().includes(f.nameContains.toLowerCase())) return false;
  if (f.referenceFree !== undefined && (p.referenceDatasetId === null) !== f.referenceFree) return false;
  if (f.referenceDatasets && (p.referenceDatasetId === null || !f.referenceDatasets.includes(p.referenceDatasetId)))
    return false;
  if (f.metadata && !metadataMatches(p.extra?.metadata, f.metadata)) return false;
  return true;
}
