/**
 * Writes a large JSON body cooperatively (architecture §4b): the text of `jsonPieces`, flushed in writes
 * of a few tens of kilobytes, a turn of the event loop whenever the slice is spent, waiting for
 * `drain` when the socket's buffer is full, and stopping as soon as the client is gone.
 */
import { eventLoopSlice, pauseIfDue, type EventLoopSlice } from "../../event-loop-slice.js";
import { drainedOrClosed, type DrainableSink } from "./drained-or-closed.js";
import { jsonPieces } from "./json-pieces.js";

/** What the writer needs of a response: an `http.ServerResponse` is one, so is any `Writable`. */
export interface JsonSink extends DrainableSink {
  write(chunk: string): boolean;
  end(chunk: string): unknown;
  /** True once the connection is torn down, e.g. the client disconnected. */
  readonly destroyed: boolean;
}

/** Text gathered before one write: large enough that a write's overhead is small, small enough to buffer. */
const FLUSH_CHARACTERS = 64 * 1024;

/**
 * Writes `value` as JSON to `sink` and ends it: the bytes are those of `JSON.stringify(value)`.
 * Resolves `true` when all was written, `false` when the client left first (nothing more is
 * written then, and the sink is not ended: there is no one to end it for).
 */
export async function writeJsonInPieces(sink: JsonSink, value: unknown, slice: EventLoopSlice = eventLoopSlice()): Promise<boolean> {
  let pending = "";
  for (const piece of jsonPieces(value)) {
    pending += piece;
    if (pending.length < FLUSH_CHARACTERS) continue;
    if (sink.destroyed) return false;
    const flowing = sink.write(pending);
    pending = "";
    // Back-pressure: a client that reads slowly is not buffered a 15 MB body in memory.
    if (!flowing) await drainedOrClosed(sink);
    await pauseIfDue(slice);
  }
  if (sink.destroyed) return false;
  sink.end(pending);
  return true;
}
