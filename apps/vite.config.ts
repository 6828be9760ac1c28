// Builds the browser pages under apps/ with Vite, one HTML entry per page (a multi-page build:
// each page gets its own bundle, shared code is split out once). No page exists yet: add each
// as apps/<page>/index.html and name it in PAGES, e.g. `explorer: 'explorer/index.html'`.
// Output goes to apps/dist/ (git-ignored), for a service to serve as static files.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const appsDir = dirname(fileURLToPath(import.meta.url));

/** The pages, by name: the HTML entry of each, relative to apps/. */
const PAGES: Record<string, string> = {};

export default defineConfig({
  root: appsDir,
  build: {
    outDir: resolve(appsDir, 'dist'),
    emptyOutDir: true,
    rolldownOptions: { input: Object.fromEntries(Object.entries(PAGES).map(([name, entry]) => [name, resolve(appsDir, entry)])) },
  },
});
