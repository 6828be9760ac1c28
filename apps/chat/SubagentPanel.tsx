// One subagent's own stream: the task it was given, its messages and tool calls as they arrive
// (`useMessages` scoped to its namespace opens a subscription of its own), and its result.
import { useMemo, useState } from 'react';
import type { BaseMessage } from '@langchain/core/messages';
import { useMessages, useStreamContext, type SubagentDiscoverySnapshot } from '@langchain/react';
import { MessageList } from './MessageList.tsx';
import { textOf, toolFailed, type ToolCallLike } from './messageParts.ts';
import { TypingDots } from './TypingDots.tsx';

interface SubagentPanelProps {
  /** The coordinator's `task` call, when it is among the messages. */
  call: ToolCallLike | undefined;
  /** What the stream client discovered of the subagent, once it has. */
  snapshot: SubagentDiscoverySnapshot | undefined;
  result: BaseMessage | undefined;
}

export function SubagentPanel({ call, snapshot, result }: SubagentPanelProps) {
  const [open, setOpen] = useState(true);
  const name = snapshot?.name ?? String(call?.args?.subagent_type ?? 'subagent');
  const task = snapshot?.taskInput ?? (typeof call?.args?.description === 'string' ? call.args.description : undefined);
  const status = snapshot?.status ?? (result ? (toolFailed(result) ? 'error' : 'complete') : 'running');
  return (
    <section
      className={`subagent status-${status}`}
      data-testid="subagent-panel"
      data-subagent-name={name}
      data-status={status}
    >
      <button type="button" className="subagent-head" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span className="caret" aria-hidden="true">
          ▸
        </span>
        <span className="subagent-name">{name}</span>
        <span className={`badge ${status === 'complete' ? 'done' : status}`}>
          {status === 'running' ? 'Working' : status === 'error' ? 'Failed' : 'Done'}
        </span>
      </button>
      {open ? (
        <div className="subagent-body">
          {task ? (
            <p className="subagent-task">
              <span>Task</span>
              {task}
            </p>
          ) : null}
          {snapshot ? (
            <SubagentMessages snapshot={snapshot} task={task} />
          ) : result ? (
            // Known from the thread's state only (its run's events are gone): what it answered.
            <div className="message ai" data-testid="message" data-role="ai">
              <span className="message-role">Result</span>
              <div className="message-text" data-testid="message-text">
                {textOf(result)}
              </div>
            </div>
          ) : (
            <TypingDots />
          )}
          {snapshot?.error ? <p className="subagent-error">{snapshot.error}</p> : null}
        </div>
      ) : null}
    </section>
  );
}

function SubagentMessages({ snapshot, task }: { snapshot: SubagentDiscoverySnapshot; task: string | undefined }) {
  const stream = useStreamContext();
  const messages = useMessages(stream, snapshot);
  // The task arrives as the subagent's first human message; it is shown above already.
  const shown = useMemo(
    () => messages.filter((m) => m != null && !(m.type === 'human' && textOf(m).trim() === task?.trim())),
    [messages, task],
  );
  return (
    <div className="subagent-messages" data-testid="subagent-messages">
      <MessageList messages={shown} isLoading={snapshot.status === 'running'} />
      {snapshot.status === 'running' && shown.length === 0 ? <TypingDots /> : null}
    </div>
  );
}
