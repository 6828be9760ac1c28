// The control plane's agent-server deployments.
import type { Credentials } from '../core/api.ts';

export function DeploymentsPage(_props: { credentials: Credentials }) {
  return <h2>Deployments</h2>;
}
