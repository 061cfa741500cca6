import { forwardRef, useImperativeHandle, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { INPUT_MAX_PX, INPUT_MIN_PX, TEXT } from './texts';

export interface ChatInputHandle {
  focus(): void;
}

interface Props {
  hasModel: boolean;
  generating: boolean;
  /** Returns true when the message was sent (then the field empties). */
  onSend: (text: string) => boolean;
  onStop: () => void;
}

function SendIcon() {
  return (
    <svg
      width="20"
      height="20"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d="M5 12h13M12 5l7 7-7 7" />
    </svg>
  );
}

function StopIcon() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <rect x="6" y="6" width="12" height="12" rx="2" fill="currentColor" />
    </svg>
  );
}

/**
 * Multi-line, grows from 48 to 120 px, disabled without a model or while a reply streams;
 * Enter sends, Shift+Enter adds a newline. The send button turns into a red 'Stop generation' button.
 */
export const ChatInput = forwardRef<ChatInputHandle, Props>(function ChatInput({ hasModel, generating, onSend, onStop }, ref) {
  const [text, setText] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);
  useImperativeHandle(ref, () => ({ focus: () => area.current?.focus() }), []);

  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(INPUT_MAX_PX, Math.max(INPUT_MIN_PX, el.scrollHeight))}px`;
    el.style.overflowY = el.scrollHeight > INPUT_MAX_PX ? 'auto' : 'hidden';
  }, [text]);

  // Back in the field once a reply ends.
  const wasGenerating = useRef(generating);
  useLayoutEffect(() => {
    if (wasGenerating.current && !generating) area.current?.focus();
    wasGenerating.current = generating;
  }, [generating]);

  const disabled = !hasModel || generating;
  const submit = () => {
    if (disabled || !text.trim()) return;
    if (onSend(text)) setText('');
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <form
      className="assistant-input"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label htmlFor="assistant-message" className="visually-hidden">
        Message
      </label>
      <textarea
        id="assistant-message"
        ref={area}
        rows={1}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        placeholder={hasModel ? TEXT.placeholder : TEXT.placeholderNoModel}
        disabled={disabled}
        style={{ minHeight: INPUT_MIN_PX, maxHeight: INPUT_MAX_PX }}
      />
      {generating ? (
        <button type="button" className="assistant-send is-stop" aria-label={TEXT.stop} title={TEXT.stop} onClick={onStop}>
          <StopIcon />
        </button>
      ) : (
        <button type="submit" className="assistant-send" aria-label="Send message" title="Send message" disabled={!hasModel || !text.trim()}>
          <SendIcon />
        </button>
      )}
    </form>
  );
});
