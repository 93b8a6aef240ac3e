import { useState } from 'preact/hooks';

/** An ID in a fixed font with a button that copies it (clipboard where allowed, a selection otherwise). */
export function CopyId({ id, href }: { id: string; href?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(id);
      setCopied(true);
      setTimeout(() => setCopied(false), 1_500);
    } catch {
      // Without clipboard access (plain HTTP on another host), the ID is selected for the user to copy.
      const code = document.getElementById(`id-${id}`);
      if (code) getSelection()?.selectAllChildren(code);
    }
  };
  return (
    <span class="copy-id">
      {href ? (
        <a href={href}>
          <code id={`id-${id}`}>{id}</code>
        </a>
      ) : (
        <code id={`id-${id}`}>{id}</code>
      )}
      <button type="button" class="icon" title="Copy ID" aria-label={`Copy ${id}`} onClick={copy}>
        {copied ? 'copied' : 'copy'}
      </button>
    </span>
  );
}
