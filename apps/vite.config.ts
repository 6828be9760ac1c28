// Builds the browser pages under apps/ with Vite, one HTML entry per page (a multi-page build:
// each page gets its own bundle, shared code is split out once). Add a page as
// apps/<page>/index.html and name it in PAGES, e.g. `explorer: 'explorer/index.html'`. Pages are
// React (the official plugin: JSX, fast refresh in development). Output goes to apps/dist/
// (git-ignored), for a service to serve as static files.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const appsDir = dirname(fileURLToPath(import.meta.url));

/** The pages, by name: the HTML entry of each, relative to apps/. */
const PAGES: Record<string, string> = {
  /** The example chat app's page (examples/chat-app/ serves it at /). */
  chat: 'chat/index.html',
};

export default defineConfig({
  root: appsDir,
  plugins: [react()],
  build: {
    outDir: resolve(appsDir, 'dist'),
    emptyOutDir: true,
    // The chat page is one ~730 kB chunk (~200 kB gzip): @langchain/react brings the LangGraph SDK
    // and @langchain/core's message classes, which the page cannot do without.
    chunkSizeWarningLimit: 800,
    rolldownOptions: { input: Object.fromEntries(Object.entries(PAGES).map(([name, entry]) => [name, resolve(appsDir, entry)])) },
  },
});
