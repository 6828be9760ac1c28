// Three pulsing dots: the agent is working and has nothing to show yet.
export function TypingDots() {
  return (
    <div className="typing" data-testid="typing" aria-label="The agent is working">
      <span />
      <span />
      <span />
    </div>
  );
}
