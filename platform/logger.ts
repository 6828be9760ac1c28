import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs. Secrets never reach them: API keys and credentials are redacted. */
export function createLogger(name: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        '*.secret_access_key',
        '*.credentials',
        'apiKey',
      ],
      censor: '[redacted]',
    },
  });
}
