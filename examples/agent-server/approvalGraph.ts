// Example assistant "approval": a human in the loop. For each message it proposes an action, then
// stops (LangGraph's `interrupt()`) until a person answers; the run that resumes the thread
// (`command: {resume: …}`, the SDKs' `Command({resume})`) carries the answer, and the graph acts or
// cancels. While it waits, the thread is `interrupted` and its state's `__interrupt__` (or the
// thread's `interrupts`) holds the question. Deterministic: no model.
import { Annotation, MessagesAnnotation, StateGraph, interrupt } from '@langchain/langgraph';

const ApprovalState = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** What the graph would do, from the last message. */
  action: Annotation<string>(),
  decision: Annotation<'approved' | 'rejected'>(),
});
type State = typeof ApprovalState.State;

/** What a person may answer: "approve"/"yes" (any case), `true`, or `{approved: true}`; anything else rejects. */
export function isApproval(answer: unknown): boolean {
  if (answer === true) return true;
  if (typeof answer === 'string') return /^\s*(approve[d]?|yes|y|ok)\s*$/i.test(answer);
  return typeof answer === 'object' && answer !== null && (answer as { approved?: unknown }).approved === true;
}

function propose(state: State) {
  const last = state.messages.at(-1);
  const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  return { action: `send "${text}"` };
}

function review(state: State) {
  // The first time through, this stops the run; when a run resumes the thread, it returns the answer.
  const answer = interrupt({
    question: `Approve: ${state.action}?`,
    action: state.action,
    options: ['approve', 'reject'],
  });
  return { decision: isApproval(answer) ? ('approved' as const) : ('rejected' as const) };
}

function act(state: State) {
  const content =
    state.decision === 'approved' ? `Done: ${state.action}.` : `Cancelled: ${state.action} was not approved.`;
  return { messages: [{ role: 'ai', content }] };
}

export const graph = new StateGraph(ApprovalState)
  .addNode('propose', propose)
  .addNode('review', review)
  .addNode('act', act)
  .addEdge('__start__', 'propose')
  .addEdge('propose', 'review')
  .addEdge('review', 'act')
  .addEdge('act', '__end__')
  .compile();
