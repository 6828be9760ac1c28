// Builds the browser pages under apps/ with Vite, one HTML entry per page (a multi-page build:
// each page gets its own bundle, shared code is split out once). Add a page as
// apps/<page>/index.html and name it in PAGES, e.g. `explorer: 'explorer/index.html'`. Pages are
// React (the official plugin: JSX, fast refresh in development). Output goes to apps/dist/
// (git-ignored), for a service to serve as static files; a page served under a prefix names it in
// ASSET_BASE, so its HTML points at its assets there.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const appsDir = dirname(fileURLToPath(import.meta.url));

/** The pages, by name: the HTML entry of each, relative to apps/. */
const PAGES: Record<string, string> = {
  /** The example chat app's page (examples/chat-app/ serves it at /). */
  chat: 'chat/index.html',
  /** The trace explorer (services/tracing/explorerPage.ts serves it under /ui/). */
  explorer: 'explorer/index.html',
};

/**
 * Where each page's HTML finds the shared assets/ directory: the chat page is served at / (its
 * assets at /assets/), the explorer under /ui/ (its assets at /ui/assets/, the same files). The
 * chunks import one another by relative URL, so only the HTML's references differ.
 */
const ASSET_BASE: Record<string, string> = { explorer: '/ui/' };
const assetBaseOf = (hostId: string): string => {
  const page = Object.keys(PAGES).find((name) => resolve(appsDir, PAGES[name]!) === resolve(appsDir, hostId));
  return (page && ASSET_BASE[page]) ?? '/';
};

export default defineConfig({
  root: appsDir,
  plugins: [react()],
  experimental: {
    renderBuiltUrl: (filename, { hostId, hostType }) =>
      hostType === 'html' ? assetBaseOf(hostId) + filename : { relative: true },
  },
  build: {
    outDir: resolve(appsDir, 'dist'),
    emptyOutDir: true,
    // The chat page's chunk is ~510 kB (~135 kB gzip; React is a shared chunk of its own):
    // @langchain/react brings the LangGraph SDK and @langchain/core's message classes.
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      input: Object.fromEntries(Object.entries(PAGES).map(([name, entry]) => [name, resolve(appsDir, entry)])),
    },
  },
});
