// The chat app's settings: API keys unless told otherwise, and the open mode only where nobody
// else can reach the app.
import { describe, expect, it } from 'vitest';
import { isLoopback, loadChatAppConfig } from '../../../examples/chat-app/chatAppConfig.ts';
import { ConfigError } from '../../../platform/config.ts';

const problemsOf = (env: NodeJS.ProcessEnv): readonly string[] => {
  try {
    loadChatAppConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

describe('chat app configuration', () => {
  it('asks for API keys by default, and reads where they are from the platform’s settings', () => {
    const config = loadChatAppConfig({ KAFKA_TOPIC_PREFIX: 'x.', KAFKA_BROKERS: 'k:9092' });
    expect(config.CHAT_APP_AUTH).toBe('api_key');
    expect(config.platform).toMatchObject({ KAFKA_TOPIC_PREFIX: 'x.', KAFKA_BROKERS: 'k:9092' });
  });

  it('refuses CHAT_APP_AUTH=none on an address others can reach, saying why', () => {
    for (const HOST of ['0.0.0.0', '::', '192.168.1.20', 'chat.example.com'])
      expect(problemsOf({ CHAT_APP_AUTH: 'none', HOST }), HOST).toEqual([
        expect.stringMatching(/^CHAT_APP_AUTH: "none" lets anyone .* loopback HOST/),
      ]);
    for (const HOST of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost'])
      expect(problemsOf({ CHAT_APP_AUTH: 'none', HOST }), HOST).toEqual([]);
    expect(problemsOf({ HOST: '0.0.0.0' })).toEqual([]);
  });

  it('reports the app’s problems and the platform’s together, once each', () => {
    expect(problemsOf({ CHAT_APP_AUTH: 'maybe', KAFKA_PARTITIONS: '0', LOG_LEVEL: 'loud' })).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^CHAT_APP_AUTH: /),
        expect.stringMatching(/^KAFKA_PARTITIONS: /),
        expect.stringMatching(/^LOG_LEVEL: /),
      ]),
    );
    expect(problemsOf({ LOG_LEVEL: 'loud' }).filter((p) => p.startsWith('LOG_LEVEL'))).toHaveLength(1);
  });

  it('tells loopback addresses from others', () => {
    expect(['127.0.0.1', '::1', 'localhost', 'LOCALHOST'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1', 'example.com', ''].some(isLoopback)).toBe(false);
  });
});
