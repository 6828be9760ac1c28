// Reported by GET /info. Clients compare it (Python sends feedback through multipart from
// 0.8.10; both warn before v2 resources below 0.16.0 and before sessions.resolve below 0.18.0,
// which this service serves), so it stays a semver at or above that.
export const SERVICE_VERSION = '0.18.0';
