// A commit's manifest for people (manifest.ts reads it): the variables it takes, a chat prompt's
// messages (role, then the template with its {variables} marked), a string prompt's template, the
// model it was pushed with and its settings; anything else as JSON. "Manifest JSON" shows the
// manifest as committed.
import { useState } from 'react';
import { readManifest, templateParts, type PromptMessage, type TemplateFormat } from './manifest.ts';

/** A template with its variables marked. */
export function TemplateText({
  template,
  format,
  literal,
}: {
  template: string;
  format: TemplateFormat;
  literal?: boolean;
}) {
  if (!template) return <span className="muted">(empty)</span>;
  if (literal) return <>{template}</>;
  return (
    <>
      {templateParts(template, format).map((p, i) =>
        p.variable === null ? (
          <span key={i}>{p.text}</span>
        ) : (
          <mark key={i} className="prompt-variable" data-testid="template-variable" title={`variable ${p.variable}`}>
            {p.text}
          </mark>
        ),
      )}
    </>
  );
}

function Message({ message: m }: { message: PromptMessage }) {
  if (m.role === 'placeholder')
    return (
      <li className="prompt-message role-placeholder" data-testid="prompt-message" data-role="placeholder">
        <div className="prompt-message-head">
          <span className="prompt-role">placeholder</span>
          <span className="muted">messages from</span>{' '}
          <mark className="prompt-variable" data-testid="template-variable">
            {`{${m.template}}`}
          </mark>
          {m.optional && <span className="muted">(optional)</span>}
        </div>
      </li>
    );
  return (
    <li className={`prompt-message role-${m.role}`} data-testid="prompt-message" data-role={m.role}>
      <div className="prompt-message-head">
        <span className="prompt-role">{m.role}</span>
        {m.literal && <span className="muted">a message (no variables)</span>}
        {m.multipart && <span className="muted">in parts</span>}
      </div>
      <div className="prompt-template" data-testid="message-template">
        <TemplateText template={m.template} format={m.format} literal={m.literal} />
      </div>
    </li>
  );
}

export function ManifestView({ manifest }: { manifest: Record<string, unknown> }) {
  const [raw, setRaw] = useState(false);
  const view = readManifest(manifest);
  const format =
    view.kind === 'string' ? view.format : view.kind === 'chat' ? view.messages.find((m) => !m.literal)?.format : null;
  return (
    <div className="manifest" data-testid="manifest" data-kind={view.kind}>
      <div className="manifest-facts">
        <span className="muted">
          {view.kind === 'chat' ? 'Chat prompt' : view.kind === 'string' ? 'String prompt' : view.type}
          {format && format !== 'f-string' && ` · ${format}`}
        </span>
        {view.kind !== 'other' && (
          <span className="prompt-variables" data-testid="prompt-variables">
            {view.variables.length === 0 ? (
              <span className="muted">no variables</span>
            ) : (
              <>
                <span className="muted">Variables</span>
                {view.variables.map((v) => (
                  <code key={v} className="variable-chip">
                    {v}
                  </code>
                ))}
              </>
            )}
          </span>
        )}
        <button type="button" className="link-button" data-testid="manifest-raw" onClick={() => setRaw((r) => !r)}>
          {raw ? 'Hide manifest JSON' : 'Manifest JSON'}
        </button>
      </div>
      {raw && (
        <pre className="json" data-testid="manifest-json">
          {JSON.stringify(manifest, null, 2)}
        </pre>
      )}
      {view.kind === 'chat' && (
        <ol className="prompt-messages">
          {view.messages.map((m, i) => (
            <Message key={i} message={m} />
          ))}
        </ol>
      )}
      {view.kind === 'string' && (
        <div className="prompt-template string-template" data-testid="string-template">
          <TemplateText template={view.template} format={view.format} />
        </div>
      )}
      {view.kind === 'other' && !raw && <pre className="json">{JSON.stringify(manifest, null, 2)}</pre>}
      {view.kind === 'chat' && view.schema != null && (
        <div className="block">
          <h3>Output schema</h3>
          <pre className="json">{JSON.stringify(view.schema, null, 2)}</pre>
        </div>
      )}
      {view.model && (
        <div className="model-config" data-testid="model-config">
          <h3>
            Model <code>{view.model.name}</code>
          </h3>
          {view.model.params.length > 0 ? (
            <dl className="facts model-params">
              {view.model.params.map(([k, v]) => (
                <div key={k} data-testid="model-param">
                  <dt>{k}</dt>
                  <dd>
                    <code>{v}</code>
                  </dd>
                </div>
              ))}
            </dl>
          ) : (
            <p className="muted">no settings</p>
          )}
        </div>
      )}
    </div>
  );
}
