// The workspace's bulk exports and their destinations.
import type { Credentials } from '../core/api.ts';

export function ExportsPage(_props: { credentials: Credentials }) {
  return <h2>Bulk exports</h2>;
}
