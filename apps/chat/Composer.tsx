// Where the person writes: Enter sends, Shift+Enter breaks the line; closed while a run is going.
import { useRef, useState } from 'react';

export function Composer({ disabled, onSend }: { disabled: boolean; onSend(text: string): void }) {
  const [text, setText] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);

  const submit = () => {
    const message = text.trim();
    if (!message || disabled) return;
    onSend(message);
    setText('');
    if (area.current) area.current.style.height = 'auto';
  };

  return (
    <form
      className="composer"
      data-testid="composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <textarea
        ref={area}
        data-testid="composer-input"
        aria-label="Message"
        rows={1}
        placeholder="Ask for research, a calculation, or both…"
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          event.target.style.height = 'auto';
          event.target.style.height = `${Math.min(event.target.scrollHeight, 200)}px`;
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            submit();
          }
        }}
      />
      <button type="submit" data-testid="composer-send" disabled={disabled || text.trim() === ''}>
        Send
      </button>
    </form>
  );
}
