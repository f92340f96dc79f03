/** What the relay answered a person's action, in its words: a status when done, an alert when refused. */
export interface RelayAnswerText {
  ok: boolean;
  text: string;
}

export function RelayAnswer({ answer }: { answer: RelayAnswerText | undefined }) {
  if (!answer) return null;
  return (
    <p className={answer.ok ? 'ok-text' : 'error-text'} role={answer.ok ? 'status' : 'alert'}>
      {answer.text}
    </p>
  );
}
