import { previewParts } from './template-form-logic';
import './script-text.css';

/** A rendered script (preview, test send, the agent's screen pop), the placeholders still without a value highlighted. */
export function ScriptText({ text, missing, testId }: { text: string; missing: string[]; testId?: string }) {
  return (
    <p className="tpl-script-text" data-testid={testId}>
      {previewParts(text, missing).map((part, index) =>
        part.missing ? (
          <mark key={index} className="tpl-script-text__missing">
            {part.text}
          </mark>
        ) : (
          <span key={index}>{part.text}</span>
        ),
      )}
    </p>
  );
}
