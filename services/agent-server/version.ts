// Reported by GET /info. A2A clients of the LangGraph server expect 0.4.21 or later (the first
// version with the A2A endpoint), so this stays a semver at or above that.
export const AGENT_SERVER_VERSION = '0.5.0';
