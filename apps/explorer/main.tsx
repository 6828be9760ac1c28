// The trace explorer: a React page served by the tracing API under /ui/ (services/tracing/
// explorerPage.ts), reading only the public HTTP API the clients use.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ExplorerApp } from './ExplorerApp.tsx';
import '../shared/theme.css';
import './explorer.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ExplorerApp />
  </StrictMode>,
);
