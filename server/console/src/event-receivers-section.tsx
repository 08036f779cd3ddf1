/**
 * An organization's RFC 9967 event receivers (issue 20): each one's address, method, form, events,
 * delivery counts, attempts, next attempt, last delivery and last failure in plain words; a small
 * form to add one, a button to remove one, and one to read their state again; and the key that signs
 * the SETs, with its JWKS URL and a rotation (`EventSigningKeyPanel`). A host without security event
 * delivery answers 404 "not configured": the section then says so instead, and asks for no key.
 */
import { useState } from "preact/hooks";
import { ApiError, seg } from "./api-client.js";
import { useApi } from "./context.js";
import { CopyButton } from "./copy-button.js";
import { ErrorNotice } from "./error-notice.js";
import { EventSigningKeyPanel } from "./event-signing-key-panel.js";
import type { EventReceiver, EventReceiverList } from "./analytics-api-types.js";
import { EVENT_KINDS, type EventKind, eventKindOf, eventUriOf, failureInWords, stateInWords } from "./event-receiver.js";
import { when } from "./organization.js";
import { toError, useAsync } from "./use-async.js";

/** Whether `error` is the host saying it delivers no security events (rather than a missing organization). */
function notConfigured(error: Error | undefined): boolean {
  return error instanceof ApiError && error.status === 404 && /not configured/i.test(error.detail);
}

export function EventReceiversSection({ orgId }: { readonly orgId: string }) {
  const api = useApi();
  const path = `/organizations/${seg(orgId)}/event-receivers`;
  const receivers = useAsync(() => api.get<EventReceiverList>(path), [api, path]);
  const [url, setUrl] = useState("");
  const [delivery, setDelivery] = useState<EventReceiver["delivery"]>("push");
  const [form, setForm] = useState<EventReceiver["form"]>("notice");
  const [kinds, setKinds] = useState<readonly EventKind[]>([]);
  const [authorization, setAuthorization] = useState("");
  const [label, setLabel] = useState("");
  const [fromBeginning, setFromBeginning] = useState(false);
  const [error, setError] = useState<Error>();
  const [said, setSaid] = useState("");
  const [added, setAdded] = useState<EventReceiver>();

  if (notConfigured(receivers.error)) {
    return (
      <section aria-labelledby="receivers-title" data-testid="event-receivers">
        <h2 id="receivers-title">Event receivers</h2>
        <p class="hint" data-testid="event-receivers-not-configured">
          This service does not deliver security events (RFC 9967), so no receivers can be registered here.
        </p>
      </section>
    );
  }

  const toggle = (kind: EventKind, on: boolean): void => {
    setKinds((current) => (on ? [...current, kind] : current.filter((one) => one !== kind)));
  };
  const add = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(undefined);
    setSaid("");
    try {
      const receiver = await api.post<EventReceiver>(path, {
        url: url.trim(),
        delivery,
        form,
        events: EVENT_KINDS.filter((kind) => kinds.includes(kind)).map((kind) => eventUriOf(kind, form)),
        ...(authorization === "" ? {} : { authorization }),
        ...(label.trim() === "" ? {} : { label: label.trim() }),
        start: fromBeginning ? "beginning" : "now",
      });
      setAdded(receiver);
      setSaid(`Receiver ${receiver.label ?? receiver.url} added.`);
      setUrl("");
      setAuthorization("");
      setLabel("");
      setKinds([]);
      setFromBeginning(false);
      receivers.reload();
    } catch (caught) {
      setError(toError(caught));
    }
  };
  const remove = async (receiver: EventReceiver): Promise<void> => {
    const name = receiver.label ?? receiver.url;
    if (!confirm(`Remove the receiver ${name}? It gets no more events.`)) return;
    setError(undefined);
    setSaid("");
    try {
      await api.delete(`${path}/${seg(receiver.id)}`);
      setSaid(`Receiver ${name} removed.`);
      if (added?.id === receiver.id) setAdded(undefined);
      receivers.reload();
    } catch (caught) {
      setError(toError(caught));
    }
  };

  return (
    <section aria-labelledby="receivers-title" data-testid="event-receivers">
      <h2 id="receivers-title">Event receivers</h2>
      <p class="hint">
        Services told of every change as signed Security Event Tokens (RFC 9967): pushed to their URL, or fetched by them from a poll URL.
      </p>
      {/* Once the receivers answered: a host that delivers no events is not asked for a key (a 404 more). */}
      {receivers.value ? <EventSigningKeyPanel orgId={orgId} /> : null}
      <h3>Receivers</h3>
      <form onSubmit={add} class="inline-form" data-testid="event-receiver-form">
        <div class="field">
          <label for="receiver-url">URL</label>
          <input
            id="receiver-url"
            type="url"
            required
            value={url}
            placeholder="https://siem.example.com/events"
            onInput={(event) => setUrl(event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="receiver-delivery">Method</label>
          <select
            id="receiver-delivery"
            value={delivery}
            onChange={(event) => setDelivery(event.currentTarget.value as EventReceiver["delivery"])}
          >
            <option value="push">push (we send)</option>
            <option value="poll">poll (it fetches)</option>
          </select>
        </div>
        <div class="field">
          <label for="receiver-form">Form</label>
          <select id="receiver-form" value={form} onChange={(event) => setForm(event.currentTarget.value as EventReceiver["form"])}>
            <option value="notice">notice (what changed, no values)</option>
            <option value="full">full (the resource)</option>
          </select>
        </div>
        <fieldset class="field">
          <legend>Events (none ticked: all)</legend>
          <div class="kinds">
            {EVENT_KINDS.map((kind) => (
              <label key={kind} class="check">
                <input type="checkbox" checked={kinds.includes(kind)} onChange={(event) => toggle(kind, event.currentTarget.checked)} />
                {kind}
              </label>
            ))}
          </div>
        </fieldset>
        <div class="field">
          <label for="receiver-authorization">Authorization header value</label>
          <input
            id="receiver-authorization"
            type="password"
            autocomplete="off"
            value={authorization}
            required={delivery === "poll"}
            aria-describedby="receiver-authorization-help"
            onInput={(event) => setAuthorization(event.currentTarget.value)}
          />
          <span id="receiver-authorization-help" class="hint">
            {delivery === "poll" ? "Required: what the receiver sends when it polls." : "Optional: sent with each push."} Never shown again.
          </span>
        </div>
        <div class="field">
          <label for="receiver-label">Label</label>
          <input id="receiver-label" value={label} placeholder="SIEM" onInput={(event) => setLabel(event.currentTarget.value)} />
        </div>
        <label class="check">
          <input type="checkbox" checked={fromBeginning} onChange={(event) => setFromBeginning(event.currentTarget.checked)} />
          Also every event still kept
        </label>
        <button type="submit">Add receiver</button>
      </form>
      <p class="status-line" role="status">
        {said}
      </p>
      {added?.pollUrl ? (
        <p data-testid="event-receiver-poll-url">
          It polls at <code>{added.pollUrl}</code> <CopyButton text={added.pollUrl} label="Copy poll URL" />
        </p>
      ) : null}
      <ErrorNotice error={error ?? receivers.error} />
      <p>
        <button type="button" class="secondary" onClick={() => receivers.reload()} disabled={receivers.loading}>
          Refresh delivery state
        </button>
      </p>
      <section class="table-wrap" aria-label="Event receivers">
        <table>
          <thead>
            <tr>
              <th scope="col">Receiver</th>
              <th scope="col">Sends</th>
              <th scope="col">Delivered</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(receivers.value?.data ?? []).map((receiver) => (
              <tr key={receiver.id} class={receiver.attempts > 0 ? "failed" : undefined} data-testid="event-receiver-row">
                <td class="receiver-address">
                  {receiver.label ? (
                    <>
                      <strong>{receiver.label}</strong>{" "}
                    </>
                  ) : null}
                  <code>{receiver.url}</code>
                  {receiver.pollUrl ? (
                    <div class="hint">
                      polls at <code>{receiver.pollUrl}</code>
                    </div>
                  ) : null}
                </td>
                <td>
                  {receiver.delivery === "push" ? "pushed" : "polled"}, {receiver.form}
                  <div class="hint">{receiver.events.length === 0 ? "every event" : receiver.events.map(eventKindOf).join(", ")}</div>
                </td>
                <td data-testid="event-receiver-counts">
                  {receiver.delivered} delivered, {receiver.rejected} rejected
                  <div class="hint">last: {when(receiver.lastDeliveredAt)}</div>
                </td>
                <td data-testid="event-receiver-state">
                  {stateInWords(receiver)}
                  {receiver.nextAttemptAt ? <div>Next attempt: {when(receiver.nextAttemptAt)}</div> : null}
                  {receiver.lastError ? (
                    <div data-testid="event-receiver-failure">
                      Last failure, {when(receiver.lastError.at)}: {failureInWords(receiver.lastError)}
                    </div>
                  ) : null}
                </td>
                <td>
                  <button type="button" class="danger" onClick={() => void remove(receiver)}>
                    Remove <span class="visually-hidden">{receiver.label ?? receiver.url}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {receivers.value?.data.length === 0 ? <p class="hint">No receivers yet.</p> : null}
    </section>
  );
}
