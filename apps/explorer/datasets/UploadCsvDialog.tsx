// "Upload CSV" on the datasets page: a CSV file chosen, its header's columns offered as inputs and
// as outputs (checkboxes; by default the last column the output, the others the inputs), a name
// (by default the file's), sent as POST /datasets/upload; the new dataset opens. A refusal of the
// API (a name taken: 409; a file that is no CSV: 400) stays in the dialog.
import { useState, type FormEvent } from 'react';
import type { ApiError, Credentials } from '../core/api.ts';
import { asApiError, Buttons, Dialog } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { count } from '../core/format.ts';
import { csvOutline, nameOfFile, type CsvOutline } from './csv.ts';
import { type Dataset, uploadCsv } from './datasetsApi.ts';

export function UploadCsvDialog({
  credentials,
  onDone,
  onCancel,
}: {
  credentials: Credentials;
  onDone: (dataset: Dataset) => void;
  onCancel: () => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [outline, setOutline] = useState<CsvOutline | null>(null);
  const [inputs, setInputs] = useState<string[]>([]);
  const [outputs, setOutputs] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const choose = async (chosen: File | null) => {
    setFile(chosen);
    setOutline(null);
    setError(null);
    if (!chosen) return;
    const read = csvOutline(await chosen.text());
    setOutline(read);
    const columns = read.columns;
    setInputs(columns.length > 1 ? columns.slice(0, -1) : columns);
    setOutputs(columns.length > 1 ? columns.slice(-1) : []);
    setName((current) => current || nameOfFile(chosen.name));
  };
  const flip = (list: string[], set: (l: string[]) => void, column: string) =>
    set(list.includes(column) ? list.filter((c) => c !== column) : [...list, column]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file || !outline) return;
    setBusy(true);
    setError(null);
    // In the file's order, whatever order they were checked in.
    const inOrder = (list: string[]) => outline.columns.filter((c) => list.includes(c));
    try {
      const dataset = await uploadCsv(credentials, {
        file,
        name: name.trim(),
        inputKeys: inOrder(inputs),
        outputKeys: inOrder(outputs),
      });
      onDone(dataset);
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };

  return (
    <Dialog title="Upload CSV" onCancel={onCancel}>
      <form onSubmit={submit}>
        <p className="muted">Each row becomes an example; its header names the columns.</p>
        <label>
          File
          <input
            type="file"
            accept=".csv,text/csv"
            data-testid="csv-file"
            onChange={(e) => void choose(e.target.files?.[0] ?? null)}
          />
        </label>
        {outline && outline.columns.length === 0 && <p className="error">The file has no header row.</p>}
        {outline && outline.columns.length > 0 && (
          <>
            <p className="muted" data-testid="csv-outline">
              {count(outline.columns.length)} columns, {count(outline.rows)} rows
            </p>
            <div className="csv-columns">
              <ColumnChecks
                legend="Input columns"
                testId="csv-input"
                columns={outline.columns}
                checked={inputs}
                onFlip={(c) => flip(inputs, setInputs, c)}
              />
              <ColumnChecks
                legend="Output columns"
                testId="csv-output"
                columns={outline.columns}
                checked={outputs}
                onFlip={(c) => flip(outputs, setOutputs, c)}
              />
            </div>
          </>
        )}
        <label>
          Name
          <input
            data-testid="csv-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={1000}
            placeholder="the file's name"
          />
        </label>
        {error && <ErrorBox error={error} />}
        <Buttons onCancel={onCancel}>
          <button
            type="submit"
            className="primary"
            data-testid="dialog-confirm"
            disabled={busy || !file || !outline || inputs.length === 0 || !name.trim()}
          >
            {busy ? 'Uploading…' : 'Upload'}
          </button>
        </Buttons>
      </form>
    </Dialog>
  );
}

function ColumnChecks({
  legend,
  testId,
  columns,
  checked,
  onFlip,
}: {
  legend: string;
  testId: string;
  columns: string[];
  checked: string[];
  onFlip: (column: string) => void;
}) {
  return (
    <fieldset className="csv-column-set" data-testid={`${testId}-columns`}>
      <legend>{legend}</legend>
      {columns.map((c) => (
        <label key={c} className="check">
          <input
            type="checkbox"
            data-testid={testId}
            data-column={c}
            checked={checked.includes(c)}
            onChange={() => onFlip(c)}
          />
          {c}
        </label>
      ))}
    </fieldset>
  );
}
