/** Copies a text to the clipboard and says so, to sighted and screen-reader users alike. */
import { useState } from "preact/hooks";

export function CopyButton({ text, label }: { readonly text: string; readonly label: string }) {
  const [said, setSaid] = useState("");
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid("Copied");
    } catch {
      // No clipboard (an insecure origin, a denied permission): select it for Ctrl+C instead.
      setSaid("Copy failed: select the text and press Ctrl+C");
    }
    setTimeout(() => setSaid(""), 4000);
  };
  return (
    <span class="copy">
      <button type="button" class="secondary" onClick={copy}>
        {label}
      </button>
      <span class="copy-said" role="status">
        {said}
      </span>
    </span>
  );
}
