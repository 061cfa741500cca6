import { useEffect, useRef, useState } from 'react';
import { copyText } from './clipboard';

interface Props {
  text: string;
  label: string;
  copiedLabel: string;
  failedLabel: string;
  className?: string;
  statusClassName?: string;
  disabled?: boolean;
}

/** A button that copies `text`, then says so (or that it failed) for two seconds in a live region beside it. */
export function CopyButton({
  text,
  label,
  copiedLabel,
  failedLabel,
  className = 'btn btn-secondary',
  statusClassName = 'copy-status',
  disabled,
}: Props) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const copy = async () => {
    const ok = await copyText(text);
    setCopied(ok ? 'yes' : 'no');
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(null), 2_000);
  };
  return (
    <>
      <button type="button" className={className} onClick={() => void copy()} disabled={disabled}>
        {label}
      </button>
      <span role="status" className={statusClassName}>
        {copied === 'yes' ? copiedLabel : copied === 'no' ? failedLabel : ''}
      </span>
    </>
  );
}
