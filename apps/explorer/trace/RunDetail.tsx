// The selected run: what the tree row knows shows at once (name, type, status, timing, tokens with
// its descendants'), the rest is read for this run only (GET /runs/{id}): error with its stack,
// inputs and outputs, attachments, metadata, tags; then its feedback (RunFeedback.tsx). "Add to
// dataset" makes an example of the run; "Send to annotation queue" adds it to a queue.
import { useEffect, useState, type ReactNode } from 'react';
import { SendToQueueDialog } from '../annotation-queues/SendToQueueDialog.tsx';
import { ApiError, type Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { count, dash, seconds, when } from '../core/format.ts';
import { useLoad } from '../core/useLoad.ts';
import { AddToDatasetDialog } from '../datasets/AddToDatasetDialog.tsx';
import { Status } from '../traces/TracesPage.tsx';
import { Payload, PrettyJson } from './Payload.tsx';
import { RunFeedback } from './RunFeedback.tsx';
import type { TreeNode } from './runTree.ts';
import { attachmentBlob, attachmentsOf, downloadAttachment, runDetail, type RunDetail as Run } from './traceApi.ts';

const money = (v: number | null | undefined) => (v ? `$${v < 0.01 ? v.toFixed(6) : v.toFixed(4)}` : null);

/** How long a run stays selected before its payloads and feedback are read: holding j reads only where it stops. */
const SETTLE_MS = 120;

export function RunDetail({
  credentials,
  node,
  traceId,
}: {
  credentials: Credentials;
  node: TreeNode;
  traceId: string;
}) {
  const { run } = node;
  const [settled, setSettled] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(true), SETTLE_MS);
    return () => clearTimeout(timer);
  }, []);
  const latency = node.end === null ? null : (node.end - node.start) / 1000;
  const firstToken = run.first_token_time ? (Date.parse(run.first_token_time) - node.start) / 1000 : null;
  const cost = money(run.total_cost);
  const [dialog, setDialog] = useState<'dataset' | 'queue' | null>(null);
  return (
    <article className="run-detail card" data-testid="run-detail" data-run-id={run.id}>
      <header>
        <h2 data-testid="run-detail-name">{run.name}</h2>
        <Status status={run.status} />
        <span className={`type-badge type-${run.run_type}`}>{run.run_type}</span>
        <span className="run-actions">
          <button
            type="button"
            className="ghost small"
            data-testid="run-add-to-dataset"
            onClick={() => setDialog('dataset')}
          >
            Add to dataset
          </button>
          <button
            type="button"
            className="ghost small"
            data-testid="run-send-to-queue"
            onClick={() => setDialog('queue')}
          >
            Send to annotation queue
          </button>
        </span>
      </header>
      {dialog === 'dataset' && (
        <AddToDatasetDialog credentials={credentials} runs={[{ id: run.id }]} onCancel={() => setDialog(null)} />
      )}
      {dialog === 'queue' && (
        <SendToQueueDialog credentials={credentials} runIds={[run.id]} onCancel={() => setDialog(null)} />
      )}
      <dl className="facts">
        <dt>Start</dt>
        <dd>{when(run.start_time)}</dd>
        <dt>End</dt>
        <dd>{run.end_time ? when(run.end_time) : 'still running'}</dd>
        <dt>Latency</dt>
        <dd data-testid="run-latency">{seconds(latency)}</dd>
        {firstToken !== null && (
          <>
            <dt>First token</dt>
            <dd data-testid="run-first-token">{seconds(firstToken)}</dd>
          </>
        )}
        <dt>Tokens</dt>
        <dd data-testid="run-tokens">
          {run.total_tokens
            ? `${count(run.total_tokens)} (${count(run.prompt_tokens)} prompt, ${count(run.completion_tokens)} completion)`
            : dash}
        </dd>
        {node.childCount > 0 && run.total_tokens ? (
          <>
            <dt />
            <dd className="muted small-note">with its descendants’ usage</dd>
          </>
        ) : null}
        {cost && (
          <>
            <dt>Cost</dt>
            <dd data-testid="run-cost">{cost}</dd>
          </>
        )}
        <dt>Run id</dt>
        <dd>
          <code>{run.id}</code>
        </dd>
      </dl>
      {settled ? (
        <>
          <RunPayloads credentials={credentials} runId={run.id} />
          <RunFeedback credentials={credentials} runId={run.id} traceId={traceId} />
        </>
      ) : (
        <p className="muted">Loading the run…</p>
      )}
    </article>
  );
}

function RunPayloads({ credentials, runId }: { credentials: Credentials; runId: string }) {
  const detail = useLoad(() => runDetail(credentials, runId), [credentials, runId]);
  if (detail.state === 'loading') return <p className="muted">Loading the run…</p>;
  if (detail.state === 'error') return <ErrorBox error={detail.error} />;
  return <RunBody credentials={credentials} run={detail.value} />;
}

/** The model a run called, as LangChain and the wrappers record it (metadata ls_*, invocation_params). */
function modelOf(run: Run): string | null {
  const metadata = (run.extra?.metadata ?? {}) as Record<string, unknown>;
  const params = (run.extra?.invocation_params ?? {}) as Record<string, unknown>;
  const name = metadata.ls_model_name ?? params.model ?? params.model_name;
  if (typeof name !== 'string' || !name) return null;
  const provider = typeof metadata.ls_provider === 'string' ? ` (${metadata.ls_provider})` : '';
  const temperature = metadata.ls_temperature ?? params.temperature;
  return `${name}${provider}${typeof temperature === 'number' ? `, temperature ${temperature}` : ''}`;
}

function RunBody({ credentials, run }: { credentials: Credentials; run: Run }) {
  const metadata = run.extra?.metadata;
  const attachments = attachmentsOf(run);
  const model = modelOf(run);
  const [downloadError, setDownloadError] = useState<ApiError | null>(null);
  return (
    <>
      {model && (
        <p className="model-line" data-testid="run-model">
          <span className="muted">Model</span> {model}
        </p>
      )}
      {run.tags && run.tags.length > 0 && (
        <div className="tags" data-testid="run-tags">
          {run.tags.map((t) => (
            <span className="tag" key={t}>
              {t}
            </span>
          ))}
        </div>
      )}
      {run.error && (
        <Block title="Error">
          <pre className="error-text" data-testid="run-error">
            {run.error}
          </pre>
        </Block>
      )}
      <Block title="Inputs">
        <Payload value={run.inputs} testId="run-inputs" />
      </Block>
      <Block title="Outputs">
        <Payload value={run.outputs} testId="run-outputs" />
      </Block>
      {attachments.length > 0 && (
        <Block title="Attachments">
          <ul className="attachments">
            {attachments.map((a) => (
              <li key={a.name}>
                <a
                  href={a.path}
                  data-testid="attachment"
                  data-name={a.name}
                  onClick={(e) => {
                    e.preventDefault();
                    setDownloadError(null);
                    downloadAttachment(credentials, a.path, a.name).catch((err: unknown) =>
                      setDownloadError(err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err))),
                    );
                  }}
                >
                  ⤓ {a.name}
                </a>{' '}
                <span className="muted">{a.mimeType}</span>
                {PREVIEWED.test(a.mimeType) && <ImagePreview credentials={credentials} path={a.path} name={a.name} />}
              </li>
            ))}
          </ul>
          {downloadError && <ErrorBox error={downloadError} />}
        </Block>
      )}
      {metadata && Object.keys(metadata).length > 0 && (
        <Block title="Metadata">
          <div data-testid="run-metadata">
            <PrettyJson value={metadata} />
          </div>
        </Block>
      )}
    </>
  );
}

/** Images a browser shows safely in an <img> (no SVG: it is a document). */
const PREVIEWED = /^image\/(png|jpeg|gif|webp|avif)$/;

function ImagePreview({ credentials, path, name }: { credentials: Credentials; path: string; name: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let made: string | null = null;
    attachmentBlob(credentials, path).then(
      (blob) => {
        if (!live) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      },
      () => undefined, // the link beside it still downloads, and says what went wrong
    );
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [credentials, path]);
  return url ? <img className="attachment-preview" src={url} alt={name} data-testid="attachment-preview" /> : null;
}

const Block = ({ title, children }: { title: string; children: ReactNode }) => (
  <section className="block">
    <h3>{title}</h3>
    {children}
  </section>
);
