// Runs the example chat app: `npm run chat` (or `npm start`, with everything else), then open
// http://127.0.0.1:3000 and sign in with an API key of the platform (`npm start` prints one).
// CHAT_APP_AUTH, CHAT_APP_PORT, CHAT_CHECKPOINTER, OPENAI_API_KEY and the LANGSMITH_* variables
// are in chatAppConfig.ts and docs/configuration.md.
import { configOrExit } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { listenOrExit } from '../../platform/ports.ts';
import { chatAppPort, loadChatAppConfig } from './chatAppConfig.ts';
import { buildChatApp } from './chatApp.ts';

const who = 'the example chat app';
const config = configOrExit(who, loadChatAppConfig);
const logger = createLogger('chat-app', config.LOG_LEVEL);
// LangChain's own tracer, which would trace every turn with the LANGSMITH_* variables' one key,
// stays off: each turn is traced with its caller's credentials (runTracing.ts).
process.env.LANGSMITH_TRACING = 'false';

const chat = await buildChatApp(config, logger).catch((err: Error) => {
  logger.error({ err }, 'could not start');
  process.stderr.write(`${who} cannot start: ${err.message}\n`);
  return process.exit(1);
});
const address = await listenOrExit(who, chatAppPort(config), () =>
  chat.app.listen({ host: config.HOST, port: config.CHAT_APP_PORT }),
);
logger.info(
  {
    url: address,
    auth: config.CHAT_APP_AUTH,
    checkpointer: config.CHAT_CHECKPOINTER,
    model: config.OPENAI_API_KEY ? config.CHAT_OPENAI_MODEL : 'scripted',
    tracing:
      config.LANGSMITH_TRACING === 'true'
        ? { endpoint: config.LANGSMITH_ENDPOINT, project: config.LANGSMITH_PROJECT }
        : false,
  },
  'chat app listening',
);

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    chat
      .close()
      .catch((err: unknown) => logger.error({ err }, 'could not close cleanly'))
      .finally(() => process.exit(0));
  });
