/** A secret the server shows only once: readable, copyable, and gone when dismissed. */
import { CopyButton } from "./copy-button.js";

export function SecretOnce({
  title,
  secret,
  onDismiss,
}: {
  readonly title: string;
  readonly secret: string;
  readonly onDismiss: () => void;
}) {
  return (
    <section class="secret" aria-labelledby="secret-title" role="alert">
      <h3 id="secret-title">{title}</h3>
      <p>Copy it now: it is shown only this once. The server keeps only its hash.</p>
      <p>
        <code class="secret-value" data-testid="secret">
          {secret}
        </code>
      </p>
      <CopyButton text={secret} label="Copy secret" />{" "}
      <button type="button" class="secondary" onClick={onDismiss}>
        I have copied it, hide it
      </button>
    </section>
  );
}
