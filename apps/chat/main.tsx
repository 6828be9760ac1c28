// The chat page of the example chat app (examples/chat-app/): a React 19 page on the agent
// streaming protocol, through `@langchain/react` unchanged.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ChatApp } from './ChatApp.tsx';
import '../shared/theme.css';
import './chat.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ChatApp />
  </StrictMode>,
);
