// A list of messages as a chat: bubbles for what the person and the agent said, the agent's
// reasoning before its answer, each tool call with its result, and (in the main conversation)
// a panel for each subagent a `task` call started, where that call was made.
import { Fragment, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { BaseMessage } from '@langchain/core/messages';
import type { SubagentDiscoverySnapshot } from '@langchain/react';
import {
  reasoningOf,
  TASK_TOOL,
  textOf,
  toolCallIdOf,
  toolCallsOf,
  toolFailed,
  type ToolCallLike,
} from './messageParts.ts';
import { SubagentPanel } from './SubagentPanel.tsx';

interface MessageListProps {
  messages: BaseMessage[];
  isLoading: boolean;
  /** The main conversation's subagents; absent inside a subagent's panel. */
  subagents?: SubagentDiscoverySnapshot[];
}

export function MessageList({ messages, isLoading, subagents }: MessageListProps) {
  const results = useMemo(() => {
    const byCallId = new Map<string, BaseMessage>();
    for (const message of messages) {
      const id = message.type === 'tool' ? toolCallIdOf(message) : undefined;
      if (id) byCallId.set(id, message);
    }
    return byCallId;
  }, [messages]);
  const subagentsById = useMemo(() => new Map((subagents ?? []).map((s) => [s.id, s])), [subagents]);
  const placed = new Set<string>();
  const items: { key: string; node: ReactNode }[] = [];

  messages.forEach((message, index) => {
    const key = message.id ?? `m-${index}`;
    if (message.type === 'tool') return; // shown with its call
    if (message.type !== 'ai') {
      items.push({ key, node: <Bubble role={message.type} text={textOf(message)} /> });
      return;
    }
    const text = textOf(message);
    const calls = toolCallsOf(message);
    const reasoning = reasoningOf(message);
    if (reasoning) {
      const active = isLoading && index === messages.length - 1 && !text.trim() && calls.length === 0;
      items.push({ key: `${key}-reasoning`, node: <Reasoning text={reasoning} active={active} /> });
    }
    if (text.trim()) items.push({ key, node: <Bubble role="ai" text={text} /> });
    calls.forEach((call, callIndex) => {
      const callKey = call.id ?? `${key}-call-${callIndex}`;
      const result = call.id ? results.get(call.id) : undefined;
      if (subagents && call.name === TASK_TOOL) {
        if (call.id) placed.add(call.id);
        const snapshot = call.id ? subagentsById.get(call.id) : undefined;
        items.push({ key: callKey, node: <SubagentPanel call={call} snapshot={snapshot} result={result} /> });
        return;
      }
      items.push({ key: callKey, node: <ToolCallCard call={call} result={result} running={isLoading} /> });
    });
  });
  // A subagent whose `task` call is not (yet) among the messages still gets its panel.
  for (const snapshot of subagents ?? [])
    if (!placed.has(snapshot.id))
      items.push({
        key: `subagent-${snapshot.id}`,
        node: <SubagentPanel call={undefined} snapshot={snapshot} result={undefined} />,
      });

  return (
    <>
      {items.map((item) => (
        <Fragment key={item.key}>{item.node}</Fragment>
      ))}
    </>
  );
}

const ROLE_LABEL: Record<string, string> = { human: 'You', ai: 'Assistant', system: 'System' };

function Bubble({ role, text }: { role: string; text: string }) {
  return (
    <div className={`message ${role}`} data-testid="message" data-role={role}>
      <span className="message-role">{ROLE_LABEL[role] ?? role}</span>
      <div className="message-text" data-testid="message-text">
        {text}
      </div>
    </div>
  );
}

/** Open while the model is thinking, folded once it answers; the person can open it again. */
function Reasoning({ text, active }: { text: string; active: boolean }) {
  const [open, setOpen] = useState(active);
  useEffect(() => setOpen(active), [active]);
  return (
    <div className={`reasoning ${open ? 'open' : ''}`} data-testid="reasoning" data-active={active}>
      <button
        type="button"
        className="reasoning-toggle"
        data-testid="reasoning-toggle"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="caret" aria-hidden="true">
          ▸
        </span>
        {active ? 'Thinking…' : 'Thought process'}
      </button>
      {open ? (
        <p className="reasoning-text" data-testid="reasoning-text">
          {text}
        </p>
      ) : null}
    </div>
  );
}

function formatJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function oneLine(args: Record<string, unknown> | undefined): string {
  const values = Object.values(args ?? {});
  return shorten(values.length === 1 ? String(values[0]) : JSON.stringify(args ?? {}), 80);
}

export function ToolCallCard({
  call,
  result,
  running,
}: {
  call: ToolCallLike;
  result: BaseMessage | undefined;
  running: boolean;
}) {
  const [open, setOpen] = useState(false);
  const status = result ? (toolFailed(result) ? 'error' : 'done') : running ? 'running' : 'done';
  const resultText = result ? textOf(result) : '';
  return (
    <div
      className={`tool-call status-${status}`}
      data-testid="tool-call"
      data-tool-name={call.name}
      data-status={status}
    >
      <button type="button" className="tool-call-head" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span className="tool-icon" aria-hidden="true">
          ⚙
        </span>
        <span className="tool-name" data-testid="tool-name">
          {call.name}
        </span>
        <code className="tool-args-inline">{oneLine(call.args)}</code>
        <span className={`badge ${status}`}>
          {status === 'running' ? 'Running' : status === 'error' ? 'Error' : 'Done'}
        </span>
      </button>
      {result ? (
        <div className="tool-result-inline" data-testid="tool-result">
          <span className="arrow" aria-hidden="true">
            →
          </span>
          {open ? resultText : shorten(resultText, 160)}
        </div>
      ) : null}
      {open ? (
        <div className="tool-call-body">
          <div className="tool-section">
            <span>Arguments</span>
            <pre data-testid="tool-args">{formatJson(call.args ?? {})}</pre>
          </div>
        </div>
      ) : null}
    </div>
  );
}
