// The base URL a client reached a service at, for links the service hands out (A2A agent cards,
// run URLs): a configured one when set, else what a proxy in front reports, else the request's.
import type { IncomingHttpHeaders } from 'node:http';

const first = (value: string | string[] | undefined): string | undefined => {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',')[0]?.trim() || undefined;
};

/**
 * The server's public base URL: `configured` when set, else what the client used, as a proxy
 * in front reports it (`X-Forwarded-Proto`, `X-Forwarded-Host`) or as the request came.
 */
export function publicBaseUrl(
  request: { headers: IncomingHttpHeaders; protocol: string },
  configured?: string,
): string {
  if (configured) return configured.replace(/\/+$/, '');
  const forwardedProto = first(request.headers['x-forwarded-proto'])?.toLowerCase();
  const proto = forwardedProto === 'http' || forwardedProto === 'https' ? forwardedProto : request.protocol;
  const forwardedHost = first(request.headers['x-forwarded-host']);
  const host =
    forwardedHost && /^[\w.-]+(:\d+)?$|^\[[\da-fA-F:.]+\](:\d+)?$/.test(forwardedHost)
      ? forwardedHost
      : (request.headers.host ?? 'localhost');
  return `${proto}://${host}`;
}
