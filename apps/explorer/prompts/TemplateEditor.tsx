// Editing a prompt's templates, for a new prompt's first commit and for a commit on top of the
// latest: a chat prompt's messages (role, template; a placeholder's variable; added, removed,
// moved), or a string prompt's one template; the variables the templates name, as they are typed.
// A message in parts (text and images, as Python pushes them) is shown, not edited here.
import {
  messagesVariables,
  type MessageDraft,
  emptyDraft,
  ROLES,
  type TemplateFormat,
  templateVariables,
} from './manifest.ts';

export function TemplateEditor({
  kind,
  drafts,
  format,
  onChange,
}: {
  kind: 'chat' | 'string';
  drafts: MessageDraft[];
  format: TemplateFormat;
  onChange: (drafts: MessageDraft[]) => void;
}) {
  const change = (i: number, patch: Partial<MessageDraft>) =>
    onChange(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const move = (i: number, by: number) => {
    const next = [...drafts];
    const [d] = next.splice(i, 1);
    next.splice(i + by, 0, d!);
    onChange(next);
  };
  const variables =
    kind === 'string'
      ? templateVariables(drafts[0]?.template ?? '', format)
      : messagesVariables(drafts.map((d) => ({ ...d, format })));
  const hint = format === 'f-string' ? '{variable}' : '{{variable}}';

  return (
    <div className="template-editor" data-testid="template-editor">
      {kind === 'string' ? (
        <textarea
          data-testid="string-template-input"
          aria-label="Template"
          rows={8}
          value={drafts[0]?.template ?? ''}
          placeholder={`The prompt, with ${hint} where a value goes`}
          onChange={(e) => onChange([{ ...(drafts[0] ?? emptyDraft('human')), template: e.target.value }])}
        />
      ) : (
        <>
          {drafts.length === 0 && <p className="muted">No messages: add one.</p>}
          {drafts.map((d, i) => (
            <div className="message-draft" key={i} data-testid="message-draft">
              <div className="message-draft-head">
                <select
                  data-testid="message-role"
                  aria-label={`Role of message ${i + 1}`}
                  value={d.role}
                  disabled={d.multipart}
                  onChange={(e) => change(i, { role: e.target.value })}
                >
                  {!(ROLES as readonly string[]).includes(d.role) && <option value={d.role}>{d.role}</option>}
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
                {d.multipart && <span className="muted">in parts (text and images): edit it with the client</span>}
                <span className="message-draft-actions">
                  <button
                    type="button"
                    className="link-button"
                    aria-label={`Move message ${i + 1} up`}
                    disabled={i === 0}
                    onClick={() => move(i, -1)}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="link-button"
                    aria-label={`Move message ${i + 1} down`}
                    disabled={i === drafts.length - 1}
                    onClick={() => move(i, 1)}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    className="link-button danger-link"
                    data-testid="message-remove"
                    aria-label={`Remove message ${i + 1}`}
                    onClick={() => onChange(drafts.filter((_, j) => j !== i))}
                  >
                    Remove
                  </button>
                </span>
              </div>
              {d.role === 'placeholder' ? (
                <input
                  data-testid="message-template-input"
                  aria-label={`Variable of message ${i + 1}`}
                  value={d.template}
                  placeholder="the variable holding the messages, e.g. history"
                  onChange={(e) => change(i, { template: e.target.value })}
                />
              ) : (
                <textarea
                  data-testid="message-template-input"
                  aria-label={`Template of message ${i + 1}`}
                  rows={Math.min(12, Math.max(3, d.template.split('\n').length + 1))}
                  value={d.template}
                  readOnly={d.multipart}
                  placeholder={`What the ${d.role} says, with ${hint} where a value goes`}
                  onChange={(e) => change(i, { template: e.target.value })}
                />
              )}
            </div>
          ))}
          <div className="message-add">
            {(['system', 'human', 'ai', 'placeholder'] as const).map((role) => (
              <button
                key={role}
                type="button"
                className="ghost small"
                data-testid={`message-add-${role}`}
                onClick={() => onChange([...drafts, emptyDraft(role)])}
              >
                + {role}
              </button>
            ))}
          </div>
        </>
      )}
      <p className="muted editor-variables" data-testid="editor-variables">
        {variables.length === 0 ? (
          `No variables: write ${hint} where a value goes.`
        ) : (
          <>
            Variables:{' '}
            {variables.map((v) => (
              <code key={v} className="variable-chip">
                {v}
              </code>
            ))}
          </>
        )}
      </p>
    </div>
  );
}

/** A new prompt's kind (chat or string) and how its templates write variables. */
export function KindPicker({
  kind,
  format,
  onKind,
  onFormat,
}: {
  kind: 'chat' | 'string';
  format: TemplateFormat;
  onKind: (kind: 'chat' | 'string') => void;
  onFormat: (format: TemplateFormat) => void;
}) {
  return (
    <div className="commit-kind">
      <label className="field-inline">
        <input
          type="radio"
          name="kind"
          data-testid="kind-chat"
          checked={kind === 'chat'}
          onChange={() => onKind('chat')}
        />
        Chat prompt (messages)
      </label>
      <label className="field-inline">
        <input
          type="radio"
          name="kind"
          data-testid="kind-string"
          checked={kind === 'string'}
          onChange={() => onKind('string')}
        />
        String prompt (one template)
      </label>
      <label className="field-inline">
        Variables as
        <select data-testid="format-select" value={format} onChange={(e) => onFormat(e.target.value as TemplateFormat)}>
          <option value="f-string">{'{name}'} (f-string)</option>
          <option value="mustache">{'{{name}}'} (mustache)</option>
        </select>
      </label>
    </div>
  );
}
