// The form of a new destination, whose credentials are write-only: uncontrolled inputs (React would
// copy a controlled input's value into the page's HTML) cleared once sent, and never read back (the
// API answers only the names of the fields).
import type { FormEvent } from 'react';
import type { Credentials } from '../core/api.ts';
import { useSubmit } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { createDestination } from './exportsApi.ts';
import { Field } from './Field.tsx';

export function NewDestinationForm({
  credentials,
  onCreated,
  onClose,
}: {
  credentials: Credentials;
  onCreated: () => void;
  onClose: () => void;
}) {
  const { busy, error, run } = useSubmit();

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    await run(async () => {
      await createDestination(credentials, {
        display_name: text('display_name'),
        config: {
          bucket_name: text('bucket_name'),
          prefix: text('prefix'),
          endpoint_url: text('endpoint_url') || null,
          region: text('region') || null,
        },
        credentials: {
          access_key_id: text('access_key_id'),
          secret_access_key: String(data.get('secret_access_key') ?? ''),
        },
      });
      form.reset();
      onCreated();
    });
  };

  return (
    <form className="card form-card" onSubmit={submit} data-testid="destination-form" autoComplete="off">
      <h3>New destination</h3>
      <div className="form-grid">
        <Field label="Name">
          <input name="display_name" data-testid="destination-name" required placeholder="our lake" />
        </Field>
        <Field label="Bucket">
          <input name="bucket_name" data-testid="destination-bucket" required minLength={3} maxLength={63} />
        </Field>
        <Field label="Prefix (folder, optional)">
          <input name="prefix" data-testid="destination-prefix" placeholder="langsmith" />
        </Field>
        <Field label="Endpoint URL (empty for AWS S3)">
          <input name="endpoint_url" data-testid="destination-endpoint" placeholder="https://minio.example.com" />
        </Field>
        <Field label="Region (optional)">
          <input name="region" data-testid="destination-region" placeholder="us-east-1" />
        </Field>
        <Field label="Access key ID">
          <input
            name="access_key_id"
            data-testid="destination-access-key"
            type="password"
            autoComplete="off"
            required
          />
        </Field>
        <Field label="Secret access key">
          <input
            name="secret_access_key"
            data-testid="destination-secret"
            type="password"
            autoComplete="new-password"
            required
          />
        </Field>
      </div>
      <p className="muted">The key is sealed before it is stored and is never shown again, here or in the API.</p>
      {error && <ErrorBox error={error} />}
      <div className="form-actions">
        <button type="submit" className="primary" data-testid="destination-submit" disabled={busy}>
          {busy ? 'Checking the bucket…' : 'Create destination'}
        </button>
        <button type="button" className="ghost" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}
