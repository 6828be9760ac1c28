// What `npm start` (services/main.ts) checks before it installs or starts anything, so that a
// mistake costs a second rather than minutes of provisioning: the configuration of everything it
// runs (the platform's, the example agent's and chat app's, the local stack's), every problem at once; then
// every port it would listen on, its services' and those of the infrastructure it would start.
// Either failure ends the process with the cannot-start exit code.
import { infraConfigProblems } from '../infra/config.ts';
import { loadExampleAgentConfig } from '../examples/otel-a2a-agent/exampleAgentConfig.ts';
import type { ExampleAgentConfig } from '../examples/otel-a2a-agent/exampleAgentConfig.ts';
import { loadChatAppConfig, type ChatAppConfig } from '../examples/chat-app/chatAppConfig.ts';
import { exitCannotStart } from '../platform/cannotStart.ts';
import { configReads, loadConfig, type Config } from '../platform/config.ts';
import { portProblems, type PortNeed } from '../platform/ports.ts';

export type StartConfig = { config: Config; exampleAgent: ExampleAgentConfig; chatApp: ChatAppConfig };

/**
 * The validated configuration of every service `npm start` runs. `fromFiles` names the variables
 * whose value came from a file rather than the environment (the generated dev secrets), so that
 * a message about one says where to look.
 */
export function checkConfiguration(env: NodeJS.ProcessEnv, fromFiles: Readonly<Record<string, string>>): StartConfig {
  const { problems, attempt: load } = configReads();
  const config = load(() => loadConfig(env));
  const exampleAgent = load(() => loadExampleAgentConfig(env));
  const chatApp = load(() => loadChatAppConfig(env));
  // A variable both read (HOST, LOG_LEVEL, a URL the stack also parses) gets one message, the schema's.
  const named = new Set(problems.map(variableOf));
  const infraProblems = infraConfigProblems(env).filter((problem) => !named.has(variableOf(problem)));
  const unique = [...new Set(problems), ...infraProblems];
  if (config === undefined || exampleAgent === undefined || chatApp === undefined || unique.length > 0) {
    const explained = unique.map((problem) => {
      const file = fromFiles[variableOf(problem) ?? ''];
      return file === undefined ? problem : `${problem} (the value comes from ${file}, as the variable is unset)`;
    });
    const headline = 'Nothing was started: the configuration is invalid (docs/configuration.md lists every variable):';
    exitCannotStart(headline, explained);
  }
  return { config, exampleAgent, chatApp };
}

/** Every port the services and the infrastructure to be started need must be free; else each taken one is named. */
export async function checkPorts(servicePorts: readonly PortNeed[]): Promise<void> {
  const { stackPortsToStart } = await import('../infra/stack.ts');
  const problems = await portProblems([...servicePorts, ...(await stackPortsToStart())]);
  if (problems.length > 0) exitCannotStart('Nothing was started: these ports are not free:', problems);
}

/** The variable a problem message starts with ("BOOTSTRAP_API_KEY: …", "CLICKHOUSE_TCP_PORT=x is not …"). */
function variableOf(problem: string): string | undefined {
  return /^([A-Z][A-Z0-9_]*)[:=]/.exec(problem)?.[1];
}
