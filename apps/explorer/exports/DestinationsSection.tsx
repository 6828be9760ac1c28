// The workspace's destinations (buckets and the keys that may write there; the keys never shown),
// and "New destination" with its form.
import { useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { dash, when } from '../core/format.ts';
import { EmptyCard, ListState, ListTable } from '../core/ListState.tsx';
import type { Load } from '../core/useLoad.ts';
import type { Destination } from './exportsApi.ts';
import { NewDestinationForm } from './NewDestinationForm.tsx';

const COLUMNS = ['Name', 'Bucket', 'Prefix', 'Endpoint', 'Region', 'Credentials', 'Created'];

/** The list is read by the page (the exports' form and names use it too): `load` is that read. */
export function DestinationsSection({
  credentials,
  load,
}: {
  credentials: Credentials;
  load: Load<Destination[]> & { refresh: () => void };
}) {
  const [creating, setCreating] = useState(false);
  return (
    <>
      <div className="page-head section-head">
        <h2>Destinations</h2>
        <button type="button" className="ghost" data-testid="new-destination" onClick={() => setCreating(!creating)}>
          New destination
        </button>
      </div>
      {creating && (
        <NewDestinationForm
          credentials={credentials}
          onCreated={() => {
            setCreating(false);
            load.refresh();
          }}
          onClose={() => setCreating(false)}
        />
      )}
      <ListState
        load={load}
        what="destinations"
        onRetry={load.refresh}
        empty={
          // The open form says what a destination is.
          !creating && (
            <EmptyCard testId="destinations-empty" title="No destinations yet">
              <p>
                A destination is an S3-compatible bucket (AWS S3, MinIO, …) and a key that may write to it. Press "New
                destination"; a test file is written there before it is saved.
              </p>
            </EmptyCard>
          )
        }
      >
        {(list) => (
          <ListTable testId="destinations-table" columns={COLUMNS}>
            <tbody>
              {list.map((d) => (
                <tr key={d.id} data-testid="destination-row">
                  <td>{d.display_name}</td>
                  <td>{d.config.bucket_name}</td>
                  <td>{d.config.prefix || dash}</td>
                  <td>{d.config.endpoint_url ?? 'AWS S3'}</td>
                  <td>{d.config.region ?? dash}</td>
                  <td className="muted">stored, write-only</td>
                  <td>{when(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </ListTable>
        )}
      </ListState>
    </>
  );
}
