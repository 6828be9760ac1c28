// The agent itself: its card and its executor. Its one skill is trivial and offline on purpose:
// it answers each message with the message's text, echoed. Every turn is a task that completes
// at once, with the answer as an artifact and as the final status message (where A2A clients
// look for the reply text), so message/send and message/stream both work.
import { randomUUID } from 'node:crypto';
import { A2A_PROTOCOL_VERSION, Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION } from '@a2a-js/sdk/compat/v0_3';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { recordTurn } from './a2aRequestSpan.ts';

export const ECHO_AGENT_NAME = 'echo-agent';
/** The path of the JSON-RPC endpoint; the card is at /.well-known/agent-card.json. */
export const JSON_RPC_PATH = '/a2a';

export const echoReply = (text: string): string => `Echo: ${text}`;

export function echoAgentCard(baseUrl: string): AgentCard {
  const modes = ['text/plain'];
  const url = `${baseUrl.replace(/\/+$/, '')}${JSON_RPC_PATH}`;
  return {
    name: ECHO_AGENT_NAME,
    description:
      'Answers every message with its text, echoed. An example A2A agent that is not a LangGraph graph; it traces each turn as an OpenTelemetry span.',
    // One endpoint, both protocol versions: 0.3 is the wire of the spec's clients (message/send), 1.0 the current SDKs'.
    supportedInterfaces: [A2A_PROTOCOL_VERSION, A2A_LEGACY_PROTOCOL_VERSION].map((protocolVersion) => ({
      url,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion,
    })),
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: modes,
    defaultOutputModes: modes,
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Repeats the text of the message.',
        tags: ['echo', 'example'],
        examples: ['hello'],
        inputModes: modes,
        outputModes: modes,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

const textOf = (message: Message): string =>
  message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter(Boolean)
    .join('\n');

export class EchoAgentExecutor implements AgentExecutor {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request;
    const input = textOf(userMessage);
    const output = echoReply(input);
    recordTurn({ contextId, taskId, input, output });

    const now = new Date().toISOString();
    const reply: Message = {
      messageId: randomUUID(),
      contextId,
      taskId,
      role: Role.ROLE_AGENT,
      parts: [textPart(output)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    // The SDK wants a task (or message) event first, also when the message continues a task.
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now },
        artifacts: [],
        history: [userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: 'Echo',
          description: 'The echoed text',
          parts: [textPart(output)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: reply, timestamp: now },
        metadata: undefined,
      }),
    );
  }

  /** Nothing to stop: a turn completes as soon as it starts. */
  async cancelTask(): Promise<void> {}
}
